/**
 * MCP over Streamable HTTP for the daemon: {@link dev.cotenant.cli.daemon.http.McpHttpEndpoint}
 * serves {@code /mcp/{server}} (MCP 2025-11-25, and the stateless requests of 2026-07-28) over
 * the sharing runtime, each client session adapted by an {@code HttpClientSession} (its POST by
 * {@code PostRoute}, its GET stream and DELETE by {@code SessionRoutes}, kept and expired by
 * {@code HttpSessions}); messages are read and answered in the {@link dev.cotenant.spi.rpc}
 * vocabulary; {@link dev.cotenant.cli.daemon.http.HttpGuard} refuses foreign origins and
 * hosts and checks the bearer token, and {@link dev.cotenant.cli.daemon.http.DaemonHttpServer}
 * runs them on Jetty, bound to the loopback interface only.
 */
@NullMarked
package dev.cotenant.cli.daemon.http;

import org.jspecify.annotations.NullMarked;
