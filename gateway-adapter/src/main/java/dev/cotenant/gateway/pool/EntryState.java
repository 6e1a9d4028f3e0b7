package dev.cotenant.gateway.pool;

/**
 * Where a pool entry is in its life: {@code SPAWNING → ACTIVE → DRAINING → CLOSED}, with
 * {@code DRAINING → ACTIVE} when a session attaches during the grace, {@code ACTIVE → SPAWNING}
 * for a restart, and {@code FAILED} when a backend cannot be (re)started.
 */
public enum EntryState {
  /** A start is in flight: the first start, or a restart. No backend is up. */
  SPAWNING,
  /** The backend is up and at least one session is attached. */
  ACTIVE,
  /** The backend is up, no session is attached, and the entry closes when the idle timer ends. */
  DRAINING,
  /** Closed: the entry has left the pool and its backend was (or is being) closed. */
  CLOSED,
  /** Failed: the first start, or every allowed restart attempt, failed; the entry has left the pool. */
  FAILED
}
