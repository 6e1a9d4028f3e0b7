package dev.cotenant.gateway.pool;

import java.time.Duration;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.Delayed;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * A fake clock and a scheduler driven by it: scheduled tasks run on the thread that calls
 * {@link #advance}, when the clock passes their time, in time order. Nothing runs by itself.
 */
final class ManualTimers extends AbstractExecutorService implements ScheduledExecutorService {
  private final PriorityQueue<Task> queue = new PriorityQueue<>();
  private long now;
  private long seq;

  /** A clock that reads 0. */
  ManualTimers() {
    this(0);
  }

  /** A clock that reads {@code start}, which may be negative as {@code System.nanoTime}'s can be. */
  ManualTimers(long start) {
    this.now = start;
  }

  /** The fake clock, in milliseconds. */
  synchronized long now() {
    return now;
  }

  /** Moves the clock {@code by} forward, running every task that falls due on the way. */
  void advance(Duration by) {
    long target;
    synchronized (this) {
      target = now + by.toMillis();
    }
    while (true) {
      Task t;
      synchronized (this) {
        t = queue.peek();
        if (t == null || t.at > target) {
          now = target;
          return;
        }
        queue.poll();
        now = Math.max(now, t.at);
      }
      t.runIfLive();
    }
  }

  /** Runs the tasks due now. */
  void runDue() {
    advance(Duration.ZERO);
  }

  /** Tasks scheduled and neither cancelled nor run. */
  synchronized int pending() {
    return (int) queue.stream().filter(t -> !t.cancelled).count();
  }

  @Override
  public synchronized ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
    Task t = new Task(now + unit.toMillis(delay), seq++, command);
    queue.add(t);
    return t;
  }

  @Override
  public void execute(Runnable command) {
    schedule(command, 0, TimeUnit.MILLISECONDS);
  }

  @Override
  public <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
    throw new UnsupportedOperationException("the pool schedules Runnables only");
  }

  @Override
  public ScheduledFuture<?> scheduleAtFixedRate(Runnable command, long initialDelay, long period, TimeUnit unit) {
    throw new UnsupportedOperationException("the pool schedules one-shot tasks only");
  }

  @Override
  public ScheduledFuture<?> scheduleWithFixedDelay(Runnable command, long initialDelay, long delay, TimeUnit unit) {
    throw new UnsupportedOperationException("the pool schedules one-shot tasks only");
  }

  @Override
  public void shutdown() {}

  @Override
  public List<Runnable> shutdownNow() {
    return List.of();
  }

  @Override
  public boolean isShutdown() {
    return false;
  }

  @Override
  public boolean isTerminated() {
    return false;
  }

  @Override
  public boolean awaitTermination(long timeout, TimeUnit unit) {
    return false;
  }

  private final class Task implements ScheduledFuture<Object> {
    final long at;
    final long order;
    final Runnable command;
    volatile boolean cancelled;
    volatile boolean ran;

    Task(long at, long order, Runnable command) {
      this.at = at;
      this.order = order;
      this.command = command;
    }

    void runIfLive() {
      if (!cancelled) {
        ran = true;
        command.run();
      }
    }

    @Override
    public long getDelay(TimeUnit unit) {
      return unit.convert(at - now(), TimeUnit.MILLISECONDS);
    }

    @Override
    public int compareTo(Delayed o) {
      Task t = (Task) o;
      return at != t.at ? Long.compare(at, t.at) : Long.compare(order, t.order);
    }

    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
      if (ran) {
        return false;
      }
      cancelled = true;
      return true;
    }

    @Override
    public boolean isCancelled() {
      return cancelled;
    }

    @Override
    public boolean isDone() {
      return cancelled || ran;
    }

    @Override
    public Object get() {
      throw new UnsupportedOperationException();
    }

    @Override
    public Object get(long timeout, TimeUnit unit) {
      throw new UnsupportedOperationException();
    }
  }
}
