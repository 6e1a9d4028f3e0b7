package dev.cotenant.spi;

import dev.cotenant.api.ServerDescription;

/**
 * Spawns a server as two different callers and compares what a pooled backend would replay.
 * Never mutates the description. Any failure to measure resolves to
 * {@link PreflightResult#notRun}; only cancellation ({@link InterruptedException}) escapes.
 * Thread-safe: a pass calls it from several threads, under the transport's own ceiling.
 */
@FunctionalInterface
public interface PreflightTransport {
  /** Pre-flights one server. Blocking; spawns processes. */
  PreflightResult preflight(ServerDescription server) throws InterruptedException;
}
