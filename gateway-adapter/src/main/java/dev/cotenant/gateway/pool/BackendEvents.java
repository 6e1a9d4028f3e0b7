package dev.cotenant.gateway.pool;

/**
 * How a backend tells its pool it died. Bound to one generation of one entry: after the pool has
 * moved on to a newer generation, or the entry has closed, calls are ignored. Thread-safe; any
 * thread may call it any number of times, and it does not block on the backend (a restart, or
 * the close of the dead backend, runs on the pool's worker executor).
 */
@FunctionalInterface
public interface BackendEvents {
  /**
   * The backend exited (its process died, its pipe closed). When sessions are attached the pool
   * restarts it as a new generation; when none is attached the pool closes the entry.
   *
   * @param reason why, for logs and for the restart's failure reason
   */
  void exited(String reason);
}
