package dev.cotenant.gateway.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.gateway.pool.FakeFactory.Backend;
import dev.cotenant.gateway.pool.FakeFactory.Step;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/** Generations, restarts on exit, restart by name, and restarts racing the drain. */
class TransportPoolRestartTest extends PoolTestSupport {

  // ---- rule 5: generations

  @Test
  void aRestartBumpsTheGenerationAndTheLeaseFollowsTheCurrentBackend() throws Exception {
    Lease<Backend> l = acquire(ECHO, "a");
    Backend first = l.backend();
    assertEquals(1, first.generation);
    assertTrue(l.current(1));
    first.exit("crashed");
    Backend second = l.backend();
    assertNotSame(first, second);
    assertEquals(2, second.generation);
    assertTrue(first.isClosed());
    assertFalse(l.current(1));
    assertTrue(l.current(2));
    assertEquals(1, l.generation());
    assertEquals(2, only().generation());
    assertEquals(EntryState.ACTIVE, only().state());
    assertEquals(2, factory.starts.get());
  }

  @Test
  void aStaleGenerationsLateExitIsIgnored() throws Exception {
    Lease<Backend> l = acquire(ECHO, "a");
    Backend first = l.backend();
    first.exit("crashed");
    Backend second = l.backend();
    first.exit("crashed, reported again late");
    assertEquals(2, factory.starts.get());
    assertSame(second, l.backend());
    assertFalse(second.isClosed());
    assertEquals(EntryState.ACTIVE, only().state());
    second.exit("crashed again"); // the current generation's exit still counts
    assertEquals(3, l.backend().generation);
  }

  @Test
  void anExitOfAnEntryThatClosedIsIgnored() throws Exception {
    Backend b = acquire(ECHO, "a").backend();
    pool.releaseSession("a");
    timers.advance(GRACE);
    acquire(ECHO, "b");
    b.exit("exited while being closed");
    assertEquals(2, factory.starts.get());
    assertEquals(EntryState.ACTIVE, only().state());
  }

  // ---- rule 6: restart on exit

  /** Session a's lease of {@link #ECHO} whose backend crashed once, its next starts scripted by {@code restarts}. */
  private Lease<Backend> crashedWithRestarts(Step... restarts) throws Exception {
    Lease<Backend> l = acquire(ECHO, "a");
    for (Step restart : restarts) {
      factory.next(restart);
    }
    l.backend().exit("crashed");
    return l;
  }

  @Test
  void anExitWithNoSessionAttachedClosesTheEntry() throws Exception {
    Lease<Backend> l = acquire(ECHO, "a");
    Backend b = l.backend();
    l.release();
    b.exit("crashed while draining");
    assertEmpty();
    assertTrue(b.isClosed());
    assertEquals(1, factory.starts.get());
    assertEquals(0, timers.pending());
  }

  @Test
  void aRestartGivesUpAfterTheConsecutiveFailedAttemptsAllowed() throws Exception {
    Lease<Backend> l = crashedWithRestarts(Step.failing("no binary 1"), Step.failing("no binary 2"), Step.failing("no binary 3"));
    PoolException x = org.junit.jupiter.api.Assertions.assertThrows(PoolException.class, l::backend);
    assertEquals(PoolException.Kind.FAILED, x.kind());
    assertTrue(x.getMessage().contains("3 consecutive restart attempts failed") && x.getMessage().contains("no binary 3"), x.getMessage());
    assertEquals(4, factory.starts.get());
    assertFalse(l.current(4));
    assertEmpty();
    assertTrue(factory.backend(0).isClosed());
    // A later acquire starts a fresh entry.
    Lease<Backend> fresh = acquire(ECHO, "b");
    assertEquals(1, fresh.backend().generation);
    assertEquals(EntryState.ACTIVE, only().state());
  }

  @Test
  void failedAttemptsFollowedByASuccessRestart() throws Exception {
    Lease<Backend> l = crashedWithRestarts(Step.failing("busy 1"), Step.failing("busy 2"));
    assertEquals(4, l.backend().generation);
    assertEquals(EntryState.ACTIVE, only().state());
    assertEquals(4, only().generation());
  }

  @Test
  void aBackendThatDiesRightAfterEveryRestartFails() throws Exception {
    assertABackendThatDiesRightAfterEveryRestartFails();
  }

  @Test
  void aBackendThatStayedUpAGraceStartsTheCountAfresh() throws Exception {
    Lease<Backend> l = acquire(ECHO, "a");
    for (int i = 0; i < 6; i++) {
      timers.advance(GRACE);
      l.backend().exit("crashed after a while");
    }
    assertEquals(7, l.backend().generation);
    assertEquals(EntryState.ACTIVE, only().state());
  }

