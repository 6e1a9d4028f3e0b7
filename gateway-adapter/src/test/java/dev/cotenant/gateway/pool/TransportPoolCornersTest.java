package dev.cotenant.gateway.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.gateway.Stderr;
import dev.cotenant.gateway.pool.FakeFactory.Backend;
import dev.cotenant.gateway.pool.FakeFactory.Step;
import dev.cotenant.spi.ProviderConfig;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The pool's corners a mutation run found untested: clock readings other than 0, an idle cap too
 * large to add, timers that refuse work, interrupted starts and drains, the reverse index of
 * sessions, and what the log says. Each test names the mutant of {@link TransportPool} (or of the
 * parts it is made of: {@link EntryTable}, {@link Restarter}, {@link IdleSchedule},
 * {@link RestartPolicy}) or {@link PoolSettings} it kills.
 */
class TransportPoolCornersTest extends PoolTestSupport {
  private static final Duration LONG = Duration.ofSeconds(HANG_GUARD);

  // ---- the clock

  /** Kills {@code IdleSchedule.idle} with {@code !hasFirstIdle} negated: the cap then ran from the clock's 0. */
  @Test
  void theIdleCapRunsFromTheFirstIdleMomentWhereverTheClockStands() throws Exception {
    pool(new PoolSettings(GRACE, Duration.ofSeconds(20), 3, 32, Duration.ofSeconds(10)), Runnable::run);
    timers.advance(Duration.ofSeconds(10));
    acquire(ECHO, "a");
    pool.releaseSession("a"); // the first idle moment: 10 s, so the cap ends at 30 s
    timers.advance(Duration.ofSeconds(20).minusMillis(1));
    assertEquals(EntryState.DRAINING, only().state());
    timers.advance(Duration.ofMillis(1));
    assertEmpty();
  }

  /** Kills {@code IdleSchedule.idle} with {@code now - attachedSince >= grace} changed to {@code >}, through the pool. */
  @Test
  void beingAttachedForExactlyAGraceMovesTheFirstIdleMoment() throws Exception {
    pool(new PoolSettings(GRACE, Duration.ofSeconds(40), 3, 32, Duration.ofSeconds(10)), Runnable::run);
    acquire(ECHO, "a");
    pool.releaseSession("a"); // the first idle moment: 0 s
    timers.advance(Duration.ofSeconds(5));
    Lease<Backend> l = acquire(ECHO, "a");
    timers.advance(GRACE); // attached for exactly a grace: 35 s
    l.release(); // the first idle moment is now 35 s; the old cap would end at 40 s
    assertDrainsForExactlyAGrace();
  }

  /**
   * Kills {@code RestartPolicy.exited} with {@code now - upAt} changed to {@code +}: at a clock
   * reading of 0 the two agree, and every other test of the rule runs there.
   */
  @Test
  void aBackendThatDiesRightAfterEveryRestartFailsWhateverTheClockReads() throws Exception {
    timers.advance(Duration.ofHours(1));
    assertABackendThatDiesRightAfterEveryRestartFails();
  }

  /**
   * Kills {@code IdleSchedule.saturatedAdd} with its {@code &} changed to {@code |}: a negative reading (a host's
   * clock built on {@code System.nanoTime}) plus the grace then looked like an overflow, and the
   * entry never closed.
   */
  @Test
  void theGraceEndsOnAClockWhoseReadingsAreNegative() throws Exception {
    ManualTimers negative = new ManualTimers(-10_000);
    pool(SETTINGS, negative, Runnable::run, negative::now);
    Backend b = acquire(ECHO, "a").backend();
    pool.releaseSession("a");
    assertDrainsForExactlyAGrace(negative);
    assertTrue(b.isClosed());
  }

  /**
   * Kills both {@code saturatedAdd} mutants with a {@code ^} changed to {@code &}: the first idle
   * moment plus the largest idle cap wrapped round to a time long past, and the entry closed at
   * its first release instead of at the end of the grace.
   */
  @Test
  void theLargestIdleCapLeavesTheGraceInCharge() throws Exception {
    pool(PoolSettings.fromConfig(ProviderConfig.of(Map.of(
        PoolSettings.IDLE_CAP_MS, Long.toString(Long.MAX_VALUE)))), Runnable::run);
    timers.advance(Duration.ofHours(1));
    Lease<Backend> l = acquire(ECHO, "a");
    l.release();
    assertEquals(EntryState.DRAINING, only().state());
    assertDrainsForExactlyAGrace();
    PoolException x = assertThrows(PoolException.class, l::backend);
    assertTrue(x.getMessage().contains("the drain grace of PT30S ended"), x.getMessage());
  }

  // ---- timers that refuse work

  /**
   * Kills {@code release} and {@code releaseSession} without their {@code runAll(later)}, and
   * {@code goIdle} without its {@code end} (no test reached it): with no idle timer to be set, the
   * entry ends at its last release and its backend is closed there and then.
   */
  @Test
  void whenNoIdleTimerCanBeSetTheLastReleaseClosesTheEntryAndItsBackend() throws Exception {
    ScheduledExecutorService refusing = Executors.newSingleThreadScheduledExecutor();
    refusing.shutdown();
    pool(SETTINGS, refusing, Runnable::run, timers::now);
    Lease<Backend> echo = acquire(ECHO, "a");
    Backend echoBackend = echo.backend();
    Backend filesBackend = acquire(FILES, "b").backend();

    echo.release();
    assertTrue(echoBackend.isClosed());
    PoolException x = assertThrows(PoolException.class, echo::backend);
    assertTrue(x.getMessage().contains("no idle timer can be set"), x.getMessage());

    pool.releaseSession("b");
    assertTrue(filesBackend.isClosed());
    assertEmpty();
  }

