package dev.cotenant.gateway.pool;

import dev.cotenant.api.ServerDescription;

/**
 * Starts backends for a {@link TransportPool}.
 *
 * @param <B> the backends it starts
 */
@FunctionalInterface
public interface BackendFactory<B extends PooledBackend> {
  /**
   * Starts one backend of {@code server} (for a host: spawns the process and completes the
   * handshake). Called without the pool's lock held, on the thread of the acquire that created
   * the entry or on the thread running a restart; it may block, within its own bounds. A
   * {@code null} result counts as a failure.
   *
   * <p>The backend reports its death through {@code events}, which belongs to this start only:
   * once the pool has started a newer generation, {@code events} is ignored. An exit reported
   * before this method returns makes the start a failure (the returned backend is closed).
   *
   * @param key the entry's key
   * @param server the server to start
   * @param generation the entry's generation this backend will be: 1 for the first start,
   *     one more for every later start attempt of the entry
   * @param events how the backend tells the pool it died
   * @throws InterruptedException when interrupted; the start counts as failed
   * @throws Exception any failure to start; its message is what acquirers and restarts report
   */
  B start(PoolKey key, ServerDescription server, int generation, BackendEvents events) throws Exception;
}
