/**
 * MCP over Streamable HTTP for the daemon: {@link dev.cotenant.cli.daemon.http.McpHttpEndpoint}
 * serves {@code /mcp/{server}} (MCP 2025-11-25, and the stateless requests of 2026-07-28) over
 * the sharing runtime, {@link dev.cotenant.cli.daemon.http.HttpGuard} refuses foreign origins and
 * hosts and checks the bearer token, and {@link dev.cotenant.cli.daemon.http.DaemonHttpServer}
 * runs them on Jetty, bound to the loopback interface only.
 */
@NullMarked
package dev.cotenant.cli.daemon.http;

import org.jspecify.annotations.NullMarked;
