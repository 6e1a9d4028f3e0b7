package dev.cotenant.gateway.pool;

import java.time.Duration;
import java.util.Objects;

/**
 * When an idle entry of a {@link TransportPool} closes: the rule of its idle timer, with the two
 * moments it is measured from. One per entry; pure (the pool passes the time in) and guarded by
 * the pool's lock like the rest of the entry.
 *
 * <ul>
 *   <li><b>Drain grace.</b> When the last session detaches from an entry that has had a backend
 *       up, the entry goes idle and its timer starts; a session attaching cancels it. When the
 *       timer ends with no session attached the entry closes. A {@link Placement#DEDICATED}
 *       entry, whose key names its one session, has no grace: it closes as soon as that session
 *       leaves.
 *   <li><b>Hard idle cap, measured from the first idle moment.</b> The timer ends at
 *       {@code min(now + drainGrace, firstIdle + idleCap)}, computed each time the entry goes
 *       idle. {@code firstIdle} is set the first time the entry goes idle, and is moved to the
 *       present only when the entry goes idle after having been attached CONTINUOUSLY for at
 *       least one whole {@code drainGrace} (measured from the moment it last went from no
 *       session to some). Attaching and detaching briefly (flapping) therefore never moves it:
 *       an entry that keeps going idle and being re-attached for less than a grace closes once
 *       it is idle at {@code firstIdle + idleCap}; one that goes idle after that moment, still
 *       flapping, closes at once.
 * </ul>
 */
final class IdleSchedule {
  /**
   * When an idle timer ends, by the pool's clock, and what its ending means (for the log and the
   * reason the entry closed).
   */
  record Deadline(long at, String reason) {
    /** How long from {@code now} until the deadline; zero when it has passed. */
    long delayFrom(long now) {
      return Math.max(0, at - now);
    }
  }

  private final Duration drainGrace;
  private final Duration idleCap;
  /** When the entry last went from no session attached to some. */
  private long attachedSince;
  private boolean hasFirstIdle;
  /** The first idle moment the idle cap is measured from. */
  private long firstIdleAt;

  IdleSchedule(Duration drainGrace, Duration idleCap) {
    this.drainGrace = Objects.requireNonNull(drainGrace, "drainGrace");
    this.idleCap = Objects.requireNonNull(idleCap, "idleCap");
  }

  /** The entry went from no session attached to some at {@code now}. */
  void attached(long now) {
    attachedSince = now;
  }

  /**
   * The entry has no session attached since {@code now}: when its idle timer ends, for an entry
   * of {@code placement}.
   */
  Deadline idle(long now, Placement placement) {
    long grace = drainGrace.toMillis();
    if (!hasFirstIdle || now - attachedSince >= grace) {
      hasFirstIdle = true;
      firstIdleAt = now;
    }
    if (placement == Placement.DEDICATED) {
      // Its key names its one session: no other can ever attach, so it ends with that session.
      return new Deadline(now, "its session left (a dedicated backend serves one session)");
    }
    long graceEnds = saturatedAdd(now, grace);
    long capEnds = saturatedAdd(firstIdleAt, idleCap.toMillis());
    return capEnds <= graceEnds
        ? new Deadline(capEnds, "the idle cap of " + idleCap + " from its first idle moment ended")
        : new Deadline(graceEnds, "the drain grace of " + drainGrace + " ended");
  }

  private static long saturatedAdd(long a, long b) {
    long r = a + b;
    return ((a ^ r) & (b ^ r)) < 0 ? Long.MAX_VALUE : r;
  }
}