  @Test
  void anExitDuringTheStartIsAFailedAttempt() throws Exception {
    Lease<Backend> l = crashedWithRestarts(Step.exitingWhileStarting("died in the handshake"));
    assertEquals(3, l.backend().generation);
    assertTrue(factory.backend(1).isClosed());
  }

  @Test
  void aSecondExitAndARestartByNameJoinTheRestartInFlight() throws Exception {
    pool(SETTINGS, threads);
    CountDownLatch joined = waiters(1);
    Lease<Backend> l = acquire(ECHO, "a");
    Backend first = l.backend();
    Step restart = factory.next(Step.gated());
    first.exit("crashed");
    restart.awaitEntered();
    assertEquals(EntryState.SPAWNING, only().state());
    assertEquals(PoolException.Kind.RESTARTING, kindOf(l::backend));
    assertEquals(PoolException.Kind.RESTARTING, kindOf(() -> l.awaitBackend(Duration.ZERO)));
    first.exit("crashed, reported twice");
    Future<List<RestartResult>> byName = async(() -> pool.restartByName("echo"));
    await(joined);
    Future<Backend> awaited = async(() -> l.awaitBackend(Duration.ofSeconds(HANG_GUARD)));
    restart.open();
    assertEquals(List.of(new RestartResult(PoolKey.of(ECHO).connectionId(), true, Optional.of("joined the start already in flight"))),
        await(byName));
    assertEquals(2, await(awaited).generation);
    assertEquals(2, factory.starts.get());
    assertEquals(EntryState.ACTIVE, only().state());
  }

  /**
   * A lease asked for its backend while a restart is in flight waits for the restart (the
   * multiplexing connection holds a client's message until then). Mutant: {@code awaitBackendOf}'s
   * deadline computed with a subtraction, so the wait ended at once with {@code RESTARTING} and the
   * message was answered "no backend". The waiting thread is watched until it parks in its timed
   * wait: with the mutant it ends without parking.
   */
  @Test
  void aLeaseWaitsForTheRestartInFlightUntilItsBackendIsUp() throws Exception {
    pool(SETTINGS, threads);
    Lease<Backend> l = acquire(ECHO, "a");
    Step restart = crashWithTheRestartGated(l);
    Future<Backend> awaited = async(() -> {
      waiter = Thread.currentThread();
      return l.awaitBackend(Duration.ofSeconds(HANG_GUARD));
    });
    while (waiter == null || waiter.getState() != Thread.State.TIMED_WAITING) {
      if (awaited.isDone()) {
        throw new AssertionError("the lease stopped waiting before the restart ended: " + failure(awaited).getMessage());
      }
      Thread.sleep(1);
    }
    restart.open();
    assertEquals(2, await(awaited).generation);
  }

  private volatile Thread waiter;

  /** Crashes {@code l}'s backend with the next start gated; returns that start once the restart is in it. */
  private Step crashWithTheRestartGated(Lease<Backend> l) throws Exception {
    Step restart = factory.next(Step.gated());
    l.backend().exit("crashed");
    restart.awaitEntered();
    return restart;
  }

  @Test
  void anAcquireDuringARestartWaitsForIt() throws Exception {
    pool(SETTINGS, threads);
    CountDownLatch waiting = waiters(1);
    Lease<Backend> a = acquire(ECHO, "a");
    Step restart = crashWithTheRestartGated(a);
    Future<Lease<Backend>> b = async(() -> acquire(ECHO, "b"));
    await(waiting);
    assertEquals(2, only().sessions());
    restart.open();
    assertEquals(2, await(b).backend().generation);
    assertEquals(2, await(b).generation());
  }

  // ---- rule 6: restart by name

  @Test
  void restartByNameRestartsEveryEntryOfTheName() throws Exception {
    Lease<Backend> shared = acquire(ECHO, "a");
    Lease<Backend> d1 = pool.acquire(ECHO, "b", Placement.DEDICATED, true);
    Lease<Backend> d2 = pool.acquire(ECHO, "c", Placement.DEDICATED, false);
    Lease<Backend> files = acquire(FILES, "a");
    List<Backend> old = List.of(shared.backend(), d1.backend(), d2.backend());
    List<RestartResult> results = pool.restartByName("echo");
    List<String> ids = java.util.stream.Stream.of(shared, d1, d2).map(l -> l.key().connectionId()).sorted().toList();
    assertEquals(ids, results.stream().map(RestartResult::connectionId).toList());
    assertTrue(results.stream().allMatch(r -> r.restarted() && r.reason().isEmpty()), results::toString);
    for (Lease<Backend> l : List.of(shared, d1, d2)) {
      assertEquals(2, l.backend().generation);
    }
    old.forEach(b -> assertTrue(b.isClosed()));
    assertEquals(1, files.backend().generation);
    assertFalse(files.backend().isClosed());
    assertEquals(7, factory.starts.get());
    assertEquals(List.of(), pool.restartByName("nothing-by-that-name"));
  }

