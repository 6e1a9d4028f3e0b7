/**
 * The default {@code stdio} session transport and the default pre-flight (docs/preflight.md).
 *
 * <p>{@link dev.cotenant.providers.preflight.StdioSessionTransportProvider} ({@code stdio}) starts
 * a server as a local process and speaks newline-delimited JSON-RPC to it: the one JSON-RPC client
 * of this module, reached by other modules only through {@link dev.cotenant.spi.SessionTransport}
 * and {@link dev.cotenant.spi.ServerSession}.
 * {@link dev.cotenant.providers.preflight.StdioPreflightTransportProvider} ({@code stdio}) builds
 * the pre-flight over whichever session transport the runtime selected, so a host that starts
 * servers its own way has its pre-flight start them that way too. Both read their bounds from
 * {@code cotenant.preflight.*} ({@link dev.cotenant.providers.preflight.PreflightSettings}).
 */
package dev.cotenant.providers.preflight;
