package dev.cotenant.gateway.evaluation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.api.ExecutionIdentity;
import dev.cotenant.api.HandshakeFacts;
import dev.cotenant.api.ServerDescription;
import dev.cotenant.spi.PreflightRecord;
import dev.cotenant.spi.PreflightResult;
import dev.cotenant.spi.PreflightTransport;
import java.io.IOException;
import java.nio.channels.ClosedByInterruptException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class EvaluatorTest {
  private static final HandshakeFacts FACTS = HandshakeFacts.fromJson("2025-06-18", Map.of(), Map.of(), List.of());

  /** A transport that counts calls per server and answers from a per-name behaviour. */
  static final class CountingTransport implements PreflightTransport {
    final Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();
    final List<String> order = new CopyOnWriteArrayList<>();
    final Map<String, Behaviour> behaviours = new ConcurrentHashMap<>();

    interface Behaviour {
      PreflightResult answer() throws InterruptedException;
    }

    @Override
    public PreflightResult preflight(ServerDescription server) throws InterruptedException {
      calls.computeIfAbsent(server.name(), k -> new AtomicInteger()).incrementAndGet();
      order.add(server.name());
      Behaviour b = behaviours.get(server.name());
      return b == null ? PreflightResult.ran(List.of(), FACTS) : b.answer();
    }

    int total() {
      return calls.values().stream().mapToInt(AtomicInteger::get).sum();
    }

    int calls(String name) {
      AtomicInteger n = calls.get(name);
      return n == null ? 0 : n.get();
    }
  }

  private final CountingTransport transport = new CountingTransport();
  private final InMemoryPreflightCache cache = new InMemoryPreflightCache();
  private final Map<String, String> binaryVersions = new ConcurrentHashMap<>();

  private ExecutionIdentity identify(ServerDescription s) {
    return new ExecutionIdentity(
        s.name(),
        ExecutionIdentity.commandArgsHash(s),
        "env",
        binaryVersions.getOrDefault(s.name(), "v1"),
        ExecutionIdentity.PREFLIGHT_SCHEMA);
  }

  /**
   * The monotonic clock of {@link #clocked}, moved only by the tests. It starts far from 0, as
   * {@code System.nanoTime} may: from 0, "now minus the last flush" and "now plus the last flush"
   * agree (mutant: {@code nanosUntilFlush} with the subtraction made an addition).
   */
  private final AtomicLong nanos = new AtomicLong(7_000_000_000_000L);

  private Evaluator evaluator() {
    return new Evaluator(transport, cache, this::identify, () -> 1_700_000_000.0, 4);
  }

  /** An evaluator whose batched flushes are timed by {@link #nanos}. */
  private Evaluator clocked(int parallelism) {
    return new Evaluator(transport, cache, this::identify, () -> 1_700_000_000.0, parallelism, nanos::get);
  }

  private void advanceOneInterval() {
    nanos.addAndGet(Evaluator.FLUSH_INTERVAL.toNanos());
  }

  private static List<ServerDescription> servers(String... names) {
    List<ServerDescription> out = new ArrayList<>();
    for (String n : names) {
      out.add(ServerDescription.stdio(n, "/bin/" + n));
    }
    return out;
  }

  @Test
  void aBudgetedPassProvokesAtMostTwoServers() throws Exception {
    Optional<PassResult> r = evaluator().budgetedPass(servers("a", "b", "c", "d", "e"));

    assertTrue(r.isPresent());
    assertEquals(2, transport.total());
    assertEquals(Set.of("a", "b"), cache.flushed().keySet());
    assertEquals(1, cache.flushes.get(), "one flush per pass");
  }

  @Test
  void aBudgetedPassLeavesThePassLockFreeForAPassOnAnotherThread() throws Exception {
    // Kills budgetedPass without its passLock.unlock() (VoidMethodCallMutator): the lock is
    // reentrant, so only a pass on another thread (the next request's) finds it still held, and
    // every later request would serve stored rows for good.
    Evaluator e = evaluator();
    e.budgetedPass(servers("a")).orElseThrow();
    java.util.concurrent.ExecutorService other = java.util.concurrent.Executors.newSingleThreadExecutor();
    try {
      Optional<PassResult> next = other.submit(() -> e.budgetedPass(servers("b"))).get(60, java.util.concurrent.TimeUnit.SECONDS);
      assertTrue(next.isPresent(), "the pass lock was left held");
      assertEquals(Set.of("a", "b"), cache.flushed().keySet());
    } finally {
      other.shutdownNow();
    }
  }

  @Test
  void theRemainderIsMeasuredByLaterPassesAndTheSteadyStateSpawnsNothing() throws Exception {
    Evaluator e = evaluator();
    List<ServerDescription> all = servers("a", "b", "c", "d", "e");
    e.budgetedPass(all);
    e.budgetedPass(all);
    e.budgetedPass(all);
    assertEquals(5, transport.total());
    assertEquals(5, cache.flushed().size());

    Optional<PassResult> steady = e.budgetedPass(all);
    assertEquals(5, transport.total(), "every server measured: nothing is provoked again");
    assertEquals(0, steady.orElseThrow().attempted().size());
  }

  @Test
  void anIdentityChangeForcesARemeasurementOfThatServerOnly() throws Exception {
    Evaluator e = evaluator();
    List<ServerDescription> all = servers("a", "b");
    e.uncappedPass(all);
    binaryVersions.put("b", "v2");

    e.uncappedPass(all);

    assertEquals(1, transport.calls("a"));
    assertEquals(2, transport.calls("b"));
  }

  @Test
  void disabledAndNonStdioServersAreNeverSpawned() throws Exception {
    List<ServerDescription> all = new ArrayList<>(servers("a"));
    all.add(ServerDescription.stdio("off", "/bin/off").withEnabled(false));
    all.add(ServerDescription.http("remote", "http://127.0.0.1:9/mcp"));

    PassResult r = evaluator().uncappedPass(all);

    assertEquals(0, transport.calls("off"));
    assertEquals(0, transport.calls("remote"));
    assertEquals(Set.of("a"), r.attempted().keySet());
  }

  @Test
  void progressCountsAttemptsInDoneAndVerdictsInMeasured() throws Exception {
    transport.behaviours.put("needs-token", () -> PreflightResult.notRun("exited before answering"));
    Evaluator e = evaluator();

    PassResult r = e.uncappedPass(servers("a", "needs-token", "c"));

    assertEquals(new Progress(false, 3, 2, 3), r.progress());
    assertEquals(new Progress(false, 3, 2, 3), e.progress());
    PreflightRecord notRun = cache.flushed().get("needs-token");
    assertFalse(notRun.ran(), "a pre-flight that could not run leaves a row saying so");
    assertEquals(List.of("exited before answering"), notRun.reasons());
    assertEquals(identify(servers("needs-token").get(0)).cacheKey(), notRun.identity());
    assertEquals(Optional.of("measured 2 of 3 servers"), e.progress().closingLine());
  }

  @Test
  void aServerThatCouldNotBeAskedIsAttemptedAgain_andItsRowGivesWayToAMeasurement() throws Exception {
    transport.behaviours.put("a", () -> PreflightResult.notRun("command not found: /bin/a"));
    Evaluator e = evaluator();

    e.uncappedPass(servers("a"));
    assertEquals(List.of("command not found: /bin/a"), cache.flushed().get("a").reasons());
    assertEquals(List.of(servers("a").get(0)), e.due(servers("a"), cache.load()), "a row that did not run is due");

    transport.behaviours.remove("a");
    PassResult second = e.uncappedPass(servers("a"));
    assertEquals(2, transport.calls("a"));
    assertEquals(new Progress(false, 1, 1, 1), second.progress());
    assertTrue(cache.flushed().get("a").ran());
    assertEquals(List.of(), e.due(servers("a"), cache.load()), "a measurement under the same identity is not due");
  }

  @Test
  void aPreflightThatCouldNotRunNeverReplacesAMeasurementWhileTheBinaryIsBrieflyUnreadable() throws Exception {
    Evaluator e = evaluator();
    e.uncappedPass(servers("a"));
    PreflightRecord measured = cache.flushed().get("a");
    assertTrue(measured.ran());

    binaryVersions.put("a", ExecutionIdentity.UNKNOWN_BINARY);
    transport.behaviours.put("a", () -> PreflightResult.notRun("command not found: /bin/a"));
    e.uncappedPass(servers("a"));

    assertEquals(2, transport.calls("a"), "attempted under the new identity");
    assertEquals(measured, cache.load().rows().get("a"), "the good measurement is kept for when the binary is back");
    // Nothing was stored, so nothing is written (mutant: store returning true, which made a flush of nothing).
    assertEquals(1, cache.flushes.get(), "the first pass's flush only");
  }

  @Test
  void aPreflightThatCouldNotRunReplacesAMeasurementOfAnotherLaunch() throws Exception {
    Evaluator e = evaluator();
    e.uncappedPass(servers("a"));
    assertTrue(cache.flushed().get("a").ran());

    ServerDescription retyped = ServerDescription.stdio("a", "/bin/a-typo");
    binaryVersions.put("a", ExecutionIdentity.UNKNOWN_BINARY);
    transport.behaviours.put("a", () -> PreflightResult.notRun("command not found: /bin/a-typo"));
    e.uncappedPass(List.of(retyped));

    PreflightRecord row = cache.flushed().get("a");
    assertFalse(row.ran(), "a changed command is another launch: its row says why it could not run");
    assertEquals(List.of("command not found: /bin/a-typo"), row.reasons());
    assertEquals(identify(retyped).cacheKey(), row.identity());
  }

  @Test
  void progressAdvancesWhileAPassRuns() throws Exception {
    CountDownLatch firstDone = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    transport.behaviours.put("b", () -> {
      firstDone.await();
      release.await();
      return PreflightResult.notRun("timed out");
    });
    transport.behaviours.put("a", () -> {
      firstDone.countDown();
      return PreflightResult.ran(List.of(), FACTS);
    });
    Evaluator e = evaluator();
    MeasureJob job = e.startUncapped(servers("a", "b"));

    assertTrue(firstDone.await(30, TimeUnit.SECONDS));
    Progress mid = awaitProgress(e, p -> p.done() == 1);
    assertEquals(new Progress(true, 1, 1, 2), mid);
    release.countDown();
    PassResult r = job.await(30, TimeUnit.SECONDS).orElseThrow();
    assertEquals(new Progress(false, 2, 1, 2), r.progress());
  }

  @Test
  void aClosingLineIsWithheldWhenNothingWasMeasured() throws Exception {
    transport.behaviours.put("a", () -> PreflightResult.notRun("missing binary"));
    Evaluator e = evaluator();

    e.uncappedPass(servers("a"));

    assertEquals(new Progress(false, 1, 0, 1), e.progress());
    assertEquals(Optional.empty(), e.progress().closingLine());
  }

  @Test
  void aBudgetedPassYieldsToARunningUncappedPass() throws Exception {
    Held held = hold("slow");
    Evaluator e = evaluator();
    MeasureJob job = e.startUncapped(servers("slow"));
    assertTrue(held.entered().await(30, TimeUnit.SECONDS));

    Optional<PassResult> budgeted = e.budgetedPass(servers("other"));

    assertTrue(budgeted.isEmpty(), "the budgeted pass serves stored rows instead of queueing");
    assertEquals(0, transport.calls("other"));
    held.release().countDown();
    job.await(30, TimeUnit.SECONDS).orElseThrow();
    assertEquals(Set.of("slow"), cache.flushed().keySet());
  }

  @Test
  void overlappingPassesNeverDropEachOthersRows() throws Exception {
    Held held = hold("a");
    AtomicInteger measuredWhileTheFirstWasHeld = new AtomicInteger();
    for (String name : List.of("b", "c")) {
      transport.behaviours.put(name, () -> {
        if (held.release().getCount() > 0) {
          measuredWhileTheFirstWasHeld.incrementAndGet();
        }
        return PreflightResult.ran(List.of(), FACTS);
      });
    }
    Evaluator e = evaluator();
    MeasureJob first = e.startUncapped(servers("a"));
    assertTrue(held.entered().await(30, TimeUnit.SECONDS));
    MeasureJob second = e.startUncapped(servers("b", "c"));
    assertTrue(e.passRunning());
    awaitAPassParkedOnThePassLock();
    assertEquals(0, transport.calls("b") + transport.calls("c"), "the second pass waits for the first");

    held.release().countDown();
    first.await(30, TimeUnit.SECONDS).orElseThrow();
    second.await(30, TimeUnit.SECONDS).orElseThrow();

    assertEquals(0, measuredWhileTheFirstWasHeld.get(), "a server of the second pass ran during the first");
    assertEquals(1, transport.calls("b"));
    assertEquals(Set.of("a", "b", "c"), cache.flushed().keySet());
  }

  @Test
  void oneFailingServerNeverLosesTheOthers() throws Exception {
    transport.behaviours.put("broken", () -> {
      throw new IllegalStateException("walk of hostile JSON failed");
    });
    transport.behaviours.put("deep", () -> {
      throw new StackOverflowError();
    });

    PassResult r = evaluator().uncappedPass(servers("a", "broken", "deep", "d"));

    assertEquals(Set.of("a", "broken", "deep", "d"), cache.flushed().keySet());
    assertTrue(cache.flushed().get("a").ran());
    assertTrue(cache.flushed().get("d").ran());
    assertFalse(cache.flushed().get("broken").ran(), "its row says why it has no measurement");
    assertTrue(cache.flushed().get("broken").reasons().get(0).contains("walk of hostile JSON failed"));
    assertFalse(r.attempted().get("broken").ran());
    assertTrue(r.attempted().get("broken").notRunReason().contains("walk of hostile JSON failed"));
    assertFalse(r.attempted().get("deep").ran());
    assertEquals(new Progress(false, 4, 2, 4), r.progress());
  }

  @Test
  void cancellationPropagatesAndKeepsWhatWasAlreadyMeasured() throws Exception {
    CountDownLatch interrupted = new CountDownLatch(1);
    CountDownLatch inside = stuckUntilInterrupted("stuck", interrupted);
    Evaluator e = new Evaluator(transport, cache, this::identify, () -> 1.0, 1);
    MeasureJob job = e.startUncapped(servers("a", "stuck", "c"));
    assertTrue(inside.await(30, TimeUnit.SECONDS));

    job.cancel();

    MeasureJob.JobFailedException failed =
        assertThrows(MeasureJob.JobFailedException.class, () -> job.await(30, TimeUnit.SECONDS));
    assertTrue(failed.cancelled());
    assertEquals("measure job cancelled", failed.getMessage());
    assertTrue(interrupted.await(30, TimeUnit.SECONDS), "the running pre-flight is interrupted");
    assertEquals(Set.of("a"), cache.flushed().keySet(), "the measurement already paid for is flushed");
    assertEquals(0, transport.calls("c"), "nothing after the cancellation is provoked");
    assertFalse(e.passRunning());
  }

  /**
   * A cancelled job ends only after its pre-flights' teardown: a host that cancels and then
   * exits leaves no server behind. The pre-flight here, interrupted, tears down for a while
   * (it waits for a latch the test opens only after seeing the job still running).
   */
  @Test
  void aCancelledJobEndsOnlyAfterItsPreflightsHaveTornDown() throws Exception {
    CountDownLatch inside = new CountDownLatch(1);
    CountDownLatch tearingDown = new CountDownLatch(1);
    CountDownLatch mayFinish = new CountDownLatch(1);
    AtomicInteger tornDown = new AtomicInteger();
    transport.behaviours.put("stuck", () -> {
      inside.countDown();
      try {
        new CountDownLatch(1).await();
      } catch (InterruptedException ie) {
        tearingDown.countDown();
        // The teardown itself: uninterruptible, as killing a process tree and waiting for it is.
        boolean done = false;
        while (!done) {
          try {
            done = mayFinish.await(30, TimeUnit.SECONDS);
          } catch (InterruptedException again) {
            // keep tearing down
          }
        }
        tornDown.incrementAndGet();
        throw ie;
      }
      return PreflightResult.notRun("unreachable");
    });
    Evaluator e = new Evaluator(transport, cache, this::identify, () -> 1.0, 1);
    MeasureJob job = e.startUncapped(servers("stuck"));
    assertTrue(inside.await(30, TimeUnit.SECONDS));
    job.cancel();
    assertTrue(tearingDown.await(30, TimeUnit.SECONDS));
    assertEquals(Optional.empty(), job.await(200, TimeUnit.MILLISECONDS), "the job waits for the teardown");
    assertFalse(job.isDone());
    mayFinish.countDown();
    MeasureJob.JobFailedException failed =
        assertThrows(MeasureJob.JobFailedException.class, () -> job.await(30, TimeUnit.SECONDS));
    assertTrue(failed.cancelled());
    assertEquals(1, tornDown.get(), "the teardown had ended when the job did");
  }

  @Test
  void aMeasurementsRowCarriesTheVersionTheServerReported() throws Exception {
    // Mutant: store's row without the reported version (the lambda taking it from the handshake returning empty).
    HandshakeFacts reported = HandshakeFacts.fromJson("2025-06-18", Map.of(), Map.of("name", "a", "version", "3.1.4"), List.of());
    transport.behaviours.put("a", () -> PreflightResult.ran(List.of(), reported));
    evaluator().uncappedPass(servers("a"));
    PreflightRecord row = cache.flushed().get("a");
    assertEquals(Optional.of("3.1.4"), row.reportedVersion());
    assertEquals(Optional.of(reported), row.handshake());
  }

  @Test
  void aJobShowsItsProgressAndWhatItMeasuresFromItsStartOnDaemonThreads() throws Exception {
    // Mutants: the uncapped pass's first progress (running, nothing done, its total) not set, or set for the
    // budgeted pass instead; MeasureJob.progress, measuring and isDone (uncovered); the job's thread not a daemon
    // (a job still running would then keep a host's JVM from exiting).
    Held held = hold("a");
    Evaluator e = evaluator();
    MeasureJob job = e.startUncapped(servers("a"));
    try {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (!job.measuring().contains("a") && System.nanoTime() < deadline) {
        Thread.sleep(1);
      }
      assertTrue(job.measuring().contains("a"), job.measuring().toString());
      assertFalse(job.isDone());
      assertEquals(new Progress(true, 0, 0, 1), job.progress());
      assertAllDaemons("cotenant-measure");
    } finally {
      held.release().countDown();
    }
    PassResult r = job.await(30, TimeUnit.SECONDS).orElseThrow();
    assertTrue(job.isDone());
    assertEquals(new Progress(false, 1, 1, 1), r.progress());
    assertEquals(List.of(), job.measuring());
  }

  @Test
  void aPassRunOnAnOrdinaryThreadMeasuresOnDaemonThreads() throws Exception {
    // Mutant: the pass's worker threads not made daemons. A thread inherits its creator's daemon status, so this
    // shows only for a pass run on an ordinary thread (a host's main thread), not on a job's daemon thread.
    Held held = hold("a");
    Evaluator e = evaluator();
    Thread ordinary = new Thread(() -> {
      try {
        e.uncappedPass(servers("a"));
      } catch (Exception ignored) {
        // the pass's result is checked through the cache below
      }
    }, "ordinary");
    ordinary.setDaemon(false);
    ordinary.start();
    try {
      assertTrue(held.entered().await(30, TimeUnit.SECONDS));
      assertAllDaemons("cotenant-preflight");
    } finally {
      held.release().countDown();
      ordinary.join(30_000);
    }
    assertFalse(ordinary.isAlive());
    assertEquals(Set.of("a"), cache.flushed().keySet());
  }

  /** Asserts that at least one live thread is named {@code name} and that each is a daemon. */
  private static void assertAllDaemons(String name) {
    List<Thread> named = Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().equals(name)).toList();
    assertFalse(named.isEmpty(), "a thread named " + name);
    named.forEach(t -> assertTrue(t.isDaemon(), name + " is a daemon"));
  }

  @Test
  void aServerWhoseIdentityCannotBeComputedIsAttemptedNotStoredAndTheOthersAreMeasured() throws Exception {
    // Mutant: measure returning null when the identity cannot be computed (the pass then failed on it, losing b).
    Evaluator e = new Evaluator(transport, cache, s -> {
      if (s.name().equals("a")) {
        throw new IllegalStateException("HOME is not set");
      }
      return identify(s);
    }, () -> 1_700_000_000.0, 2);
    PassResult r = e.uncappedPass(servers("a", "b"));
    assertEquals("identity could not be computed: IllegalStateException: HOME is not set",
        r.attempted().get("a").notRunReason());
    assertTrue(r.attempted().get("b").ran(), r.attempted().toString());
    assertEquals(Set.of("b"), cache.flushed().keySet(), "no row without an identity to file it under");
    assertEquals(0, transport.calls("a"), "never spawned without an identity");
  }

  @Test
  void aStoredRowWhoseIdentityCannotBeParsedIsNotKeptThroughAnUnreadableBinary() {
    // Mutant: keepsAMeasurementThroughAnUnreadableBinary returning true for a row whose identity does not parse
    // (uncovered): a pre-flight that could not run would then never replace that row.
    ExecutionIdentity now = new ExecutionIdentity("a", "args", "env", ExecutionIdentity.UNKNOWN_BINARY,
        ExecutionIdentity.PREFLIGHT_SCHEMA);
    PreflightRecord garbled = new PreflightRecord("a", "not an identity", true, false, List.of(), 1.0, Optional.empty(),
        Optional.of(FACTS));
    assertFalse(Evaluator.keepsAMeasurementThroughAnUnreadableBinary(garbled, now));
    PreflightRecord readable = new PreflightRecord("a", new ExecutionIdentity("a", "args", "env", "v1",
        ExecutionIdentity.PREFLIGHT_SCHEMA).cacheKey(), true, false, List.of(), 1.0, Optional.empty(), Optional.of(FACTS));
    assertTrue(Evaluator.keepsAMeasurementThroughAnUnreadableBinary(readable, now), "the same launch, its binary unread");
  }

  @Test
  void aFailedJobIsNotACancelledOne() throws Exception {
    // Mutants: JobFailedException's message choice negated, and cancelled() returning true for a failure.
    cache.beforeFlush = attempt -> {
      throw new IOException("disk full");
    };
    MeasureJob job = evaluator().startUncapped(servers("a"));
    MeasureJob.JobFailedException failed =
        assertThrows(MeasureJob.JobFailedException.class, () -> job.await(30, TimeUnit.SECONDS));
    assertFalse(failed.cancelled());
    assertTrue(failed.getMessage().startsWith("measure job failed: "), failed.getMessage());
    assertTrue(failed.getMessage().contains("disk full"), failed.getMessage());
  }

  // ---- batched flushes ----

  @Test
  void anUncappedPassFlushesAMeasurementOnceTheIntervalHasPassedWithoutWaitingForTheOthers() throws Exception {
    takingOneInterval("a");
    // b completes only once a's row has reached the cache: a pass that flushed at its end only would never end.
    transport.behaviours.put("b", () -> {
      if (!cache.awaitFlushed("a")) {
        return PreflightResult.notRun("a's row was never flushed while the pass ran");
      }
      return PreflightResult.ran(List.of(), FACTS);
    });

    PassResult r = clocked(2).uncappedPass(servers("a", "b"));

    assertTrue(r.attempted().get("b").ran(), r.attempted().toString());
    assertEquals(Set.of("a"), cache.history.get(0).keySet(), "the first flush held a alone");
    assertEquals(Set.of("a", "b"), cache.flushed().keySet());
  }

  @Test
  void measurementsCompletedWithinTheIntervalWaitForOneFlush() throws Exception {
    Held held = hold("c");
    Evaluator e = clocked(1);
    MeasureJob job = e.startUncapped(servers("a", "b", "c"));

    awaitProgress(e, p -> p.done() == 2);
    assertEquals(0, cache.flushes.get(), "the clock has not moved: no flush is due yet");
    advanceOneInterval();
    assertTrue(cache.awaitFlushed("b"), "both are flushed once the interval has passed, while c still runs");
    assertEquals(List.of(Set.of("a", "b")), cache.history.stream().map(Map::keySet).toList());
    held.release().countDown();
    job.await(30, TimeUnit.SECONDS).orElseThrow();

    assertEquals(Set.of("a", "b", "c"), cache.flushed().keySet());
    assertEquals(2, cache.flushes.get(), "one batch, then the end of the pass");
  }

  @Test
  void aPassWaitingOnASlowServerStillFlushesWhatCompleted() throws Exception {
    // The real clock: a's row is pending while the pass waits for b, and is flushed within the interval.
    transport.behaviours.put("b", () -> {
      if (!cache.awaitFlushed("a")) {
        return PreflightResult.notRun("a's row was never flushed while the pass waited");
      }
      return PreflightResult.ran(List.of(), FACTS);
    });

    PassResult r = evaluator().uncappedPass(servers("a", "b"));

    assertTrue(r.attempted().get("b").ran(), r.attempted().toString());
    assertEquals(Set.of("a", "b"), cache.flushed().keySet());
  }

  @Test
  void aBudgetedPassFlushesOnceAtItsEndHoweverLongItTakes() throws Exception {
    transport.behaviours.put("a", () -> {
      advanceOneInterval();
      advanceOneInterval();
      return PreflightResult.ran(List.of(), FACTS);
    });
    takingOneInterval("b");

    clocked(1).budgetedPass(servers("a", "b", "c")).orElseThrow();

    assertEquals(1, cache.flushes.get(), "one flush on a request path, as before");
    assertEquals(Set.of("a", "b"), cache.flushed().keySet());
  }

  @Test
  void aFailedFlushMidPassKeepsTheRowsForTheNextOne() throws Exception {
    cache.beforeFlush = attempt -> {
      if (attempt == 1) {
        throw new IOException("disk full");
      }
    };
    takingOneInterval("a");

    PassResult r = clocked(1).uncappedPass(servers("a", "b"));

    assertEquals(new Progress(false, 2, 2, 2), r.progress());
    assertEquals(Set.of("a", "b"), cache.flushed().keySet());
  }

  @Test
  void aFailedFlushAtTheEndFailsThePass() {
    cache.beforeFlush = attempt -> {
      throw new IOException("read-only file system");
    };

    IOException e = assertThrows(IOException.class, () -> evaluator().uncappedPass(servers("a")));
    assertEquals("read-only file system", e.getMessage());
  }

  @Test
  void aCancellationThatInterruptsAFlushStillWritesTheRowsAndCancelsThePass() throws Exception {
    CountDownLatch interrupted = new CountDownLatch(1);
    // The cancellation lands while the first flush writes: an interruptible channel gives up.
    cache.beforeFlush = attempt -> {
      if (attempt == 1) {
        Thread.currentThread().interrupt();
        throw new ClosedByInterruptException();
      }
    };
    takingOneInterval("a");
    stuckUntilInterrupted("stuck", interrupted);
    Evaluator e = clocked(2);
    MeasureJob job = e.startUncapped(servers("a", "stuck"));

    MeasureJob.JobFailedException failed =
        assertThrows(MeasureJob.JobFailedException.class, () -> job.await(30, TimeUnit.SECONDS));
    assertTrue(failed.cancelled(), failed.toString());
    assertTrue(interrupted.await(30, TimeUnit.SECONDS), "the running pre-flight is interrupted");
    assertEquals(Set.of("a"), cache.flushed().keySet(), "the interrupted flush was written all the same");
    assertFalse(e.passRunning());
  }

  /**
   * Waits until some thread is parked taking a lock inside {@link Evaluator#uncappedPass}: the
   * second pass has reached the point where it would either wait or go on.
   */
  private static void awaitAPassParkedOnThePassLock() throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (System.nanoTime() < deadline) {
      for (Map.Entry<Thread, StackTraceElement[]> t : Thread.getAllStackTraces().entrySet()) {
        boolean locking = false;
        for (StackTraceElement f : t.getValue()) {
          locking |= f.getMethodName().startsWith("lock");
          if (locking && f.getClassName().equals(Evaluator.class.getName()) && f.getMethodName().equals("uncappedPass")
              && t.getKey().getState() == Thread.State.WAITING) {
            return;
          }
        }
      }
      Thread.sleep(5);
    }
    throw new AssertionError("no pass ever waited on the pass lock");
  }

  /** A pre-flight that, once {@code entered}, is held until {@code release} is counted down, and then ran. */
  private record Held(CountDownLatch entered, CountDownLatch release) {}

  /** Holds every pre-flight of {@code server} that way. */
  private Held hold(String server) {
    Held held = new Held(new CountDownLatch(1), new CountDownLatch(1));
    transport.behaviours.put(server, () -> {
      held.entered().countDown();
      held.release().await();
      return PreflightResult.ran(List.of(), FACTS);
    });
    return held;
  }

  /**
   * Holds every pre-flight of {@code server} until it is interrupted; {@code interrupted} is counted
   * down then, and the interruption rethrown. Returns the latch counted down when one is entered.
   */
  private CountDownLatch stuckUntilInterrupted(String server, CountDownLatch interrupted) {
    CountDownLatch entered = new CountDownLatch(1);
    transport.behaviours.put(server, () -> {
      entered.countDown();
      try {
        new CountDownLatch(1).await();
      } catch (InterruptedException ie) {
        interrupted.countDown();
        throw ie;
      }
      return PreflightResult.notRun("unreachable");
    });
    return entered;
  }

  /** Every pre-flight of {@code server} moves the clock on by one flush interval, and then ran. */
  private void takingOneInterval(String server) {
    transport.behaviours.put(server, () -> {
      advanceOneInterval();
      return PreflightResult.ran(List.of(), FACTS);
    });
  }

  private static Progress awaitProgress(Evaluator e, java.util.function.Predicate<Progress> p)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (System.nanoTime() < deadline) {
      Progress now = e.progress();
      if (p.test(now)) {
        return now;
      }
      Thread.onSpinWait();
      Thread.yield();
    }
    throw new AssertionError("progress never reached the expected state; last: " + e.progress());
  }
}
