package dev.cotenant.gateway.pool;

import java.util.Objects;
import java.util.OptionalLong;

/**
 * One live entry of the pool's {@linkplain TransportPool#accounting() accounting}, as it was when
 * the snapshot was taken.
 *
 * @param connectionId the entry's {@link PoolKey#connectionId()}
 * @param serverName the server's configured name
 * @param state where the entry is in its life
 * @param generation the generation of the current backend (of the one being started while
 *     {@link EntryState#SPAWNING}); 1 for the first start
 * @param sessions how many sessions are attached (sessions waiting for a start count: they are
 *     attached from the moment they asked)
 * @param pid the current backend's process id, when it has one
 * @param calls the current backend's {@link PooledBackend#calls()}; 0 without a backend
 * @param hazards the current backend's {@link PooledBackend#hazards()}; 0 without a backend
 * @param startedAt when the current backend came up (its start returned), in milliseconds of the
 *     pool's clock; empty while no backend is up
 * @param placement shared or dedicated
 * @param forced true when an acquire of the entry said the operator forced the placement
 * @param reason why the entry's first session was placed there ({@code its verdict (declared)
 *     recommends sharing}); empty when the acquire gave none
 */
public record EntrySnapshot(
    String connectionId,
    String serverName,
    EntryState state,
    int generation,
    int sessions,
    OptionalLong pid,
    long calls,
    int hazards,
    OptionalLong startedAt,
    Placement placement,
    boolean forced,
    String reason) {
  /** Checks the parts are present. */
  public EntrySnapshot {
    Objects.requireNonNull(connectionId, "connectionId");
    Objects.requireNonNull(serverName, "serverName");
    Objects.requireNonNull(state, "state");
    Objects.requireNonNull(pid, "pid");
    Objects.requireNonNull(startedAt, "startedAt");
    Objects.requireNonNull(placement, "placement");
    Objects.requireNonNull(reason, "reason");
  }

  /** As the canonical constructor, with no reason. */
  public EntrySnapshot(String connectionId, String serverName, EntryState state, int generation, int sessions,
      OptionalLong pid, long calls, int hazards, OptionalLong startedAt, Placement placement, boolean forced) {
    this(connectionId, serverName, state, generation, sessions, pid, calls, hazards, startedAt, placement, forced, "");
  }
}
