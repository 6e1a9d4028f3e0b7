package dev.cotenant.gateway.pool;

import java.time.Duration;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * When a {@link TransportPool} entry whose backend died is started again, and when it gives up:
 * the restart budget of one entry. Pure (the pool passes the time in) and guarded by the pool's
 * lock like the rest of the entry.
 *
 * <p>A restart makes attempts until a start succeeds or {@code restartAttempts} CONSECUTIVE
 * attempts have failed; then the entry fails. An attempt fails when the start throws (or returns
 * {@code null}, or its backend reports an exit before the start returned), or when the backend
 * it started exits less than one {@code drainGrace} after it came up (so a backend that dies
 * right after every start cannot restart forever); a backend that stayed up at least that long
 * starts the count afresh when it exits. An interrupted attempt ends the restart at once. An
 * operator's restart ({@link TransportPool#restartByName}) starts the count afresh: it gets all
 * its attempts.
 */
final class RestartPolicy {
  private final int restartAttempts;
  private final Duration drainGrace;
  /** Consecutive failed restart attempts. */
  private int failures;

  /** A policy of {@code restartAttempts} consecutive attempts (positive, as {@link PoolSettings} checks). */
  RestartPolicy(int restartAttempts, Duration drainGrace) {
    this.restartAttempts = restartAttempts;
    this.drainGrace = Objects.requireNonNull(drainGrace, "drainGrace");
  }

  /**
   * The current backend of entry {@code id} exited at {@code now} with sessions attached; it came
   * up at {@code upAt}, from a restart when {@code restarted}.
   *
   * @return {@code null} to restart it, or why the entry fails instead
   */
  @Nullable String exited(String id, long now, long upAt, boolean restarted, String reason) {
    boolean early = restarted && now - upAt < drainGrace.toMillis();
    failures = early ? failures + 1 : 0;
    if (failures >= restartAttempts) {
      return id + " failed: its backend exited within " + drainGrace + " of each of " + failures
          + " restarts, the last: " + reason;
    }
    return null;
  }

  /**
   * A restart attempt of entry {@code id} failed, saying {@code why}.
   *
   * @return {@code null} to make the next attempt, or why the entry fails instead
   */
  @Nullable String attemptFailed(String id, String why, boolean interrupted) {
    failures++;
    if (failures >= restartAttempts || interrupted) {
      return id + " failed: " + failures + " consecutive restart attempts failed, the last: " + why;
    }
    return null;
  }

  /** An operator asked for the restart: the count starts afresh. */
  void reset() {
    failures = 0;
  }

  /** Consecutive failed attempts so far. */
  int failures() {
    return failures;
  }

  /** How many consecutive failed attempts fail the entry. */
  int attempts() {
    return restartAttempts;
  }
}
