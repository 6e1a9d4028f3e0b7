package dev.cotenant.gateway.pool;

import dev.cotenant.api.LogSafe;
import dev.cotenant.api.ServerDescription;
import dev.cotenant.gateway.pool.PoolEntry.Outcome;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
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
 *   <li><b>Drain grace.</b> When the last session detaches from an entry that has had a backend
 *       up, the entry goes {@code DRAINING} and its idle timer starts; a session attaching
 *       cancels the timer (and the entry is {@code ACTIVE} again). When the timer ends with
 *       no session attached the entry closes: it leaves the pool and its backend is closed.
 *       A {@link Placement#DEDICATED} entry, whose key names its one session, has no grace: it
 *       closes as soon as that session leaves.
 *   <li><b>Hard idle cap, measured from the first idle moment.</b> The idle timer ends at
 *       {@code min(now + drainGrace, firstIdle + idleCap)}, computed each time the entry goes
 *       idle. {@code firstIdle} is set the first time the entry goes idle, and is moved to the
 *       present only when the entry goes idle after having been attached CONTINUOUSLY for at
 *       least one whole {@code drainGrace} (measured from the moment it last went from no
 *       session to some). Attaching and detaching briefly (flapping) therefore never moves it:
 *       an entry that keeps going idle and being re-attached for less than a grace closes once
 *       it is idle at {@code firstIdle + idleCap}; one that goes idle after that moment, still
 *       flapping, closes at once.
 *   <li><b>Generations.</b> Every start attempt of an entry has its own generation: 1 for the
 *       first, one more for each later attempt. {@link Lease#backend()} always returns the
 *       current backend; {@link Lease#current(int)} tells a caller whether a generation is
 *       still current, so it can drop a replaced backend's late events; the pool ignores
 *       {@link BackendEvents#exited} from any generation but the current one.
 *   <li><b>Restart on exit.</b> When the current backend reports an exit while sessions are
 *       attached, the pool restarts it on the worker executor: the dead backend is closed (to
 *       sweep its process tree), then the factory is called again, as a new generation, until
 *       a start succeeds or {@code restartAttempts} CONSECUTIVE attempts have failed; then the
 *       entry is {@code FAILED} (it leaves the pool, and its leases' {@link Lease#backend()}
 *       throws {@link PoolException.Kind#FAILED}). An attempt fails when the start throws (or
 *       returns {@code null}, or its backend reports an exit before the start returned), or
 *       when the backend it started exits less than one {@code drainGrace} after it came up
 *       (so a backend that dies right after every start cannot restart forever); a backend
 *       that stayed up at least that long starts the count afresh when it exits. Attempts
 *       follow each other at once; a factory that wants a back-off waits in
 *       {@link BackendFactory#start}. A second exit, or a {@link #restartByName}, while a
 *       restart is in flight joins that restart. When the current backend exits with no
 *       session attached, the entry just closes. While a restart is in flight
 *       {@link Lease#backend()} throws {@link PoolException.Kind#RESTARTING}
 *       ({@link Lease#awaitBackend} waits), and new acquires attach and wait for it. The pool
 *       replays nothing: what the calls in flight on a dead backend get is the backend's
 *       business (docs/pool.md: they fail as interrupted).
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

  private final BackendFactory<B> factory;
  private final PoolSettings settings;
  private final ScheduledExecutorService timers;
  private final Executor workers;
  private final LongSupplier clockMillis;

  private final ReentrantLock lock = new ReentrantLock();
  /** Live entries. Guarded by {@link #lock}. */
  private final Map<PoolKey, PoolEntry<B>> entries = new HashMap<>();
  /**
   * Entries that have ended but whose backend is still being closed (or whose start has not
   * returned): {@link #drainAll} waits for them too. Guarded by {@link #lock}.
   */
  private final Set<PoolEntry<B>> unsettled = new HashSet<>();
  /** Session id to the keys it is attached to. Guarded by {@link #lock}. */
  private final Map<String, Set<PoolKey>> sessionIndex = new HashMap<>();
  /** False once a drain began. Guarded by {@link #lock}. */
  private boolean accepting = true;
  /** Set by {@link #close}: a pool closed never accepts again, even after a {@link #drainAndReopen}. */
  private boolean closedForGood;
  /** Guarded by {@link #lock}. */
  private long attachSerial;

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
    this.factory = Objects.requireNonNull(factory, "factory");
    this.settings = Objects.requireNonNull(settings, "settings");
    this.timers = Objects.requireNonNull(timers, "timers");
    this.workers = Objects.requireNonNull(workers, "workers");
    this.clockMillis = Objects.requireNonNull(clockMillis, "clockMillis");
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
      e = entries.get(key);
      if (e == null) {
        if (entries.size() >= settings.spawnBudget()) {
          throw new PoolException(PoolException.Kind.BUDGET_EXHAUSTED,
              "the spawn budget of " + settings.spawnBudget() + " live backends (" + PoolSettings.SPAWN_BUDGET
                  + ") is exhausted: " + key.connectionId() + " was not started", null);
        }
        e = new PoolEntry<>(key, server, placement, forced, reason);
        e.starting = true;
        entries.put(key, e);
        starter = true;
      }
      e.forced |= forced;
      attachedHere = attach(e, sessionId);
      if (!e.startInFlight()) {
        return leaseOf(e, sessionId);
      }
    } finally {
      lock.unlock();
    }
    if (starter) {
      Throwable failure = attempt(e, 1);
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
          throw ended(e);
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
            detach(e, sessionId, later);
          } finally {
            lock.unlock();
          }
          runAll(later);
        }
        throw ie;
      } catch (ExecutionException x) {
        throw new IllegalStateException("a pool start never completes exceptionally", x);
      }
    }
  }

  /** A lease of an attached session on an entry that has a backend up. Under the lock. */
  private Lease<B> leaseOf(PoolEntry<B> e, String sessionId) {
    return new Lease<>(this, e, sessionId, e.sessions.get(sessionId), e.generation);
  }

  /** The exception an acquirer or a lease holder gets from an entry that ended. Under the lock. */
  private static PoolException ended(PoolEntry<?> e) {
    return new PoolException(Objects.requireNonNull(e.endKind), e.endReason, e.endCause);
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
        detach(e, lease.sessionId(), later);
      }
    } finally {
      lock.unlock();
    }
    runAll(later);
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
    } finally {
      lock.unlock();
    }
    runAll(later);
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
      for (PoolEntry<B> e : entries.values()) {
        if (e.key.serverName().equals(serverName)) {
          named.add(e);
        }
      }
      named.sort(Comparator.comparing(PoolEntry::id));
      for (PoolEntry<B> e : named) {
        if (e.startInFlight()) {
          targets.add(new Target(e.id(), e.inFlight, true));
        } else {
          e.failures = 0;
          B old = beginRestart(e);
          LOG.info("restarting {} (generation {}) as asked", LogSafe.escape(e.id()), e.generation);
          CompletableFuture<Outcome> restart = e.inFlight;
          later.add(() -> execute(() -> runRestart(e, old, restart)));
          targets.add(new Target(e.id(), e.inFlight, false));
        }
      }
    } finally {
      lock.unlock();
    }
    runAll(later);
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
      endedBefore = new ArrayList<>(unsettled);
      all = new ArrayList<>(entries.values());
      all.sort(Comparator.comparing(PoolEntry::id));
      if (force) {
        for (PoolEntry<B> e : all) {
          end(e, EntryState.CLOSED, PoolException.Kind.CLOSED, e.id() + " was closed: the pool is draining", null, later);
        }
      }
    } finally {
      lock.unlock();
    }
    runAll(later);
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
      closeRemaining(all, "the drain was interrupted");
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
          end(e, EntryState.CLOSED, PoolException.Kind.CLOSED, e.id() + " was closed: the drain timeout ended", null, later);
        }
      }
    } finally {
      lock.unlock();
    }
    runAll(later);
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

  private void closeRemaining(List<PoolEntry<B>> all, String why) {
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
      for (PoolEntry<B> e : entries.values()) {
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

  // ---- leases

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

  boolean isCurrent(PoolEntry<B> e, int generation) {
    lock.lock();
    try {
      return !e.ended() && e.backend != null && e.generation == generation;
    } finally {
      lock.unlock();
    }
  }

  // ---- starts and restarts

  /**
   * One start attempt of {@code generation} on this thread, without the lock, and its
   * bookkeeping.
   *
   * @return what the start threw, or {@code null}
   */
  private @Nullable Throwable attempt(PoolEntry<B> e, int generation) {
    B b = null;
    Throwable failure = null;
    try {
      b = factory.start(e.key, e.server, generation, new Events(e, generation));
      if (b == null) {
        failure = new IllegalStateException("the backend factory returned no backend");
      }
    } catch (Throwable t) {
      failure = t;
    }
    List<Runnable> later = new ArrayList<>();
    lock.lock();
    try {
      finish(e, b, failure, later);
    } finally {
      lock.unlock();
    }
    runAll(later);
    if (failure instanceof Error) {
      throw (Error) failure;
    }
    return failure;
  }

  /**
   * The bookkeeping of a start that returned {@code b} or threw {@code failure}: the backend
   * comes up, or the entry ends, or (a restart with attempts left) the start in flight stays
   * pending for the next attempt. Under the lock.
   */
  private void finish(PoolEntry<B> e, @Nullable B b, @Nullable Throwable failure, List<Runnable> later) {
    e.starting = false;
    String exited = e.exitedWhileStarting;
    e.exitedWhileStarting = null;
    if (e.ended()) {
      if (b != null) {
        LOG.debug("{} ended while its backend was starting; closing the backend", LogSafe.escape(e.id()));
        closeLater(e, b, later);
      }
      settleClosed(e);
      return;
    }
    if (b != null && failure == null && exited == null) {
      boolean restart = e.everUp;
      e.backend = b;
      e.upAt = clockMillis.getAsLong();
      e.restartedBackend = restart;
      e.everUp = true;
      if (e.sessions.isEmpty()) {
        e.state = EntryState.DRAINING;
        if (!e.idle) {
          goIdle(e, later);
        }
      } else {
        e.state = EntryState.ACTIVE;
      }
      LOG.info("{} is up (generation {}{})", LogSafe.escape(e.id()), e.generation, restart ? ", restarted" : "");
      e.inFlight.complete(new Outcome(true, ""));
      return;
    }
    if (b != null) {
      closeLater(e, b, later);
    }
    String why = failure != null ? describe(failure) : "it exited while starting: " + exited;
    if (!e.everUp) {
      end(e, EntryState.FAILED, PoolException.Kind.SPAWN_FAILED, "could not start " + e.id() + ": " + why, failure, later);
      return;
    }
    e.failures++;
    if (e.failures >= settings.restartAttempts() || failure instanceof InterruptedException) {
      end(e, EntryState.FAILED, PoolException.Kind.FAILED, e.id() + " failed: " + e.failures
          + " consecutive restart attempts failed, the last: " + why, failure, later);
      return;
    }
    LOG.warn("restart attempt {} of {} for {} failed: {}", e.failures, settings.restartAttempts(),
        LogSafe.escape(e.id()), LogSafe.escape(why));
  }

  /**
   * Begins a restart of {@code e}, which has no start in flight: the entry is
   * {@link EntryState#SPAWNING} with a new start in flight, and its backend is taken out to be
   * closed by the restart. Under the lock.
   */
  private @Nullable B beginRestart(PoolEntry<B> e) {
    B old = e.backend;
    e.backend = null;
    if (old != null) {
      e.pendingCloses++;
    }
    e.state = EntryState.SPAWNING;
    e.inFlight = new CompletableFuture<>();
    return old;
  }

  /**
   * Runs the restart begun by {@link #beginRestart} whose start in flight is {@code restart}:
   * closes the old backend, then attempts until the restart is done.
   */
  private void runRestart(PoolEntry<B> e, @Nullable B old, CompletableFuture<Outcome> restart) {
    if (old != null) {
      closeNow(e, old);
    }
    while (true) {
      int generation;
      lock.lock();
      try {
        if (e.ended() || restart.isDone()) {
          return;
        }
        generation = ++e.generation;
        e.starting = true;
      } finally {
        lock.unlock();
      }
      Throwable failure = attempt(e, generation);
      if (failure instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** The events of one generation of one entry. */
  private final class Events implements BackendEvents {
    private final PoolEntry<B> entry;
    private final int generation;

    Events(PoolEntry<B> entry, int generation) {
      this.entry = entry;
      this.generation = generation;
    }

    @Override
    public void exited(String reason) {
      onExited(entry, generation, reason == null ? "" : reason);
    }
  }

  private void onExited(PoolEntry<B> e, int generation, String reason) {
    List<Runnable> later = new ArrayList<>();
    lock.lock();
    try {
      exitedUnderLock(e, generation, reason, later);
    } finally {
      lock.unlock();
    }
    runAll(later);
  }

  private void exitedUnderLock(PoolEntry<B> e, int generation, String reason, List<Runnable> later) {
    if (e.ended() || generation != e.generation) {
      LOG.debug("ignoring the exit of {} generation {}: not current ({})", LogSafe.escape(e.id()), generation,
          LogSafe.escape(reason));
      return;
    }
    if (e.starting) {
      if (e.exitedWhileStarting == null) {
        e.exitedWhileStarting = reason;
      }
      return;
    }
    if (e.startInFlight() || e.backend == null) {
      return; // a restart is under way; this exit joins it
    }
    if (e.sessions.isEmpty()) {
      end(e, EntryState.CLOSED, PoolException.Kind.CLOSED,
          e.id() + " was closed: its backend exited with no session attached (" + reason + ")", null, later);
      return;
    }
    boolean early = e.restartedBackend && clockMillis.getAsLong() - e.upAt < settings.drainGrace().toMillis();
    e.failures = early ? e.failures + 1 : 0;
    if (e.failures >= settings.restartAttempts()) {
      end(e, EntryState.FAILED, PoolException.Kind.FAILED, e.id() + " failed: its backend exited within "
          + settings.drainGrace() + " of each of " + e.failures + " restarts, the last: " + reason, null, later);
      return;
    }
    LOG.info("the backend of {} (generation {}) exited with {} sessions attached; restarting: {}",
        LogSafe.escape(e.id()), generation, e.sessions.size(), LogSafe.escape(reason));
    B old = beginRestart(e);
    CompletableFuture<Outcome> restart = e.inFlight;
    later.add(() -> execute(() -> runRestart(e, old, restart)));
  }

  // ---- sessions and idleness (all under the lock)

  /** @return true when the session was not attached before */
  private boolean attach(PoolEntry<B> e, String sessionId) {
    if (e.sessions.containsKey(sessionId)) {
      return false;
    }
    if (e.sessions.isEmpty()) {
      e.attachedSince = clockMillis.getAsLong();
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

  private void detach(PoolEntry<B> e, String sessionId, List<Runnable> later) {
    if (e.sessions.remove(sessionId) == null) {
      return;
    }
    unindex(sessionId, e.key);
    if (e.sessions.isEmpty() && e.everUp && !e.ended()) {
      goIdle(e, later);
    }
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

  /** The entry has no session attached: sets its idle timer (see the class documentation). */
  private void goIdle(PoolEntry<B> e, List<Runnable> later) {
    long now = clockMillis.getAsLong();
    long grace = settings.drainGrace().toMillis();
    if (!e.hasFirstIdle || now - e.attachedSince >= grace) {
      e.hasFirstIdle = true;
      e.firstIdleAt = now;
    }
    long graceEnds = saturatedAdd(now, grace);
    long capEnds = saturatedAdd(e.firstIdleAt, settings.idleCap().toMillis());
    long deadline = Math.min(graceEnds, capEnds);
    e.idleEnd = capEnds <= graceEnds
        ? "the idle cap of " + settings.idleCap() + " from its first idle moment ended"
        : "the drain grace of " + settings.drainGrace() + " ended";
    if (e.placement == Placement.DEDICATED) {
      // Its key names its one session: no other can ever attach, so it ends with that session.
      deadline = now;
      e.idleEnd = "its session left (a dedicated backend serves one session)";
    }
    if (e.state == EntryState.ACTIVE) {
      e.state = EntryState.DRAINING;
    }
    e.idle = true;
    long seq = ++e.idleSeq;
    try {
      e.idleTimer = timers.schedule(() -> idleEnded(e, seq), Math.max(0, deadline - now), TimeUnit.MILLISECONDS);
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

  // ---- ending and closing

  /**
   * Ends {@code e}: it leaves the pool and the session index, its timer is cancelled, its
   * sessions are detached, its backend is handed to the worker executor to be closed, and the
   * start in flight (if any) is completed for its waiters. Idempotent. Under the lock.
   */
  private void end(PoolEntry<B> e, EntryState state, PoolException.Kind kind, String reason, @Nullable Throwable cause,
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

  /** Hands {@code b} to the worker executor to be closed. Under the lock. */
  private void closeLater(PoolEntry<B> e, B b, List<Runnable> later) {
    e.pendingCloses++;
    later.add(() -> execute(() -> closeNow(e, b)));
  }

  /** Closes {@code b} on this thread, without the lock, and settles the entry's count. */
  private void closeNow(PoolEntry<B> e, B b) {
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
  private void settleClosed(PoolEntry<?> e) {
    if (e.ended() && !e.starting && e.pendingCloses == 0) {
      e.closed.complete(null);
      unsettled.remove(e);
    }
  }

  private void execute(Runnable task) {
    try {
      workers.execute(task);
    } catch (RejectedExecutionException x) {
      task.run();
    }
  }

  private static void runAll(List<Runnable> tasks) {
    for (Runnable t : tasks) {
      t.run();
    }
  }

  private static String describe(Throwable t) {
    String m = t.getMessage();
    return m == null || m.isBlank() ? t.getClass().getSimpleName() : m;
  }

  private static long saturatedAdd(long a, long b) {
    long r = a + b;
    return ((a ^ r) & (b ^ r)) < 0 ? Long.MAX_VALUE : r;
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
      return sessionIndex.size();
    } finally {
      lock.unlock();
    }
  }

  /** Whether the calling thread holds the pool's lock. */
  boolean lockHeldByCurrentThread() {
    return lock.isHeldByCurrentThread();
  }
}
