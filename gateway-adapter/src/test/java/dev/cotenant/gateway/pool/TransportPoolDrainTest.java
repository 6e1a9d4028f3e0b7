package dev.cotenant.gateway.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.gateway.pool.FakeFactory.Backend;
import dev.cotenant.gateway.pool.FakeFactory.Step;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/** Start failures, the spawn budget, and draining the pool. */
class TransportPoolDrainTest extends PoolTestSupport {
  private static final Duration LONG = Duration.ofSeconds(HANG_GUARD);

  private static PoolSettings budget(int n) {
    return new PoolSettings(GRACE, CAP, 3, n, Duration.ofSeconds(10));
  }

  // ---- rule 9: a start failure reaches every waiting acquirer

  @Test
  void aStartFailureReachesEveryWaiterAndTheNextAcquireTriesAgain() throws Exception {
    Step start = factory.next(Step.gatedFailing("port 7000 is in use"));
    CountDownLatch waiting = waiters(2);
    List<Future<Lease<Backend>>> acquires = new ArrayList<>();
    acquires.add(async(() -> acquire(ECHO, "a")));
    start.awaitEntered();
    acquires.add(async(() -> acquire(ECHO, "b")));
    acquires.add(async(() -> acquire(ECHO, "c")));
    await(waiting);
    start.open();
    for (Future<Lease<Backend>> f : acquires) {
      PoolException x = failure(f);
      assertEquals(PoolException.Kind.SPAWN_FAILED, x.kind());
      assertTrue(x.getMessage().contains("port 7000 is in use") && x.getMessage().contains(PoolKey.of(ECHO).connectionId()),
          x.getMessage());
    }
    assertEmpty();
    assertEquals(1, factory.starts.get());
    acquire(ECHO, "a").backend();
    assertEquals(2, factory.starts.get());
    assertEquals(EntryState.ACTIVE, only().state());
  }

  @Test
  void anExitBeforeTheStartReturnedIsAStartFailure() throws Exception {
    factory.next(Step.exitingWhileStarting("died in the handshake"));
    PoolException x = org.junit.jupiter.api.Assertions.assertThrows(PoolException.class, () -> acquire(ECHO, "a"));
    assertEquals(PoolException.Kind.SPAWN_FAILED, x.kind());
    assertTrue(x.getMessage().contains("died in the handshake"), x.getMessage());
    assertTrue(factory.backend(0).isClosed());
    assertEmpty();
  }

  // ---- rule 7: the spawn budget

  @Test
  void anAcquireBeyondTheBudgetIsRefusedNamingTheBudgetAndItsKey() throws Exception {
    pool(budget(2), Runnable::run);
    acquire(ECHO, "a");
    Lease<Backend> files = acquire(FILES, "a");
    PoolException x = org.junit.jupiter.api.Assertions.assertThrows(PoolException.class, () -> acquire(OTHER, "a"));
    assertEquals(PoolException.Kind.BUDGET_EXHAUSTED, x.kind());
    assertTrue(x.getMessage().contains("2") && x.getMessage().contains("cotenant.pool.spawn-budget")
        && x.getMessage().contains(PoolKey.of(OTHER).connectionId()), x.getMessage());
    assertEquals(2, factory.starts.get());
    acquire(ECHO, "b"); // an existing key needs no slot
    files.release();
    assertEquals(PoolException.Kind.BUDGET_EXHAUSTED, kindOf(() -> acquire(OTHER, "a"))); // draining still holds its slot
    timers.advance(GRACE);
    acquire(OTHER, "a");
  }

  @Test
  void aFailingStartDoesNotLeakItsSlot() throws Exception {
    pool(budget(1), Runnable::run);
    factory.next(Step.failing("no such command"));
    assertEquals(PoolException.Kind.SPAWN_FAILED, kindOf(() -> acquire(ECHO, "a")));
    acquire(FILES, "a").backend();
  }

