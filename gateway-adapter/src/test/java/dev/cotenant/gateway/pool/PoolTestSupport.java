package dev.cotenant.gateway.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.api.ServerDescription;
import dev.cotenant.gateway.pool.FakeFactory.Backend;
import dev.cotenant.gateway.pool.FakeFactory.Step;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.function.Executable;

/**
 * A pool over a {@link FakeFactory}, a {@link ManualTimers} clock and, by default, a worker
 * executor that runs each task on the calling thread, so a test decides exactly when each timer
 * fires and each restart runs. After each test the pool is closed and every backend it ever
 * started must have been closed, and no start or close may have run under the pool's lock.
 *
 * <p>The only time bounds ({@link #HANG_GUARD} on waits, and the class's {@link Timeout} on each
 * test, which runs it on its own thread so that even a test stuck on the pool's lock fails) turn a
 * hang into a failure; no test asserts how long anything took.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
abstract class PoolTestSupport {
  static final Duration GRACE = Duration.ofSeconds(30);
  static final Duration CAP = Duration.ofMinutes(5);
  static final PoolSettings SETTINGS = new PoolSettings(GRACE, CAP, 3, 32, Duration.ofSeconds(10));
  static final ServerDescription ECHO = ServerDescription.stdio("echo", "node", "echo.js");
  static final ServerDescription FILES = ServerDescription.stdio("files", "node", "files.js");
  static final ServerDescription OTHER = ServerDescription.stdio("other", "node", "other.js");
  static final long HANG_GUARD = 30;

  final ManualTimers timers = new ManualTimers();
  final FakeFactory factory = new FakeFactory();
  final ExecutorService threads = Executors.newCachedThreadPool();
  TransportPool<Backend> pool;

  @BeforeEach
  void directPool() {
    pool(SETTINGS, Runnable::run);
  }

  /** Replaces the test's pool by one with {@code settings} whose work runs on {@code workers}. */
  TransportPool<Backend> pool(PoolSettings settings, Executor workers) {
    return pool(settings, timers, workers, timers::now);
  }

  /** Replaces the test's pool by one on other timers and another clock. */
  TransportPool<Backend> pool(PoolSettings settings, ScheduledExecutorService timers, Executor workers, LongSupplier clock) {
    pool = new TransportPool<>(factory, settings, timers, workers, clock);
    factory.pool = pool;
    return pool;
  }

  @AfterEach
  void nothingLeaks() throws Exception {
    factory.openAll();
    pool.close();
    for (Backend b : List.copyOf(factory.backends)) {
      assertTrue(b.closed.await(HANG_GUARD, TimeUnit.SECONDS), "backend " + b.key + " generation " + b.generation + " was never closed");
    }
    assertEquals(List.of(), factory.violations);
    threads.shutdownNow();
  }

  <T> Future<T> async(Callable<T> task) {
    return threads.submit(task);
  }

  /** The future's value; the bound only turns a hang into a failure. */
  static <T> T await(Future<T> f) throws Exception {
    return f.get(HANG_GUARD, TimeUnit.SECONDS);
  }

  static void await(CountDownLatch latch) throws InterruptedException {
    assertTrue(latch.await(HANG_GUARD, TimeUnit.SECONDS), "a latch was never counted down");
  }

  Lease<Backend> acquire(ServerDescription server, String sessionId) throws Exception {
    return pool.acquire(server, sessionId, Placement.SHARED, false);
  }

  /** A latch counted down each time a caller is about to wait on the pool. */
  CountDownLatch waiters(int n) {
    CountDownLatch latch = new CountDownLatch(n);
    pool.onWaiting(who -> latch.countDown());
    return latch;
  }

  /** An acquire on another thread whose start is held at its gate. */
  record GatedAcquire(Step start, Future<Lease<Backend>> lease) {}

  /** Acquires {@code server} for {@code sessionId} on another thread, and returns once its start is held at the gate. */
  GatedAcquire acquireGated(ServerDescription server, String sessionId) throws Exception {
    Step start = factory.next(Step.gated());
    Future<Lease<Backend>> lease = async(() -> acquire(server, sessionId));
    start.awaitEntered();
    return new GatedAcquire(start, lease);
  }

  /** A first start of {@link #ECHO} held at its gate, session a's acquire in it and session b's waiting on it. */
  record GatedStart(Step start, Future<Lease<Backend>> a, Future<Lease<Backend>> b) {}

  /** Starts {@link #ECHO} for session a with the start gated, and returns once session b waits on that start. */
  GatedStart gatedStartWithAWaiter() throws Exception {
    Step start = factory.next(Step.gated());
    CountDownLatch waiting = waiters(1);
    Future<Lease<Backend>> a = async(() -> acquire(ECHO, "a"));
    start.awaitEntered();
    Future<Lease<Backend>> b = async(() -> acquire(ECHO, "b"));
    await(waiting);
    return new GatedStart(start, a, b);
  }

  /**
   * A backend of {@link #ECHO} that exits right after its start and after each of the three restarts
   * that follow fails: four starts, the lease fails, and the entry is gone.
   */
  void assertABackendThatDiesRightAfterEveryRestartFails() throws Exception {
    Lease<Backend> l = acquire(ECHO, "a");
    l.backend().exit("crashed"); // generation 2
    l.backend().exit("crashed at once"); // generation 3
    l.backend().exit("crashed at once"); // generation 4
    l.backend().exit("crashed at once");
    assertEquals(PoolException.Kind.FAILED, kindOf(l::backend));
    assertEquals(4, factory.starts.get());
    assertEmpty();
  }

  /** The only entry drains until a grace on {@link #timers} has passed, and is gone then. */
  void assertDrainsForExactlyAGrace() {
    assertDrainsForExactlyAGrace(timers);
  }

  /** The only entry drains until a grace on {@code clock} has passed, and is gone then. */
  void assertDrainsForExactlyAGrace(ManualTimers clock) {
    clock.advance(GRACE.minusMillis(1));
    assertEquals(EntryState.DRAINING, only().state());
    clock.advance(Duration.ofMillis(1));
    assertEmpty();
  }

  /** The pool's only entry. */
  EntrySnapshot only() {
    List<EntrySnapshot> a = pool.accounting();
    assertEquals(1, a.size(), () -> "entries: " + a);
    return a.get(0);
  }

  void assertEmpty() {
    assertEquals(List.of(), pool.accounting());
  }

  static PoolException.Kind kindOf(Executable call) {
    return assertThrows(PoolException.class, call).kind();
  }

  /** The pool exception a future failed with. */
  static PoolException failure(Future<?> f) {
    ExecutionException x = assertThrows(ExecutionException.class, () -> f.get(HANG_GUARD, TimeUnit.SECONDS));
    return assertInstanceOf(PoolException.class, x.getCause());
  }
}
