/**
 * The default pre-flight (docs/preflight.md).
 *
 * <p>{@link dev.cotenant.providers.preflight.StdioPreflightTransportProvider} ({@code stdio}) builds
 * the pre-flight over whichever session transport the runtime selected, so a host that starts
 * servers its own way has its pre-flight start them that way too. It reads its bounds from
 * {@code cotenant.preflight.*} ({@link dev.cotenant.providers.preflight.PreflightSettings}); over
 * the {@code stdio} session transport ({@code dev.cotenant.providers.session}) its own sessions
 * are opened within the pre-flight's tight process bounds (message count, bytes, line length,
 * nesting, non-JSON lines, teardown waits) rather than the long-lived sessions' ones.
 */
package dev.cotenant.providers.preflight;
