package dev.cotenant.gateway.pool;

import java.time.Duration;
import java.util.Objects;

/**
 * One session's hold on a pool entry, from {@link TransportPool#acquire}. The entry counts
 * sessions, not leases: a session that acquires one key twice holds two leases on one
 * attachment, and releasing either (or {@link TransportPool#releaseSession}) detaches the
 * session. Thread-safe.
 *
 * @param <B> the backends of the pool
 */
public final class Lease<B extends PooledBackend> {
  private final TransportPool<B> pool;
  private final EntryTable<B> table;
  final PoolEntry<B> entry;
  private final String sessionId;
  final long serial;
  private final int generation;

  Lease(TransportPool<B> pool, EntryTable<B> table, PoolEntry<B> entry, String sessionId, long serial, int generation) {
    this.pool = pool;
    this.table = table;
    this.entry = entry;
    this.sessionId = sessionId;
    this.serial = serial;
    this.generation = generation;
  }

  TransportPool<B> pool() {
    return pool;
  }

  /** The entry's key. */
  public PoolKey key() {
    return entry.key;
  }

  /** The session holding the lease. */
  public String sessionId() {
    return sessionId;
  }

  /** The generation of the backend that was current when the lease was acquired. */
  public int generation() {
    return generation;
  }

  /**
   * The entry's CURRENT backend: after a restart, the new one, whatever generation the lease
   * began with.
   *
   * @throws PoolException {@link PoolException.Kind#FAILED} when the entry failed,
   *     {@link PoolException.Kind#CLOSED} when it closed or this lease (or its session) was
   *     released, {@link PoolException.Kind#RESTARTING} while a restart is in flight
   */
  public B backend() throws PoolException {
    return table.backendOf(this);
  }

  /**
   * The current backend, waiting up to {@code timeout} for a restart in flight to end.
   *
   * @throws PoolException as {@link #backend()}; {@link PoolException.Kind#RESTARTING} when the
   *     restart is still in flight at the timeout
   * @throws InterruptedException when interrupted while waiting
   */
  public B awaitBackend(Duration timeout) throws PoolException, InterruptedException {
    return table.awaitBackendOf(this, Objects.requireNonNull(timeout, "timeout"));
  }

  /**
   * Whether {@code generation} is the generation of the backend the entry has up now. A caller
   * that remembers the generation its work began under drops what a replaced backend reports
   * late. False while a restart is in flight and once the entry has ended.
   */
  public boolean current(int generation) {
    return table.isCurrent(entry, generation);
  }

  /** Releases the lease ({@link TransportPool#release}); idempotent. */
  public void release() {
    pool.release(this);
  }

  /** The session and the entry's connection id. */
  @Override
  public String toString() {
    return "Lease[" + sessionId + " on " + entry.id() + "]";
  }
}
