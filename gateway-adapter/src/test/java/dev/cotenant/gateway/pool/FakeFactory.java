package dev.cotenant.gateway.pool;

import dev.cotenant.api.ServerDescription;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.OptionalLong;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * A backend factory without processes. Each start takes the next scripted {@link Step} (or starts
 * at once when none is left): it may block on a gate the test opens, throw, or report an exit
 * before returning. It counts starts, keeps every backend it made, and records any start or
 * close made while the calling thread holds the pool's lock.
 */
final class FakeFactory implements BackendFactory<FakeFactory.Backend> {
  /** What one start does. */
  static final class Step {
    final CountDownLatch entered = new CountDownLatch(1);
    /** Counted down when the start returns or throws. */
    final CountDownLatch returned = new CountDownLatch(1);
    final @Nullable CountDownLatch gate;
    final @Nullable String failure;
    final @Nullable String exitWhileStarting;

    private Step(boolean gated, @Nullable String failure, @Nullable String exitWhileStarting) {
      this.gate = gated ? new CountDownLatch(1) : null;
      this.failure = failure;
      this.exitWhileStarting = exitWhileStarting;
    }

    /** Blocks until {@link #open()}, then starts. */
    static Step gated() {
      return new Step(true, null, null);
    }

    /** Throws at once. */
    static Step failing(String message) {
      return new Step(false, message, null);
    }

    /** Blocks until {@link #open()}, then throws. */
    static Step gatedFailing(String message) {
      return new Step(true, message, null);
    }

    /** Reports an exit through its events, then returns the backend. */
    static Step exitingWhileStarting(String reason) {
      return new Step(false, null, reason);
    }

    void open() {
      if (gate != null) {
        gate.countDown();
      }
    }

    void awaitEntered() throws InterruptedException {
      entered.await();
    }
  }

  /** A started backend. */
  final class Backend implements PooledBackend {
    final PoolKey key;
    final int generation;
    final BackendEvents events;
    final long pid;
    final AtomicInteger closes = new AtomicInteger();
    final CountDownLatch closed = new CountDownLatch(1);
    volatile @Nullable CountDownLatch closeGate;
    volatile @Nullable RuntimeException closeFailure;
    volatile long calls;
    volatile int hazards;

    Backend(PoolKey key, int generation, BackendEvents events, long pid) {
      this.key = key;
      this.generation = generation;
      this.events = events;
      this.pid = pid;
    }

    @Override
    public OptionalLong pid() {
      return OptionalLong.of(pid);
    }

    @Override
    public long calls() {
      return calls;
    }

    @Override
    public int hazards() {
      return hazards;
    }

    @Override
    public void close() {
      checkLock("close of " + key + " generation " + generation);
      closes.incrementAndGet();
      try {
        CountDownLatch g = closeGate;
        if (g != null) {
          g.await();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      closed.countDown();
      RuntimeException f = closeFailure;
      if (f != null) {
        throw f;
      }
    }

    /** The process died. */
    void exit(String reason) {
      events.exited(reason);
    }

    boolean isClosed() {
      return closes.get() > 0;
    }
  }

  final AtomicInteger starts = new AtomicInteger();
  final List<Backend> backends = Collections.synchronizedList(new ArrayList<>());
  final List<String> violations = Collections.synchronizedList(new ArrayList<>());
  private final Queue<Step> steps = new ConcurrentLinkedQueue<>();
  private final List<Step> all = Collections.synchronizedList(new ArrayList<>());
  volatile @Nullable TransportPool<Backend> pool;

  /** Scripts the next start. */
  Step next(Step step) {
    steps.add(step);
    all.add(step);
    return step;
  }

  /** Opens every gate, so nothing stays blocked after a test. */
  void openAll() {
    synchronized (all) {
      all.forEach(Step::open);
    }
  }

  /** The backend made by the {@code n}th start that returned one (0-based). */
  Backend backend(int n) {
    return backends.get(n);
  }

  Backend last() {
    synchronized (backends) {
      return backends.get(backends.size() - 1);
    }
  }

  @Override
  public Backend start(PoolKey key, ServerDescription server, int generation, BackendEvents events) throws Exception {
    checkLock("start of " + key + " generation " + generation);
    int n = starts.incrementAndGet();
    Step step = steps.poll();
    if (step == null) {
      return started(key, generation, events, n);
    }
    try {
      step.entered.countDown();
      if (step.gate != null) {
        step.gate.await();
      }
      if (step.failure != null) {
        throw new IllegalStateException(step.failure);
      }
      Backend b = started(key, generation, events, n);
      if (step.exitWhileStarting != null) {
        events.exited(step.exitWhileStarting);
      }
      return b;
    } finally {
      step.returned.countDown();
    }
  }

  private Backend started(PoolKey key, int generation, BackendEvents events, int n) {
    Backend b = new Backend(key, generation, events, 1000 + n);
    backends.add(b);
    return b;
  }

  private void checkLock(String what) {
    TransportPool<Backend> p = pool;
    if (p != null && p.lockHeldByCurrentThread()) {
      violations.add(what + " was called with the pool's lock held");
    }
  }
}
