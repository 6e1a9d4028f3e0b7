package dev.cotenant.gateway.pool;

/** Whether a session shares a server's backend with other sessions (docs/pool.md). */
public enum Placement {
  /** One backend per launch configuration, shared by every session that acquires it ({@link PoolKey#of}). */
  SHARED,
  /** One backend per session ({@link PoolKey#dedicated}): the pool's lifecycle without sharing. */
  DEDICATED
}
