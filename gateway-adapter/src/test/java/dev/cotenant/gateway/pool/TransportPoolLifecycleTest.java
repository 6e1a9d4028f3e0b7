package dev.cotenant.gateway.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.gateway.pool.FakeFactory.Backend;
import dev.cotenant.gateway.pool.FakeFactory.Step;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** Sharing, reference counts, the drain grace, the idle cap, placement, locking and accounting. */
class TransportPoolLifecycleTest extends PoolTestSupport {

  // ---- rule 1: one start per key, sessions as the reference count

  @Test
  void concurrentAcquiresOfOneKeyStartOneBackend() throws Exception {
    Step start = factory.next(Step.gated());
    CountDownLatch waiting = waiters(7);
    List<Future<Lease<Backend>>> leases = new ArrayList<>();
    leases.add(async(() -> acquire(ECHO, "s0")));
    start.awaitEntered();
    for (int i = 1; i < 8; i++) {
      String session = "s" + i;
      leases.add(async(() -> acquire(ECHO, session)));
    }
    await(waiting);
    assertEquals(EntryState.SPAWNING, only().state());
    assertEquals(8, only().sessions());
    start.open();
    Backend first = await(leases.get(0)).backend();
    for (Future<Lease<Backend>> l : leases) {
      assertSame(first, await(l).backend());
    }
    assertEquals(1, factory.starts.get());
    assertEquals(EntryState.ACTIVE, only().state());
    assertEquals(8, only().sessions());
  }

  @Test
  void releaseSessionDetachesEveryEntryOfTheSessionAndNoOther() throws Exception {
    Lease<Backend> aEcho = acquire(ECHO, "a");
    Lease<Backend> aFiles = acquire(FILES, "a");
    Lease<Backend> bEcho = acquire(ECHO, "b");
    pool.releaseSession("a");
    List<EntrySnapshot> a = pool.accounting();
    assertEquals(List.of("echo", "files"), a.stream().map(EntrySnapshot::serverName).toList());
    assertEquals(1, a.get(0).sessions());
    assertEquals(EntryState.ACTIVE, a.get(0).state());
    assertEquals(0, a.get(1).sessions());
    assertEquals(EntryState.DRAINING, a.get(1).state());
    assertEquals(PoolException.Kind.CLOSED, kindOf(aEcho::backend));
    assertEquals(PoolException.Kind.CLOSED, kindOf(aFiles::backend));
    bEcho.backend();
    pool.releaseSession("a");
    pool.releaseSession("never-seen");
    assertEquals(1, pool.accounting().get(0).sessions());
  }

  @Test
  void theReferenceCountIsTheSetOfSessionsNotTheLeases() throws Exception {
    Lease<Backend> first = acquire(ECHO, "a");
    Lease<Backend> second = acquire(ECHO, "a");
    assertEquals(1, only().sessions());
    second.release();
    assertEquals(0, only().sessions());
    assertEquals(EntryState.DRAINING, only().state());
    assertEquals(PoolException.Kind.CLOSED, kindOf(first::backend));
  }

  @Test
  void aReleasedLeaseStaysReleasedWhenItsSessionAcquiresAgain() throws Exception {
    Lease<Backend> old = acquire(ECHO, "a");
    old.release();
    old.release();
    Lease<Backend> fresh = acquire(ECHO, "a");
    old.release();
    assertEquals(1, only().sessions());
    assertEquals(PoolException.Kind.CLOSED, kindOf(old::backend));
    fresh.backend();
  }

  // ---- rule 2: states and the drain grace

  @Test
  void theLastReleaseStartsTheGraceAndTheEntryClosesWhenItEnds() throws Exception {
    Lease<Backend> a = acquire(ECHO, "a");
    Lease<Backend> b = acquire(ECHO, "b");
    Backend backend = a.backend();
    a.release();
    assertEquals(EntryState.ACTIVE, only().state());
    b.release();
    assertEquals(EntryState.DRAINING, only().state());
    timers.advance(GRACE.minusMillis(1));
    assertEquals(EntryState.DRAINING, only().state());
    assertFalse(backend.isClosed());
    timers.advance(Duration.ofMillis(1));
    assertEmpty();
    assertEquals(1, backend.closes.get());
    assertEquals(PoolException.Kind.CLOSED, kindOf(b::backend));
  }

  @Test
  void aDedicatedEntryClosesAsSoonAsItsSessionLeaves() throws Exception {
    Lease<Backend> l = pool.acquire(ECHO, "a", Placement.DEDICATED, false);
    Backend backend = l.backend();
    l.release();
    timers.advance(Duration.ZERO);
    assertEmpty();
    assertEquals(1, backend.closes.get(), "closed without waiting for the grace");
  }

  @Test
  void anAttachDuringTheGraceCancelsItAndTheEntryIsActiveAgain() throws Exception {
    Backend backend = acquire(ECHO, "a").backend();
    pool.releaseSession("a");
    timers.advance(Duration.ofSeconds(10));
    Lease<Backend> b = acquire(ECHO, "b");
    assertSame(backend, b.backend());
    assertEquals(EntryState.ACTIVE, only().state());
    assertEquals(0, timers.pending());
    timers.advance(Duration.ofMinutes(10));
    assertEquals(EntryState.ACTIVE, only().state());
    assertFalse(backend.isClosed());
    assertEquals(1, factory.starts.get());
  }

