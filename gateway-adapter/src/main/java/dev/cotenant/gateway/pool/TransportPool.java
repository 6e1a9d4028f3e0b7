package dev.cotenant.gateway.pool;

import dev.cotenant.api.LogSafe;
import dev.cotenant.api.ServerDescription;
import dev.cotenant.gateway.pool.PoolEntry.Outcome;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The transport pool (docs/pool.md): starts, shares, restarts and closes the backends that client
 * sessions use. It is generic over the backend: a {@link BackendFactory} starts one, a
 * {@link PooledBackend} is what the pool holds and closes, and the backend reports its death
 * through the {@link BackendEvents} it was started with.
 *
 * <h2>Entries and keys</h2>
 *
 * Entries are keyed by {@link PoolKey}: {@link Placement#SHARED} acquires use
 * {@link PoolKey#of(ServerDescription)}, so sessions with one launch configuration share one
 * backend; {@link Placement#DEDICATED} acquires use {@link PoolKey#dedicated}, which never
 * shares. The {@code forced} flag of an acquire (the operator forced the placement) is carried
 * into the {@linkplain #accounting() accounting}; an entry is forced when any of its acquires
 * said so. An entry is <em>live</em> from its creation until it is {@link EntryState#CLOSED} or
 * {@link EntryState#FAILED}; an ended entry leaves the pool at once, and a later acquire of its key
 * creates a fresh entry.
 *
 * <h2>Sessions</h2>
 *
 * An entry's reference count is the SET of sessions attached to it; a session is attached from
 * the moment its acquire reaches the entry (also while it waits for a start) until it releases
 * a lease, is released with {@link #releaseSession}, or the entry ends. A reverse index from
 * session to keys makes {@link #releaseSession} cost the session's own attachments, not the
 * pool's size.
 *
 * <h2>Lifecycle</h2>
 *
 * {@code SPAWNING → ACTIVE → DRAINING → CLOSED}, with {@code DRAINING → ACTIVE} when a session
 * attaches, {@code ACTIVE/DRAINING → SPAWNING} for a restart, and {@code FAILED} when a backend
 * cannot be (re)started.
 *
 * <ol>
 *   <li><b>One start per key.</b> The first acquire of a key reserves a slot of the spawn budget
 *       (by creating the entry), then calls {@link BackendFactory#start} on its own thread;
 *       concurrent acquires of the key attach and wait for that start (they never start a
 *       second backend) and all get leases on its backend.
 *   <li><b>Start failure.</b> When the first start throws (or returns {@code null}, or the
 *       backend reports an exit before the start returned), every acquirer waiting for it gets
 *       {@link PoolException.Kind#SPAWN_FAILED} carrying the cause's message, the entry is
 *       removed and its budget slot released; a later acquire tries again.
 *   <li><b>Release during a start.</b> A session released while the start it waits for is in
 *       flight is detached at once; its acquire then throws {@link PoolException.Kind#CLOSED}. A
 *       backend that comes up with no session attached goes straight to {@code DRAINING}.
 *   <li><b>Drain grace and hard idle cap.</b> When the last session detaches from an entry that
 *       has had a backend up, the entry goes {@code DRAINING} and its idle timer starts; a session
 *       attaching cancels it (the entry is {@code ACTIVE} again). When the timer ends with no
 *       session attached the entry closes: it leaves the pool and its backend is closed. The
 *       timer ends at {@code min(now + drainGrace, firstIdle + idleCap)}, so flapping sessions
 *       cannot keep an entry alive past its cap; a {@link Placement#DEDICATED} entry closes as
 *       soon as its one session leaves. The exact rule is {@code IdleSchedule}'s.
 *   <li><b>Generations.</b> Every start attempt of an entry has its own generation: 1 for the
 *       first, one more for each later attempt. {@link Lease#backend()} always returns the
 *       current backend; {@link Lease#current(int)} tells a caller whether a generation is
 *       still current, so it can drop a replaced backend's late events; the pool ignores
 *       {@link BackendEvents#exited} from any generation but the current one.
 *   <li><b>Restart on exit.</b> When the current backend reports an exit while sessions are
 *       attached, the pool closes it and starts the entry again on the worker executor, as new
 *       generations, until a start succeeds or {@code restartAttempts} CONSECUTIVE attempts have
 *       failed (a backend that exits within one {@code drainGrace} of coming up counts as a
 *       failed attempt); then the entry is {@code FAILED} (it leaves the pool, and its leases'
 *       {@link Lease#backend()} throws {@link PoolException.Kind#FAILED}). The rules are
 *       {@code RestartPolicy}'s, the attempts {@code Restarter}'s. With no session attached an
 *       exit just closes the entry. While a restart is in flight {@link Lease#backend()} throws
 *       {@link PoolException.Kind#RESTARTING} ({@link Lease#awaitBackend} waits), and new
 *       acquires attach and wait for it. The pool replays nothing: what the calls in flight on a
 *       dead backend get is the backend's business (docs/pool.md: they fail as interrupted).
 *   <li><b>Restart by name.</b> {@link #restartByName} restarts every live entry of the name
 *       (one result each): entries with a backend up are restarted as above (the attempt count
 *       starts afresh: an operator's restart gets all its attempts); entries whose start is in
 *       flight are joined. A {@code DRAINING} entry is restarted too, and stays idle: its idle
 *       timer is NOT reset by the restart, so the restart does not lengthen its life. If the
 *       timer ends (or the pool drains) while the restart is in flight, the entry closes then,
 *       and the backend the restart was starting is closed the moment its start returns; the
 *       result says {@code restarted=false} with the closing reason. No backend is ever left
 *       running outside an entry.
 *   <li><b>Spawn budget.</b> At most {@code spawnBudget} live entries; an acquire that needs a
 *       new entry beyond it throws {@link PoolException.Kind#BUDGET_EXHAUSTED}, naming the
 *       budget and {@value PoolSettings#SPAWN_BUDGET}. A restart keeps its entry's slot.
 *   <li><b>Drain.</b> {@link #drainAll} stops new acquires ({@link PoolException.Kind#CLOSED}) and
 *       closes every entry; see there. {@link #drainAndReopen} does the same and then accepts
 *       acquires again.
 * </ol>
 *
 * <h2>Threads, timers and the clock</h2>
 *
 * One lock guards the pool's bookkeeping, and the pool never holds it while it calls the
 * factory or any method of a backend. First starts run on the acquiring thread; restarts of
 * exited backends, closes, and {@link #restartByName}'s own restarts run on the {@code workers}
 * executor (closes run in parallel as far as it allows; when it rejects a task the task runs on
 * the calling thread). The idle timers are {@code timers.schedule(Runnable, delay, MILLISECONDS)}
 * tasks, cancelled with {@code cancel(false)}; the pool uses no other method of {@code timers}
 * for timing, so a test may pass a scheduler it advances by hand. Delays are computed from
 * {@code clockMillis}, which also stamps {@link EntrySnapshot#startedAt()}; {@link #drainAll}'s
 * timeout is real time. The pool neither creates threads nor shuts {@code timers} or
 * {@code workers} down. {@link #restartByName} and {@link #drainAll} wait for work that runs
 * on {@code workers}: do not call them from a thread of a bounded {@code workers} executor.
 * Interrupting the thread that runs a restart fails its entry.
 *
 * @param <B> the backends the pool manages
 */
public final class TransportPool<B extends PooledBackend> implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(TransportPool.class);

  private final PoolSettings settings;
  /** The entries, the sessions, the idle timers and the closes; its lock guards the pool's state. */
  private final EntryTable<B> table;
  private final ReentrantLock lock;
  private final Restarter<B> restarter;
  /** False once a drain began. Guarded by {@link #lock}. */
  private boolean accepting = true;
  /** Set by {@link #close}: a pool closed never accepts again, even after a {@link #drainAndReopen}. */
  private boolean closedForGood;

  /** What {@link #onWaiting}'s hook is called with when a drain waits. */
  static final String DRAIN = "drain";

  private volatile Consumer<String> waitingHook = sessionId -> {};

  /**
   * A pool whose blocking work (restarts, closes) runs on {@code timers}: give it enough
   * threads for the closes a drain runs in parallel, or use the five-argument constructor.
   *
   * @param factory starts backends
   * @param settings the pool's bounds
   * @param timers runs the idle timers, and the pool's blocking work
   * @param clockMillis the clock in milliseconds, for the timers' delays and the accounting
   */
  public TransportPool(
      BackendFactory<B> factory, PoolSettings settings, ScheduledExecutorService timers, LongSupplier clockMillis) {
    this(factory, settings, timers, timers, clockMillis);
  }

  /**
   * A pool whose restarts and closes run on {@code workers}.
   *
   * @param factory starts backends
   * @param settings the pool's bounds
   * @param timers runs the idle timers
   * @param workers runs restarts and closes
   * @param clockMillis the clock in milliseconds, for the timers' delays and the accounting
   */
  public TransportPool(
      BackendFactory<B> factory, PoolSettings settings, ScheduledExecutorService timers, Executor workers,
      LongSupplier clockMillis) {
    this.settings = Objects.requireNonNull(settings, "settings");
    this.table = new EntryTable<>(settings, timers, workers, clockMillis);
    this.lock = table.lock;
    this.restarter = new Restarter<>(factory, table);
  }

  /** The pool's bounds. */
  public PoolSettings settings() {
    return settings;
  }

  /**
   * Attaches {@code sessionId} to the entry of {@code server} for {@code placement}, creating
   * and starting the entry when there is none, and returns once the entry's backend is up.
   *
   * @param server the server; must be enabled (a disabled server is never spawned)
   * @param sessionId the client session
   * @param placement shared or dedicated
   * @param forced true when the operator forced the placement (carried into the accounting)
   * @throws PoolException {@link PoolException.Kind#CLOSED} when the pool is draining, the entry
   *     closed while this acquire waited, or the session was released meanwhile;
   *     {@link PoolException.Kind#BUDGET_EXHAUSTED} when a new entry is needed beyond the spawn
   *     budget; {@link PoolException.Kind#SPAWN_FAILED} when the first start failed;
   *     {@link PoolException.Kind#FAILED} when a restart this acquire waited for failed
   * @throws InterruptedException when interrupted while starting or waiting; the session is
   *     detached again unless it was attached before this acquire
   * @throws IllegalArgumentException when {@code server} is disabled
   */
  public Lease<B> acquire(ServerDescription server, String sessionId, Placement placement, boolean forced)
      throws PoolException, InterruptedException {
    return acquire(server, sessionId, placement, forced, "");
  }

  /**
   * As {@link #acquire(ServerDescription, String, Placement, boolean)}, with why the session is
   * placed so: an entry this acquire creates keeps it for the {@linkplain #accounting() accounting}.
   */
  public Lease<B> acquire(ServerDescription server, String sessionId, Placement placement, boolean forced, String reason)
      throws PoolException, InterruptedException {
    return acquire(server, sessionId, placement, "", forced, reason);
  }

  /**
   * As {@link #acquire(ServerDescription, String, Placement, boolean, String)}, for a session
   * whose clients are of shape {@code clients} (a canonical text; see
   * {@link PoolKey#of(ServerDescription, String, Placement, String)}): a shared session joins the
   * shared entry of its shape only.
   */
  public Lease<B> acquire(ServerDescription server, String sessionId, Placement placement, String clients,
      boolean forced, String reason) throws PoolException, InterruptedException {
    Objects.requireNonNull(clients, "clients");
    Objects.requireNonNull(reason, "reason");
    Objects.requireNonNull(server, "server");
    Objects.requireNonNull(sessionId, "sessionId");
    Objects.requireNonNull(placement, "placement");
    if (!server.enabled()) {
      throw new IllegalArgumentException("refusing to start " + LogSafe.escape(server.name()) + ": it is disabled");
    }
    PoolKey key = PoolKey.of(server, sessionId, placement, clients);
    PoolEntry<B> e;
    boolean starter = false;
    boolean attachedHere;
    lock.lock();
    try {
      if (!accepting) {
        throw new PoolException(PoolException.Kind.CLOSED, "the pool is draining: " + key.connectionId() + " was not acquired", null);
      }
      e = table.entries.get(key);
      if (e == null) {
        if (table.entries.size() >= settings.spawnBudget()) {
          throw new PoolException(PoolException.Kind.BUDGET_EXHAUSTED,
              "the spawn budget of " + settings.spawnBudget() + " live backends (" + PoolSettings.SPAWN_BUDGET
                  + ") is exhausted: " + key.connectionId() + " was not started", null);
        }
        e = new PoolEntry<>(key, server, placement, forced, reason, settings);
        e.starting = true;
        table.entries.put(key, e);
        starter = true;
      }
      e.forced |= forced;
      attachedHere = table.attach(e, sessionId);
      if (!e.startInFlight()) {
        return leaseOf(e, sessionId);
      }
    } finally {
      lock.unlock();
    }
    if (starter) {
      Throwable failure = restarter.attempt(e, 1);
      if (failure instanceof InterruptedException) {
        Thread.currentThread().interrupt();
        throw (InterruptedException) failure;
      }
    } else {
      waitingHook.accept(sessionId);
    }
    return awaitStart(e, sessionId, attachedHere);
  }

  /** Waits for the starts in flight on {@code e}, then returns the session's lease. */
  private Lease<B> awaitStart(PoolEntry<B> e, String sessionId, boolean attachedHere)
      throws PoolException, InterruptedException {
    while (true) {
      CompletableFuture<Outcome> start;
      lock.lock();
      try {
        if (e.ended()) {
          throw EntryTable.ended(e);
        }
        if (!e.sessions.containsKey(sessionId)) {
          throw new PoolException(PoolException.Kind.CLOSED,
              "session " + sessionId + " was released while " + e.id() + " was starting", null);
        }
        if (!e.startInFlight()) {
          return leaseOf(e, sessionId);
        }
        start = e.inFlight;
      } finally {
        lock.unlock();
      }
      try {
        start.get();
      } catch (InterruptedException ie) {
        if (attachedHere) {
          List<Runnable> later = new ArrayList<>();
          lock.lock();
          try {
            table.detach(e, sessionId, later);
          } finally {
            lock.unlock();
          }
          EntryTable.runAll(later);
        }
        throw ie;
      } catch (ExecutionException x) {
        throw new IllegalStateException("a pool start never completes exceptionally", x);
      }
    }
  }

  /** A lease of an attached session on an entry that has a backend up. Under the lock. */
  private Lease<B> leaseOf(PoolEntry<B> e, String sessionId) {
    return new Lease<>(this, table, e, sessionId, e.sessions.get(sessionId), e.generation);
  }

  /**
   * Releases {@code lease}: detaches its session from the entry (when this lease's attachment
   * is still the session's). Idempotent; the last session's release starts the idle timer.
   *
   * @throws IllegalArgumentException when the lease belongs to another pool
   */
  public void release(Lease<B> lease) {
    Objects.requireNonNull(lease, "lease");
    if (lease.pool() != this) {
      throw new IllegalArgumentException(lease + " does not belong to this pool");
    }
    List<Runnable> later = new ArrayList<>();
    lock.lock();
    try {
      PoolEntry<B> e = lease.entry;
      if (!e.ended() && Objects.equals(e.sessions.get(lease.sessionId()), lease.serial)) {
        table.detach(e, lease.sessionId(), later);
      }
    } finally {
      lock.unlock();
    }
    EntryTable.runAll(later);
  }

  /**
   * Detaches {@code sessionId} from every entry it is attached to (also from starts it waits
   * for), through the reverse index. Idempotent.
   */
  public void releaseSession(String sessionId) {
    Objects.requireNonNull(sessionId, "sessionId");
    List<Runnable> later = new ArrayList<>();
    lock.lock();
    try {
      table.detachEverywhere(sessionId, later);
    } finally {
      lock.unlock();
    }
    EntryTable.runAll(later);
  }

  /**
   * Restarts every live entry of {@code serverName} (see the class documentation, "Restart by
   * name") and waits for the restarts. Own restarts run on the worker executor; a start already
   * in flight is joined, not repeated.
   *
   * @return one result per entry, ordered by connection id
   * @throws InterruptedException when interrupted while waiting; the restarts go on
   */
  public List<RestartResult> restartByName(String serverName) throws InterruptedException {
    Objects.requireNonNull(serverName, "serverName");
    record Target(String id, CompletableFuture<Outcome> outcome, boolean joined) {}
    List<Target> targets = new ArrayList<>();
    List<Runnable> later = new ArrayList<>();
    lock.lock();
    try {
      List<PoolEntry<B>> named = new ArrayList<>();
      for (PoolEntry<B> e : table.entries.values()) {
        if (e.key.serverName().equals(serverName)) {
          named.add(e);
        }
      }
      named.sort(Comparator.comparing(PoolEntry::id));
      for (PoolEntry<B> e : named) {
        if (e.startInFlight()) {
          targets.add(new Target(e.id(), e.inFlight, true));
        } else {
          e.restarts.reset();
          later.add(restarter.begin(e));
          LOG.info("restarting {} (generation {}) as asked", LogSafe.escape(e.id()), e.generation);
          targets.add(new Target(e.id(), e.inFlight, false));
        }
      }
    } finally {
      lock.unlock();
    }
    EntryTable.runAll(later);
    for (Target t : targets) {
      if (t.joined) {
        waitingHook.accept(t.id);
      }
    }
    List<RestartResult> results = new ArrayList<>();
    for (Target t : targets) {
      Outcome o;
      try {
        o = t.outcome.get();
      } catch (ExecutionException x) {
        throw new IllegalStateException("a pool start never completes exceptionally", x);
      }
      Optional<String> reason = !o.up()
          ? Optional.of(o.reason())
          : t.joined ? Optional.of("joined the start already in flight") : Optional.empty();
      results.add(new RestartResult(t.id, o.up(), reason));
    }
    return List.copyOf(results);
  }

  /**
   * Drains the pool: from now on every acquire throws {@link PoolException.Kind#CLOSED}. With
   * {@code force} every entry is closed at once, bypassing the drain grace (sessions still
   * attached are detached, their leases then throw {@code CLOSED}). Without it the entries keep
   * their lifecycle: each closes when its sessions have released and its idle timer ended. Then
   * the drain waits, up to {@code timeout} of real time, for every entry's backend close to
   * return (closes run in parallel on the worker executor). Entries still open at the
   * timeout are closed anyway and counted as {@code forced}, and so are entries whose close is
   * still running; the drain does not wait for those closes any longer. An entry whose start is
   * still in flight is closed, and its backend is closed the moment its start returns. The
   * drain also waits, within the same timeout, for the closes of entries that had ended before
   * it (an idle timer, a failed restart) and are still closing, without counting them: when it
   * returns, no backend the pool closed is still on its way down, unless the timeout ended.
   *
   * @return how many entries were drained within the timeout, how many were forced, and the
   *     errors of the closes that threw
   * @throws InterruptedException when interrupted while waiting; every entry is closed first
   */
  public DrainResult drainAll(boolean force, Duration timeout) throws InterruptedException {
    Objects.requireNonNull(timeout, "timeout");
    List<PoolEntry<B>> all;
    List<PoolEntry<B>> endedBefore;
    List<Runnable> later = new ArrayList<>();
    lock.lock();
    try {
      accepting = false;
      endedBefore = new ArrayList<>(table.unsettled);
      all = new ArrayList<>(table.entries.values());
      all.sort(Comparator.comparing(PoolEntry::id));
      if (force) {
        for (PoolEntry<B> e : all) {
          table.end(e, EntryState.CLOSED, PoolException.Kind.CLOSED, e.id() + " was closed: the pool is draining", null, later);
        }
      }
    } finally {
      lock.unlock();
    }
    EntryTable.runAll(later);
    LOG.debug("draining {} pool entries{}", all.size(), force ? ", forced" : "");
    waitingHook.accept(DRAIN);
    List<CompletableFuture<Void>> closes = new ArrayList<>();
    all.forEach(e -> closes.add(e.closed));
    endedBefore.forEach(e -> closes.add(e.closed));
    CompletableFuture<?> every = CompletableFuture.allOf(closes.toArray(CompletableFuture[]::new));
    try {
      every.get(Math.max(0, timeout.toNanos()), TimeUnit.NANOSECONDS);
    } catch (TimeoutException x) {
      // Counted below.
    } catch (InterruptedException ie) {
      table.closeAll(all, "the drain was interrupted");
      throw ie;
    } catch (ExecutionException x) {
      throw new IllegalStateException("an entry's close never completes exceptionally", x);
    }
    int drained = 0;
    int forced = 0;
    List<String> errors = new ArrayList<>();
    lock.lock();
    try {
      for (PoolEntry<B> e : all) {
        if (e.closed.isDone()) {
          drained++;
          e.closeErrors.forEach(m -> errors.add(e.id() + ": " + m));
        } else {
          forced++;
          table.end(e, EntryState.CLOSED, PoolException.Kind.CLOSED, e.id() + " was closed: the drain timeout ended", null, later);
        }
      }
    } finally {
      lock.unlock();
    }
    EntryTable.runAll(later);
    if (forced > 0) {
      LOG.warn("pool drain: {} entries closed within {}, {} still open at the timeout were forced", drained, timeout, forced);
    }
    return new DrainResult(drained, forced, errors);
  }

  /**
   * Drains every backend now, as {@link #drainAll}, and then accepts acquires again, so the next
   * session starts a backend afresh: what an operator's "drain the backends" means while the
   * gateway keeps serving. Acquires during the drain are refused ({@link PoolException.Kind#CLOSED}).
   * A pool {@link #close closed} meanwhile stays closed.
   */
  public DrainResult drainAndReopen(boolean force, Duration timeout) throws InterruptedException {
    try {
      return drainAll(force, timeout);
    } finally {
      lock.lock();
      try {
        if (!closedForGood) {
          accepting = true;
        }
      } finally {
        lock.unlock();
      }
    }
  }

  /**
   * The live entries, ordered by connection id. The backends' {@code pid}, {@code calls} and
   * {@code hazards} are read after the pool's lock is let go, so they may be a moment newer
   * than the rest; a backend whose accessor throws reports none.
   */
  public List<EntrySnapshot> accounting() {
    record Row(PoolEntry<?> e, EntryState state, int generation, int sessions, @Nullable PooledBackend backend, long upAt) {}
    List<Row> rows = new ArrayList<>();
    lock.lock();
    try {
      for (PoolEntry<B> e : table.entries.values()) {
        rows.add(new Row(e, e.state, e.generation, e.sessions.size(), e.backend, e.upAt));
      }
    } finally {
      lock.unlock();
    }
    List<EntrySnapshot> out = new ArrayList<>();
    for (Row r : rows) {
      OptionalLong pid = OptionalLong.empty();
      long calls = 0;
      int hazards = 0;
      PooledBackend b = r.backend;
      if (b != null) {
        try {
          pid = b.pid();
          calls = b.calls();
          hazards = b.hazards();
        } catch (RuntimeException x) {
          LOG.debug("the backend of {} could not report its accounting", LogSafe.escape(r.e.id()), x);
        }
      }
      out.add(new EntrySnapshot(r.e.id(), r.e.key.serverName(), r.state, r.generation, r.sessions, pid, calls, hazards,
          b == null ? OptionalLong.empty() : OptionalLong.of(r.upAt), r.e.placement, r.e.forced, r.e.reason));
    }
    out.sort(Comparator.comparing(EntrySnapshot::connectionId));
    return List.copyOf(out);
  }

  /** {@code drainAll(true, settings.closeTimeout())}; an interrupt is kept on the thread. */
  @Override
  public void close() {
    lock.lock();
    try {
      closedForGood = true;
    } finally {
      lock.unlock();
    }
    try {
      drainAll(true, settings.closeTimeout());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  // ---- test seams

  /**
   * Calls {@code hook} whenever a caller is about to wait: with the session id when an acquire
   * waits for a start in flight, with the connection id when {@link #restartByName} joins one,
   * and with {@value #DRAIN} when {@link #drainAll} begins to wait for the closes.
   */
  void onWaiting(Consumer<String> hook) {
    this.waitingHook = Objects.requireNonNull(hook, "hook");
  }

  /** How many sessions the reverse index of {@link #releaseSession} holds. */
  int indexedSessions() {
    lock.lock();
    try {
      return table.indexedSessions();
    } finally {
      lock.unlock();
    }
  }

  /** Whether the calling thread holds the pool's lock. */
  boolean lockHeldByCurrentThread() {
    return lock.isHeldByCurrentThread();
  }
}