  @Test
  void aStartInFlightHoldsItsSlot() throws Exception {
    pool(budget(1), Runnable::run);
    GatedAcquire a = acquireGated(ECHO, "a");
    assertEquals(PoolException.Kind.BUDGET_EXHAUSTED, kindOf(() -> acquire(FILES, "a")));
    a.start().open();
    await(a.lease());
  }

  @Test
  void aRestartKeepsItsSlot() throws Exception {
    pool(budget(1), Runnable::run);
    Lease<Backend> l = acquire(ECHO, "a");
    l.backend().exit("crashed");
    assertEquals(2, l.backend().generation);
    assertEquals(PoolException.Kind.BUDGET_EXHAUSTED, kindOf(() -> acquire(FILES, "a")));
  }

  // ---- rule 8: drainAll

  @Test
  void aForcedDrainClosesEveryEntryAtOnceAndRefusesNewAcquires() throws Exception {
    Lease<Backend> echo = acquire(ECHO, "a");
    Lease<Backend> files = acquire(FILES, "b");
    files.release();
    DrainResult r = pool.drainAll(true, LONG);
    assertEquals(new DrainResult(2, 0, List.of()), r);
    assertEmpty();
    assertTrue(factory.backend(0).isClosed());
    assertTrue(factory.backend(1).isClosed());
    assertEquals(PoolException.Kind.CLOSED, kindOf(echo::backend));
    assertEquals(PoolException.Kind.CLOSED, kindOf(() -> acquire(ECHO, "c")));
    assertEquals(0, timers.pending());
    assertEquals(new DrainResult(0, 0, List.of()), pool.drainAll(true, LONG));
  }

  @Test
  void aGracefulDrainLetsEachEntryCloseThroughItsLifecycle() throws Exception {
    Lease<Backend> l = acquire(ECHO, "a");
    CountDownLatch draining = new CountDownLatch(1);
    pool.onWaiting(who -> draining.countDown());
    Future<DrainResult> drain = async(() -> pool.drainAll(false, LONG));
    await(draining);
    assertEquals(PoolException.Kind.CLOSED, kindOf(() -> acquire(ECHO, "b")));
    l.backend(); // still open: nothing forced it
    assertFalse(factory.backend(0).isClosed());
    l.release();
    timers.advance(GRACE);
    assertEquals(new DrainResult(1, 0, List.of()), await(drain));
    assertTrue(factory.backend(0).isClosed());
  }

  @Test
  void entriesStillOpenAtTheTimeoutAreClosedAnywayAndCountedForced() throws Exception {
    Lease<Backend> l = acquire(ECHO, "a");
    assertEquals(new DrainResult(0, 1, List.of()), pool.drainAll(false, Duration.ZERO));
    assertEmpty();
    assertTrue(factory.backend(0).isClosed());
    assertEquals(PoolException.Kind.CLOSED, kindOf(l::backend));
  }

  @Test
  void aCloseStillRunningAtTheTimeoutIsCountedForced() throws Exception {
    pool(SETTINGS, threads);
    Backend b = acquire(ECHO, "a").backend();
    CountDownLatch stuck = new CountDownLatch(1);
    b.closeGate = stuck;
    assertEquals(new DrainResult(0, 1, List.of()), pool.drainAll(true, Duration.ZERO));
    assertEmpty();
    stuck.countDown();
    await(b.closed);
  }