  @Test
  void anEntryClosedByTheGraceIsStartedAfreshByTheNextAcquire() throws Exception {
    Backend first = acquire(ECHO, "a").backend();
    pool.releaseSession("a");
    timers.advance(GRACE);
    Backend second = acquire(ECHO, "a").backend();
    assertNotEquals(first, second);
    assertTrue(first.isClosed());
    assertEquals(2, factory.starts.get());
    assertEquals(1, only().generation());
  }

  // ---- rule 3: the hard idle cap from the first idle moment

  /** Goes idle at 0 s, then flaps {@code times} times: idle 20 s, attached 5 s; idle at 25·times s. */
  private void flap(int times) throws Exception {
    for (int i = 0; i < times; i++) {
      timers.advance(Duration.ofSeconds(20));
      Lease<Backend> l = acquire(ECHO, "flapper");
      timers.advance(Duration.ofSeconds(5));
      l.release();
      assertEquals(EntryState.DRAINING, only().state());
    }
  }

  /** A first idle moment at 0 s, eleven flaps, and then {@code sessionId} attached at 280 s. */
  private Lease<Backend> attachedAt280SecondsAfterFlapping(String sessionId) throws Exception {
    acquire(ECHO, "first");
    pool.releaseSession("first");
    flap(11);
    timers.advance(Duration.ofSeconds(5));
    return acquire(ECHO, sessionId);
  }

  @Test
  void flappingCannotResetTheIdleCap() throws Exception {
    Backend backend = acquire(ECHO, "first").backend();
    pool.releaseSession("first"); // the first idle moment: 0 s
    flap(11); // idle again at 275 s; the grace alone would end at 305 s
    timers.advance(Duration.ofSeconds(25).minusMillis(1));
    assertEquals(EntryState.DRAINING, only().state());
    timers.advance(Duration.ofMillis(1)); // 300 s: first idle + cap
    assertEmpty();
    assertTrue(backend.isClosed());
    assertEquals(300_000, timers.now());
    assertEquals(1, factory.starts.get());
  }

  @Test
  void flappingPastTheCapClosesTheEntryAtTheNextRelease() throws Exception {
    Lease<Backend> l = attachedAt280SecondsAfterFlapping("late");
    timers.advance(GRACE.minusMillis(1)); // past the cap, attached for less than a grace
    l.release();
    timers.runDue();
    assertEmpty();
  }

  @Test
  void beingAttachedForAWholeGraceMovesTheFirstIdleMoment() throws Exception {
    Lease<Backend> l = attachedAt280SecondsAfterFlapping("steady");
    timers.advance(GRACE.plusSeconds(10)); // 320 s: past the old cap, attached for more than a grace
    l.release(); // the first idle moment is now 320 s
    timers.runDue();
    assertEquals(EntryState.DRAINING, only().state());
    assertDrainsForExactlyAGrace();
  }

  // ---- rule 4: release during the start

  @Test
  void aSessionReleasedDuringTheStartIsNotAttachedAndTheBackendGoesStraightToDraining() throws Exception {
    GatedAcquire a = acquireGated(ECHO, "a");
    assertEquals(1, only().sessions());
    pool.releaseSession("a");
    assertEquals(0, only().sessions());
    assertEquals(EntryState.SPAWNING, only().state());
    a.start().open();
    PoolException x = failure(a.lease());
    assertEquals(PoolException.Kind.CLOSED, x.kind());
    assertTrue(x.getMessage().contains("released while"), x.getMessage());
    assertEquals(EntryState.DRAINING, only().state());
    assertEquals(0, only().sessions());
    timers.advance(GRACE);
    assertEmpty();
    assertTrue(factory.backend(0).isClosed());
  }

  @Test
  void aSessionReleasedDuringTheStartLeavesTheOthersAttached() throws Exception {
    GatedStart s = gatedStartWithAWaiter();
    pool.releaseSession("a");
    s.start().open();
    assertEquals(PoolException.Kind.CLOSED, failure(s.a()).kind());
    await(s.b()).backend();
    assertEquals(EntryState.ACTIVE, only().state());
    assertEquals(1, only().sessions());
  }

  @Test
  void anInterruptedWaiterIsDetached() throws Exception {
    Step start = factory.next(Step.gated());
    CountDownLatch waiting = waiters(1);
    Future<Lease<Backend>> a = async(() -> acquire(ECHO, "a"));
    start.awaitEntered();
    AtomicReference<Throwable> thrown = new AtomicReference<>();
    Thread b = new Thread(() -> {
      try {
        acquire(ECHO, "b");
      } catch (Throwable t) {
        thrown.set(t);
      }
    });
    b.start();
    await(waiting);
    b.interrupt();
    b.join(TimeUnit.SECONDS.toMillis(HANG_GUARD));
    assertTrue(thrown.get() instanceof InterruptedException, String.valueOf(thrown.get()));
    assertEquals(1, only().sessions());
    start.open();
    await(a);
    assertEquals(1, only().sessions());
  }

