package dev.cotenant.gateway.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The restart budget of one entry: consecutive failed attempts, early exits, an operator's fresh count. */
class RestartPolicyTest {
  private static final Duration GRACE = Duration.ofSeconds(10);

  @Test
  void aBackendThatStayedUpAGraceIsRestartedWithTheCountAfresh() {
    RestartPolicy p = new RestartPolicy(2, GRACE);
    assertNull(p.exited("x", 5_000, 0, true, "boom"));
    assertEquals(1, p.failures());
    assertNull(p.exited("x", 30_000, 20_000, true, "boom"), "up exactly one grace: not early");
    assertEquals(0, p.failures());
  }

  @Test
  void theFirstBackendExitingEarlyIsNoFailedAttempt() {
    RestartPolicy p = new RestartPolicy(1, GRACE);
    assertNull(p.exited("x", 1, 0, false, "boom"));
    assertEquals(0, p.failures());
  }

  @Test
  void restartedBackendsExitingEarlyFailTheEntryAtTheBudget() {
    RestartPolicy p = new RestartPolicy(3, GRACE);
    assertNull(p.exited("x", 1_000, 0, true, "one"));
    assertNull(p.exited("x", 2_000, 1_500, true, "two"));
    assertEquals("x failed: its backend exited within PT10S of each of 3 restarts, the last: three",
        p.exited("x", 3_000, 2_500, true, "three"));
  }

  @Test
  void consecutiveFailedAttemptsFailTheEntryAtTheBudget() {
    RestartPolicy p = new RestartPolicy(2, GRACE);
    assertEquals(2, p.attempts());
    assertNull(p.attemptFailed("x", "no binary", false));
    assertEquals(1, p.failures());
    assertEquals("x failed: 2 consecutive restart attempts failed, the last: still none",
        p.attemptFailed("x", "still none", false));
  }

  @Test
  void anInterruptedAttemptFailsTheEntryAtOnce() {
    RestartPolicy p = new RestartPolicy(5, GRACE);
    assertEquals("x failed: 1 consecutive restart attempts failed, the last: interrupted",
        p.attemptFailed("x", "interrupted", true));
  }

  @Test
  void anOperatorsRestartGetsAllItsAttempts() {
    RestartPolicy p = new RestartPolicy(2, GRACE);
    assertNull(p.attemptFailed("x", "no", false));
    p.reset();
    assertEquals(0, p.failures());
    assertNull(p.attemptFailed("x", "no", false));
  }
}
