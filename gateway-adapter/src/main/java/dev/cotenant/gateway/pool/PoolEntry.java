package dev.cotenant.gateway.pool;

import dev.cotenant.api.ServerDescription;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import org.jspecify.annotations.Nullable;

/**
 * One entry of a {@link TransportPool}: a key, its backend and the sessions attached to it.
 * Every mutable field is guarded by the pool's lock; the futures may be waited on without it.
 */
final class PoolEntry<B extends PooledBackend> {
  /** How a start (the first, or a restart) ended: with a backend up, or not, and why. */
  record Outcome(boolean up, String reason) {}

  final PoolKey key;
  final ServerDescription server;
  final Placement placement;
  boolean forced;

  EntryState state = EntryState.SPAWNING;
  /** The generation of the current backend, or of the one being started. */
  int generation = 1;
  @Nullable B backend;
  /** A backend of this entry has come up at least once. */
  boolean everUp;
  /** The current backend came up from a restart, not from the first start. */
  boolean restartedBackend;
  /** When the current backend came up, by the pool's clock. */
  long upAt;

  /** Attached sessions, each with the serial of its attachment. */
  final Map<String, Long> sessions = new LinkedHashMap<>();

  /** A factory start of {@link #generation} is running. */
  boolean starting;
  /** The exit the backend being started reported before its start returned. */
  @Nullable String exitedWhileStarting;
  /** The start in flight (the first start, or a restart with all its attempts); done when none. */
  CompletableFuture<Outcome> inFlight = new CompletableFuture<>();
  /** When a backend that died is started again, and when the entry gives up. */
  final RestartPolicy restarts;

  /** No session is attached and the idle timer runs. */
  boolean idle;
  /** Bumped whenever the idle timer is set or cancelled, so a stale timer run does nothing. */
  long idleSeq;
  @Nullable ScheduledFuture<?> idleTimer;
  /** When the idle timer ends, from the moments the entry went idle and was attached. */
  final IdleSchedule idleSchedule;
  /** What the idle timer ending means, for the log. */
  String idleEnd = "";

  /** Why the entry ended, once it is {@link EntryState#CLOSED} or {@link EntryState#FAILED}. */
  PoolException.@Nullable Kind endKind;
  String endReason = "";
  @Nullable Throwable endCause;

  /** Backends handed over to be closed whose close has not returned yet. */
  int pendingCloses;
  /** Done once the entry has ended and every backend it had is closed. */
  final CompletableFuture<Void> closed = new CompletableFuture<>();
  /** One line per backend close that threw. */
  final List<String> closeErrors = new ArrayList<>();

  /** Why its first session was placed here. */
  final String reason;

  PoolEntry(PoolKey key, ServerDescription server, Placement placement, boolean forced, String reason,
      PoolSettings settings) {
    this.key = key;
    this.server = server;
    this.placement = placement;
    this.forced = forced;
    this.reason = reason;
    this.restarts = new RestartPolicy(settings.restartAttempts(), settings.drainGrace());
    this.idleSchedule = new IdleSchedule(settings.drainGrace(), settings.idleCap());
  }

  boolean ended() {
    return state == EntryState.CLOSED || state == EntryState.FAILED;
  }

  boolean startInFlight() {
    return !inFlight.isDone();
  }

  String id() {
    return key.connectionId();
  }
}