  /**
   * A drain waits for the close of an entry that ended before it (its idle timer) and is still
   * closing: when the pool's close returns, no backend is on its way down. The daemon's stop
   * returned while the last session's backend was still closing, and the process could outlive
   * the daemon. The entry is not counted: the drain did not end it.
   */
  @Test
  void aDrainWaitsForTheCloseOfAnEntryThatEndedBeforeIt() throws Exception {
    pool(SETTINGS, threads);
    Lease<Backend> l = acquire(ECHO, "a");
    Backend b = l.backend();
    CountDownLatch stuck = new CountDownLatch(1);
    b.closeGate = stuck;
    l.release();
    timers.advance(GRACE);
    assertEmpty();
    Future<DrainResult> drain = async(() -> pool.drainAll(true, LONG));
    assertThrows(java.util.concurrent.TimeoutException.class, () -> drain.get(300, java.util.concurrent.TimeUnit.MILLISECONDS),
        "the drain returned while a backend was still closing");
    stuck.countDown();
    assertEquals(new DrainResult(0, 0, List.of()), await(drain));
    assertTrue(b.isClosed());
  }

  @Test
  void aCloseThatThrowsIsReported() throws Exception {
    Backend b = acquire(ECHO, "a").backend();
    b.closeFailure = new IllegalStateException("the process group would not die");
    assertEquals(new DrainResult(1, 0, List.of(PoolKey.of(ECHO).connectionId() + ": the process group would not die")),
        pool.drainAll(true, LONG));
  }

  @Test
  void aDrainDuringTheFirstStartClosesTheBackendWhenItArrives() throws Exception {
    GatedStart s = gatedStartWithAWaiter();
    assertEquals(new DrainResult(0, 1, List.of()), pool.drainAll(true, Duration.ZERO));
    assertEquals(PoolException.Kind.CLOSED, failure(s.b()).kind()); // a waiter is not kept waiting on the start
    s.start().open();
    assertEquals(PoolException.Kind.CLOSED, failure(s.a()).kind());
    assertTrue(factory.backend(0).isClosed());
    assertEmpty();
  }

  /**
   * An entry whose first start was in flight when a forced drain ended it, and then failed, has
   * nothing left to close: the drain counts it drained as soon as the start returns. Mutant:
   * {@code finish} without its {@code settleClosed} for an ended entry, so the drain waited out its
   * whole timeout and counted the entry forced.
   */
  @Test
  void aDrainDuringAFirstStartThatFailsCountsTheEntryDrainedWhenTheStartReturns() throws Exception {
    assertEquals(PoolException.Kind.CLOSED, drainDuringAFailingFirstStart(true));
  }

  /**
   * The same without forcing: the drain waits for the entry, whose failed start ends it. Mutant:
   * {@code end} without its {@code settleClosed}; an entry that failed has no backend and no start
   * left to close, so nothing else settled it, and the drain waited out its timeout.
   */
  @Test
  void aGracefulDrainDuringAFirstStartThatFailsCountsTheEntryDrainedWhenTheStartReturns() throws Exception {
    assertEquals(PoolException.Kind.SPAWN_FAILED, drainDuringAFailingFirstStart(false));
  }

  /** Drains during a first start that then fails; checks the drain's count; returns how the acquire failed. */
  private PoolException.Kind drainDuringAFailingFirstStart(boolean force) throws Exception {
    Step start = factory.next(Step.gatedFailing("port 7000 is in use"));
    Future<Lease<Backend>> a = async(() -> acquire(ECHO, "a"));
    start.awaitEntered();
    CountDownLatch draining = new CountDownLatch(1);
    pool.onWaiting(who -> {
      if (who.equals(TransportPool.DRAIN)) {
        draining.countDown();
      }
    });
    Future<DrainResult> drain = async(() -> pool.drainAll(force, LONG));
    await(draining);
    start.open();
    assertEquals(new DrainResult(1, 0, List.of()), await(drain));
    assertEmpty();
    return failure(a).kind();
  }

  @Test
  void closeIsAForcedDrain() throws Exception {
    Lease<Backend> l = acquire(ECHO, "a");
    pool.close();
    assertTrue(factory.backend(0).isClosed());
    assertEmpty();
    assertEquals(PoolException.Kind.CLOSED, kindOf(l::backend));
    assertEquals(PoolException.Kind.CLOSED, kindOf(() -> acquire(ECHO, "b")));
  }
}