  @Test
  void restartByNameReportsARestartThatFailed() throws Exception {
    Lease<Backend> l = acquire(ECHO, "a");
    factory.next(Step.failing("gone 1"));
    factory.next(Step.failing("gone 2"));
    factory.next(Step.failing("gone 3"));
    List<RestartResult> results = pool.restartByName("echo");
    assertEquals(1, results.size());
    assertFalse(results.get(0).restarted());
    assertTrue(results.get(0).reason().orElseThrow().contains("gone 3"), results::toString);
    assertEquals(PoolException.Kind.FAILED, kindOf(l::backend));
    assertEmpty();
  }

  @Test
  void anOperatorRestartGetsAllItsAttemptsAfresh() throws Exception {
    Lease<Backend> l = acquire(ECHO, "a");
    factory.next(Step.failing("busy 1"));
    factory.next(Step.failing("busy 2"));
    l.backend().exit("crashed"); // two failed attempts, then generation 4 is up
    factory.next(Step.failing("busy 3"));
    factory.next(Step.failing("busy 4"));
    assertTrue(pool.restartByName("echo").get(0).restarted());
    assertEquals(7, l.backend().generation);
  }

  // ---- rule 6: restart during drain

  @Test
  void aDrainingEntryRestartedByNameStaysDrainingAndKeepsItsDeadline() throws Exception {
    Lease<Backend> l = acquire(ECHO, "a");
    Backend first = l.backend();
    l.release(); // idle at 0 s: closes at 30 s
    timers.advance(Duration.ofSeconds(20));
    assertTrue(pool.restartByName("echo").get(0).restarted());
    assertEquals(EntryState.DRAINING, only().state());
    assertEquals(2, only().generation());
    assertTrue(first.isClosed());
    timers.advance(Duration.ofSeconds(10).minusMillis(1));
    assertEquals(EntryState.DRAINING, only().state());
    timers.advance(Duration.ofMillis(1));
    assertEmpty();
    assertTrue(factory.backend(1).isClosed());
  }

  @Test
  void theGraceEndingDuringARestartClosesTheEntryAndTheNewBackend() throws Exception {
    pool(SETTINGS, threads);
    Lease<Backend> l = acquire(ECHO, "a");
    Backend first = l.backend();
    l.release();
    Step restart = factory.next(Step.gated());
    Future<List<RestartResult>> byName = async(() -> pool.restartByName("echo"));
    restart.awaitEntered();
    assertEquals(EntryState.SPAWNING, only().state());
    timers.advance(GRACE);
    assertEmpty();
    restart.open();
    List<RestartResult> results = await(byName);
    assertFalse(results.get(0).restarted());
    assertTrue(results.get(0).reason().orElseThrow().contains("drain grace"), results::toString);
    await(restart.returned);
    await(first.closed);
    await(factory.backend(1).closed);
    assertEquals(2, factory.starts.get());
  }

  @Test
  void theLastReleaseDuringARestartLeavesTheNewBackendDraining() throws Exception {
    pool(SETTINGS, threads);
    Lease<Backend> l = acquire(ECHO, "a");
    Step restart = crashWithTheRestartGated(l);
    l.release(); // idle at 0 s, while the restart is in flight
    CountDownLatch joined = waiters(1);
    Future<List<RestartResult>> byName = async(() -> pool.restartByName("echo"));
    await(joined);
    restart.open();
    assertTrue(await(byName).get(0).restarted());
    Backend second = factory.backend(1);
    assertEquals(EntryState.DRAINING, only().state());
    assertEquals(0, only().sessions());
    timers.advance(GRACE);
    assertEmpty();
    await(second.closed);
  }

  @Test
  void aDrainDuringARestartClosesTheNewBackendWhenItArrives() throws Exception {
    pool(SETTINGS, threads);
    Lease<Backend> l = acquire(ECHO, "a");
    Step restart = crashWithTheRestartGated(l);
    CountDownLatch draining = new CountDownLatch(1);
    pool.onWaiting(who -> draining.countDown());
    Future<DrainResult> drain = async(() -> pool.drainAll(true, Duration.ofSeconds(HANG_GUARD)));
    await(draining);
    assertEquals(PoolException.Kind.CLOSED, kindOf(l::backend));
    restart.open();
    assertEquals(new DrainResult(1, 0, List.of()), await(drain));
    assertTrue(factory.backend(1).isClosed());
  }
}