  // ---- interruptions

  /**
   * Kills {@code attempt} returning {@code null} and {@code acquire} without its
   * {@code Thread.interrupt()} (no test reached it): the acquirer whose own start was interrupted
   * gets the {@link InterruptedException}, with its thread's flag set again.
   */
  @Test
  void anAcquirerInterruptedInItsOwnStartIsInterruptedAndTheEntryEnds() throws Exception {
    Step start = factory.next(Step.gated());
    AtomicReference<Throwable> thrown = new AtomicReference<>();
    AtomicBoolean flag = new AtomicBoolean();
    Thread t = new Thread(() -> {
      try {
        acquire(ECHO, "a");
      } catch (Throwable x) {
        thrown.set(x);
        flag.set(Thread.currentThread().isInterrupted());
      }
    });
    t.start();
    start.awaitEntered();
    t.interrupt();
    t.join(TimeUnit.SECONDS.toMillis(HANG_GUARD));
    assertFalse(t.isAlive());
    assertInstanceOf(InterruptedException.class, thrown.get());
    assertTrue(flag.get(), "the interrupt flag was not set again");
    assertEmpty();
    assertEquals(List.of(), factory.backends);
  }

  /**
   * Kills every mutant of {@code closeRemaining} and {@code drainAll} without its call (no test
   * reached them): a drain interrupted while it waits closes every entry before it throws.
   */
  @Test
  void anInterruptedDrainClosesEveryEntryBeforeItThrows() throws Exception {
    Lease<Backend> echo = acquire(ECHO, "a");
    Backend files = acquire(FILES, "b").backend();
    CountDownLatch draining = new CountDownLatch(1);
    pool.onWaiting(who -> {
      if (TransportPool.DRAIN.equals(who)) {
        draining.countDown();
      }
    });
    AtomicReference<Throwable> thrown = new AtomicReference<>();
    Thread t = new Thread(() -> {
      try {
        pool.drainAll(false, LONG);
      } catch (Throwable x) {
        thrown.set(x);
      }
    });
    t.start();
    await(draining);
    t.interrupt();
    t.join(TimeUnit.SECONDS.toMillis(HANG_GUARD));
    assertFalse(t.isAlive());
    assertInstanceOf(InterruptedException.class, thrown.get());
    assertEmpty();
    assertTrue(factory.backend(0).isClosed());
    assertTrue(files.isClosed());
    PoolException x = assertThrows(PoolException.class, echo::backend);
    assertTrue(x.getMessage().contains("the drain was interrupted"), x.getMessage());
  }

  // ---- the reverse index of sessions

  /**
   * Kills {@code detach} and {@code end} without their {@code unindex}, and both conditions of
   * {@code unindex} negated: a session is in the index exactly while it is attached somewhere,
   * and {@code releaseSession} finds every entry it is still attached to.
   */
  @Test
  void theSessionIndexHoldsASessionExactlyWhileItIsAttached() throws Exception {
    Lease<Backend> echoA = acquire(ECHO, "a");
    acquire(FILES, "a");
    Lease<Backend> echoB = acquire(ECHO, "b");
    assertEquals(2, pool.indexedSessions());

    echoA.release(); // "a" is still attached to files
    assertEquals(2, pool.indexedSessions());
    pool.releaseSession("a");
    EntrySnapshot files = pool.accounting().stream().filter(s -> s.serverName().equals("files")).findFirst().orElseThrow();
    assertEquals(0, files.sessions());
    assertEquals(1, pool.indexedSessions());

    echoB.release();
    assertEquals(0, pool.indexedSessions());

    acquire(OTHER, "c");
    assertEquals(1, pool.indexedSessions());
    pool.drainAll(true, LONG); // the entry ends with "c" attached
    assertEquals(0, pool.indexedSessions());
  }

  // ---- the log

  /**
   * Kills {@code drainAll} with {@code forced > 0} negated or changed to {@code >= 0}: only a
   * drain that had to force entries says so.
   */
  @Test
  void onlyADrainThatForcedEntriesWarns() throws Exception {
    acquire(ECHO, "a");
    String forcedByTheCaller = Stderr.capture(() -> drain(true, LONG));
    assertFalse(forcedByTheCaller.contains("pool drain:"), forcedByTheCaller);

    pool(SETTINGS, Runnable::run);
    acquire(ECHO, "b");
    String timedOut = Stderr.capture(() -> drain(false, Duration.ZERO));
    assertTrue(timedOut.contains("WARN") && timedOut.contains("pool drain: 0 entries closed within PT0S, 1 still open"),
        timedOut);
  }

  private void drain(boolean force, Duration timeout) {
    try {
      pool.drainAll(force, timeout);
    } catch (InterruptedException e) {
      throw new AssertionError(e);
    }
  }

  /** Kills {@code end} with {@code state == FAILED} negated: a failed entry is a warning, a closed one is not. */
  @Test
  void aFailedEntryIsLoggedAsAWarning() throws Exception {
    acquire(ECHO, "a");
    acquire(OTHER, "b");
    String log = Stderr.capture(() -> {
      factory.backend(0).exit("crashed");
      factory.last().exit("crashed at once");
      factory.last().exit("crashed at once");
      factory.last().exit("crashed at once");
    });
    assertEquals(List.of("other"), pool.accounting().stream().map(EntrySnapshot::serverName).toList());
    assertTrue(log.contains("WARN") && log.contains("failed: its backend exited within PT30S"), log);
    String closed = Stderr.capture(() -> drain(true, LONG));
    assertFalse(closed.contains("was closed"), closed); // the other entry's end is not a warning
  }
}
