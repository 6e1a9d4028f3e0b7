/**
 * The Cotenant daemon ({@code cotenant serve}) and its stdio shim ({@code cotenant connect}): one
 * process per Cotenant home that owns the shared backends of every MCP client on the machine,
 * reached over a Unix domain socket (mode 0600) and over Streamable HTTP on loopback, with its JSON
 * API on {@code api.sock} too ({@link dev.cotenant.cli.daemon.ApiSocket}). See
 * {@code docs/daemon.md}.
 */
@NullMarked
package dev.cotenant.cli.daemon;

import org.jspecify.annotations.NullMarked;
