package dev.cotenant.gateway.pool;

import java.util.OptionalLong;

/**
 * What the pool manages: one started backend (for a host, a process speaking MCP and the
 * multiplexer that routes many sessions over it). The pool never holds its lock while it calls
 * any method of a backend.
 */
public interface PooledBackend {
  /** The process id of the backend's root process, when there is one to report. */
  OptionalLong pid();

  /**
   * Tears the backend down with its whole process tree. Idempotent; may block up to the
   * backend's own bounds (a polite stop, then a kill). The pool calls it exactly when the backend
   * leaves the pool: when its entry closes or fails, when it is replaced by a restart, and on a
   * backend whose entry closed while it was being started. It is also called on a backend that
   * already exited, to sweep what it left behind.
   */
  void close();

  /** The calls the backend has served, for the pool's accounting; 0 when not counted. */
  default long calls() {
    return 0;
  }

  /** The hazards the backend has observed, for the pool's accounting; 0 when not counted. */
  default int hazards() {
    return 0;
  }
}
