/**
 * The default {@code stdio} session transport (docs/providers.md, docs/preflight.md): the one
 * JSON-RPC client of this module that starts servers, reached by other modules only through
 * {@link dev.cotenant.spi.SessionTransport} and {@link dev.cotenant.spi.ServerSession}.
 *
 * <p>{@link dev.cotenant.providers.session.StdioSessionTransportProvider} ({@code stdio}) starts a
 * server as a local process and speaks newline-delimited JSON-RPC to it, under the bounds of
 * {@link dev.cotenant.providers.session.SessionSettings} ({@code cotenant.session.*}), which suit
 * a backend that lives for days: one message, its nesting and the non-JSON lines are bounded, the
 * number of messages and bytes over a process's life are not. A caller with a short conversation
 * (the pre-flight) opens its sessions within tighter settings
 * ({@link dev.cotenant.providers.session.StdioSessionTransport#openWithin}); the process spawning,
 * line reading and teardown are the same code either way.
 */
package dev.cotenant.providers.session;