  // ---- rule 10: placement

  @Test
  void dedicatedPlacementNeverShares() throws Exception {
    Lease<Backend> a = pool.acquire(ECHO, "a", Placement.DEDICATED, false);
    Lease<Backend> b = pool.acquire(ECHO, "b", Placement.DEDICATED, false);
    Lease<Backend> shared = pool.acquire(ECHO, "c", Placement.SHARED, false);
    assertEquals(3, factory.starts.get());
    assertNotEquals(a.backend(), b.backend());
    assertEquals(PoolKey.dedicated(ECHO, "a"), a.key());
    assertEquals(PoolKey.dedicated(ECHO, "b"), b.key());
    assertEquals(PoolKey.of(ECHO), shared.key());
    assertSame(a.backend(), pool.acquire(ECHO, "a", Placement.DEDICATED, false).backend());
    assertEquals(List.of(Placement.DEDICATED, Placement.DEDICATED, Placement.SHARED),
        List.of(place(a), place(b), place(shared)));
  }

  private Placement place(Lease<Backend> l) {
    return pool.accounting().stream().filter(s -> s.connectionId().equals(l.key().connectionId())).findFirst().orElseThrow().placement();
  }

  @Test
  void forcedIsCarriedIntoTheAccounting() throws Exception {
    pool.acquire(ECHO, "a", Placement.SHARED, false);
    assertFalse(only().forced());
    pool.acquire(ECHO, "b", Placement.SHARED, true);
    assertTrue(only().forced());
    pool.acquire(ECHO, "c", Placement.SHARED, false);
    assertTrue(only().forced());
  }

  @Test
  void aDisabledServerIsNeverStarted() {
    assertThrows(IllegalArgumentException.class, () -> acquire(ECHO.withEnabled(false), "a"));
    assertEquals(0, factory.starts.get());
    assertEmpty();
  }

  // ---- rule 11: one lock, never held across a start or a close

  @Test
  void aBlockingStartOfOneKeyDoesNotBlockAnotherKey() throws Exception {
    GatedAcquire echo = acquireGated(ECHO, "a");
    // Runs on another thread so that a pool holding its lock across the start hangs this test
    // (the hang guard turns that into a failure) instead of the whole build.
    Future<List<EntrySnapshot>> files = async(() -> {
      Lease<Backend> l = acquire(FILES, "b");
      l.backend();
      l.release();
      pool.releaseSession("b");
      return pool.accounting();
    });
    List<EntrySnapshot> seen = await(files);
    assertEquals(List.of(EntryState.SPAWNING, EntryState.DRAINING), seen.stream().map(EntrySnapshot::state).toList());
    echo.start().open();
    await(echo.lease()).backend();
  }

  @Test
  void aBackendThatLeavesThePoolIsClosedWithoutTheLock() throws Exception {
    acquire(ECHO, "a");
    pool.releaseSession("a");
    timers.advance(GRACE);
    assertTrue(factory.backend(0).isClosed());
    assertEquals(List.of(), factory.violations);
  }

  // ---- rule 12: accounting

  @Test
  void theAccountingReportsEveryField() throws Exception {
    timers.advance(Duration.ofSeconds(42));
    Lease<Backend> a = pool.acquire(ECHO, "a", Placement.SHARED, true, "forced by the test");
    acquire(ECHO, "b");
    a.backend().calls = 7;
    a.backend().hazards = 2;
    timers.advance(Duration.ofSeconds(1));
    assertEquals(new EntrySnapshot(PoolKey.of(ECHO).connectionId(), "echo", EntryState.ACTIVE, 1, 2,
        OptionalLong.of(1001), 7, 2, OptionalLong.of(42_000), Placement.SHARED, true, "forced by the test"), only());
  }

  @Test
  void anEntryBeingStartedHasNoBackendToReport() throws Exception {
    Step start = factory.next(Step.gated());
    Future<Lease<Backend>> a = async(() -> pool.acquire(FILES, "a", Placement.DEDICATED, false));
    start.awaitEntered();
    assertEquals(new EntrySnapshot(PoolKey.dedicated(FILES, "a").connectionId(), "files", EntryState.SPAWNING, 1, 1,
        OptionalLong.empty(), 0, 0, OptionalLong.empty(), Placement.DEDICATED, false), only());
    start.open();
    await(a);
  }

  @Test
  void theAccountingIsOrderedByConnectionId() throws Exception {
    acquire(OTHER, "a");
    acquire(ECHO, "a");
    acquire(FILES, "a");
    assertEquals(List.of("echo", "files", "other"), pool.accounting().stream().map(EntrySnapshot::serverName).toList());
  }

  @Test
  void aLeaseOfAnotherPoolIsRefused() throws Exception {
    Lease<Backend> l = acquire(ECHO, "a");
    TransportPool<Backend> other = new TransportPool<>(factory, SETTINGS, timers, Runnable::run, timers::now);
    assertThrows(IllegalArgumentException.class, () -> other.release(l));
    other.close();
  }
}
