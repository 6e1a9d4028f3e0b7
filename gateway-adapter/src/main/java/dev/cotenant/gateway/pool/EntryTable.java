package dev.cotenant.gateway.pool;

import dev.cotenant.api.LogSafe;
import dev.cotenant.gateway.pool.PoolEntry.Outcome;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The bookkeeping of one {@link TransportPool}: its live entries by key, the sessions attached to
 * each with the reverse index from session to keys, the idle timers ({@link IdleSchedule}), and how
 * an entry ends and its backends are closed. {@link #lock} guards all of it; the methods that
 * take a {@code later} list run under it and add there what must run after it is let go (closes,
 * restarts), which the caller runs with {@link #runAll}. Nothing here calls a backend or the
 * factory under the lock.
 *
 * @param <B> the backends the pool manages
 */
final class EntryTable<B extends PooledBackend> {
  // The pool's own category: its log lines read the same whichever part writes them.
  private static final Logger LOG = LoggerFactory.getLogger(TransportPool.class);

  final PoolSettings settings;
  private final ScheduledExecutorService timers;
  private final Executor workers;
  private final LongSupplier clockMillis;

  final ReentrantLock lock = new ReentrantLock();
  /** Live entries. Guarded by {@link #lock}. */
  final Map<PoolKey, PoolEntry<B>> entries = new HashMap<>();
  /**
   * Entries that have ended but whose backend is still being closed (or whose start has not
   * returned): a drain waits for them too. Guarded by {@link #lock}.
   */
  final Set<PoolEntry<B>> unsettled = new HashSet<>();
  /** Session id to the keys it is attached to. Guarded by {@link #lock}. */
  private final Map<String, Set<PoolKey>> sessionIndex = new HashMap<>();
  /** Guarded by {@link #lock}. */
  private long attachSerial;

  EntryTable(PoolSettings settings, ScheduledExecutorService timers, Executor workers, LongSupplier clockMillis) {
    this.settings = Objects.requireNonNull(settings, "settings");
    this.timers = Objects.requireNonNull(timers, "timers");
    this.workers = Objects.requireNonNull(workers, "workers");
    this.clockMillis = Objects.requireNonNull(clockMillis, "clockMillis");
  }

  /** The pool's clock, in milliseconds. */
  long now() {
    return clockMillis.getAsLong();
  }

  // ---- sessions and idleness (all under the lock)

  /** @return true when the session was not attached before */
  boolean attach(PoolEntry<B> e, String sessionId) {
    if (e.sessions.containsKey(sessionId)) {
      return false;
    }
    if (e.sessions.isEmpty()) {
      e.idleSchedule.attached(now());
      if (e.idle) {
        cancelIdle(e);
      }
      if (e.state == EntryState.DRAINING) {
        e.state = EntryState.ACTIVE;
      }
    }
    e.sessions.put(sessionId, ++attachSerial);
    sessionIndex.computeIfAbsent(sessionId, s -> new LinkedHashSet<>()).add(e.key);
    return true;
  }

  void detach(PoolEntry<B> e, String sessionId, List<Runnable> later) {
    if (e.sessions.remove(sessionId) == null) {
      return;
    }
    unindex(sessionId, e.key);
    if (e.sessions.isEmpty() && e.everUp && !e.ended()) {
      goIdle(e, later);
    }
  }

  /** Detaches {@code sessionId} from every live entry it is attached to, through the reverse index. */
  void detachEverywhere(String sessionId, List<Runnable> later) {
    Set<PoolKey> keys = sessionIndex.get(sessionId);
    if (keys == null) {
      return;
    }
    for (PoolKey key : List.copyOf(keys)) {
      PoolEntry<B> e = entries.get(key);
      if (e != null) {
        detach(e, sessionId, later);
      }
    }
    sessionIndex.remove(sessionId);
  }

  /** How many sessions the reverse index holds. */
  int indexedSessions() {
    return sessionIndex.size();
  }

  private void unindex(String sessionId, PoolKey key) {
    Set<PoolKey> keys = sessionIndex.get(sessionId);
    if (keys != null) {
      keys.remove(key);
      if (keys.isEmpty()) {
        sessionIndex.remove(sessionId);
      }
    }
  }

  /** The entry has no session attached: sets its idle timer ({@link IdleSchedule}). */
  void goIdle(PoolEntry<B> e, List<Runnable> later) {
    long now = now();
    IdleSchedule.Deadline deadline = e.idleSchedule.idle(now, e.placement);
    e.idleEnd = deadline.reason();
    if (e.state == EntryState.ACTIVE) {
      e.state = EntryState.DRAINING;
    }
    e.idle = true;
    long seq = ++e.idleSeq;
    try {
      e.idleTimer = timers.schedule(() -> idleEnded(e, seq), deadline.delayFrom(now), TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException x) {
      end(e, EntryState.CLOSED, PoolException.Kind.CLOSED, e.id() + " was closed: no idle timer can be set", null, later);
    }
  }

  private void cancelIdle(PoolEntry<B> e) {
    e.idle = false;
    e.idleSeq++;
    if (e.idleTimer != null) {
      e.idleTimer.cancel(false);
      e.idleTimer = null;
    }
  }

  private void idleEnded(PoolEntry<B> e, long seq) {
    List<Runnable> later = new ArrayList<>();
    lock.lock();
    try {
      if (e.ended() || !e.idle || e.idleSeq != seq || !e.sessions.isEmpty()) {
        return;
      }
      end(e, EntryState.CLOSED, PoolException.Kind.CLOSED, e.id() + " was closed: " + e.idleEnd, null, later);
    } finally {
      lock.unlock();
    }
    runAll(later);
  }

  // ---- leases

  /** The exception an acquirer or a lease holder gets from an entry that ended. Under the lock. */
  static PoolException ended(PoolEntry<?> e) {
    return new PoolException(Objects.requireNonNull(e.endKind), e.endReason, e.endCause);
  }

  /** {@link Lease#backend()}. */
  B backendOf(Lease<B> lease) throws PoolException {
    lock.lock();
    try {
      return backendUnderLock(lease);
    } finally {
      lock.unlock();
    }
  }

  private B backendUnderLock(Lease<B> lease) throws PoolException {
    PoolEntry<B> e = lease.entry;
    if (e.ended()) {
      throw ended(e);
    }
    if (!Objects.equals(e.sessions.get(lease.sessionId()), lease.serial)) {
      throw new PoolException(PoolException.Kind.CLOSED,
          "the lease of session " + lease.sessionId() + " on " + e.id() + " was released", null);
    }
    B b = e.backend;
    if (b == null) {
      throw new PoolException(PoolException.Kind.RESTARTING, e.id() + " is restarting (generation " + e.generation + ")", null);
    }
    return b;
  }

  /** {@link Lease#awaitBackend}. */
  B awaitBackendOf(Lease<B> lease, Duration timeout) throws PoolException, InterruptedException {
    long deadline = System.nanoTime() + Math.max(0, timeout.toNanos());
    while (true) {
      CompletableFuture<Outcome> start;
      lock.lock();
      try {
        PoolEntry<B> e = lease.entry;
        if (e.ended() || !e.startInFlight()) {
          return backendUnderLock(lease);
        }
        start = e.inFlight;
      } finally {
        lock.unlock();
      }
      try {
        start.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
      } catch (TimeoutException x) {
        return backendOf(lease);
      } catch (ExecutionException x) {
        throw new IllegalStateException("a pool start never completes exceptionally", x);
      }
    }
  }

  /** {@link Lease#current}. */
  boolean isCurrent(PoolEntry<B> e, int generation) {
    lock.lock();
    try {
      return !e.ended() && e.backend != null && e.generation == generation;
    } finally {
      lock.unlock();
    }
  }

  // ---- ending and closing

  /**
   * Ends {@code e}: it leaves the pool and the session index, its timer is cancelled, its
   * sessions are detached, its backend is handed to the worker executor to be closed, and the
   * start in flight (if any) is completed for its waiters. Idempotent. Under the lock.
   */
  void end(PoolEntry<B> e, EntryState state, PoolException.Kind kind, String reason, @Nullable Throwable cause,
      List<Runnable> later) {
    if (e.ended()) {
      return;
    }
    e.state = state;
    e.endKind = kind;
    e.endReason = reason;
    e.endCause = cause;
    if (e.idle) {
      cancelIdle(e);
    }
    entries.remove(e.key, e);
    for (String sessionId : e.sessions.keySet()) {
      unindex(sessionId, e.key);
    }
    e.sessions.clear();
    B b = e.backend;
    e.backend = null;
    if (b != null) {
      closeLater(e, b, later);
    }
    e.inFlight.complete(new Outcome(false, reason));
    unsettled.add(e);
    settleClosed(e);
    if (state == EntryState.FAILED) {
      LOG.warn("{}", LogSafe.escape(reason, 500));
    } else {
      LOG.debug("{}", LogSafe.escape(reason, 500));
    }
  }

  /** Ends every entry of {@code all} as closed, saying {@code why}; takes the lock. */
  void closeAll(List<PoolEntry<B>> all, String why) {
    List<Runnable> later = new ArrayList<>();
    lock.lock();
    try {
      for (PoolEntry<B> e : all) {
        end(e, EntryState.CLOSED, PoolException.Kind.CLOSED, e.id() + " was closed: " + why, null, later);
      }
    } finally {
      lock.unlock();
    }
    runAll(later);
  }

  /** Hands {@code b} to the worker executor to be closed. Under the lock. */
  void closeLater(PoolEntry<B> e, B b, List<Runnable> later) {
    e.pendingCloses++;
    later.add(() -> execute(() -> closeNow(e, b)));
  }

  /** Closes {@code b} on this thread, without the lock, and settles the entry's count. */
  void closeNow(PoolEntry<B> e, B b) {
    String error = null;
    try {
      b.close();
    } catch (RuntimeException x) {
      error = describe(x);
      LOG.warn("closing the backend of {} failed: {}", LogSafe.escape(e.id()), LogSafe.escape(error));
    } finally {
      lock.lock();
      try {
        e.pendingCloses--;
        if (error != null) {
          e.closeErrors.add(error);
        }
        settleClosed(e);
      } finally {
        lock.unlock();
      }
    }
  }

  /** Completes {@code e.closed} once it has ended and nothing of it is left to close. Under the lock. */
  void settleClosed(PoolEntry<?> e) {
    if (e.ended() && !e.starting && e.pendingCloses == 0) {
      e.closed.complete(null);
      unsettled.remove(e);
    }
  }

  /** Runs {@code task} on the worker executor, or on this thread when it rejects the task. */
  void execute(Runnable task) {
    try {
      workers.execute(task);
    } catch (RejectedExecutionException x) {
      task.run();
    }
  }

  static void runAll(List<Runnable> tasks) {
    for (Runnable t : tasks) {
      t.run();
    }
  }

  /** A throwable's message, or its class's name when it has none. */
  static String describe(Throwable t) {
    String m = t.getMessage();
    return m == null || m.isBlank() ? t.getClass().getSimpleName() : m;
  }
}
