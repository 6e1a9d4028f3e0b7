package dev.cotenant.gateway.pool;

import dev.cotenant.api.LogSafe;
import dev.cotenant.gateway.pool.PoolEntry.Outcome;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How a {@link TransportPool} starts its backends, and starts again the ones that died: the start
 * attempts, their generations, and the bookkeeping of each attempt's end, under the entry's
 * {@link RestartPolicy}.
 *
 * <ul>
 *   <li><b>Generations.</b> Every start attempt of an entry has its own generation: 1 for the
 *       first, one more for each later attempt. The pool ignores {@link BackendEvents#exited}
 *       from any generation but the current one.
 *   <li><b>Restart on exit.</b> When the current backend reports an exit while sessions are
 *       attached, the entry is restarted on the worker executor: the dead backend is closed (to
 *       sweep its process tree), then the factory is called again, as a new generation, for as
 *       long as the {@link RestartPolicy} allows; then the entry is {@link EntryState#FAILED}.
 *       Attempts follow each other at once; a factory that wants a back-off waits in
 *       {@link BackendFactory#start}. A second exit, or an operator's restart, while a restart is
 *       in flight joins that restart. When the current backend exits with no session attached,
 *       the entry just closes.
 *   <li><b>An entry that ended meanwhile</b> (its idle timer, a drain) keeps no backend: the one
 *       a start returns then is closed at once.
 * </ul>
 *
 * Each attempt calls the factory on the calling thread without the table's lock. Interrupting the
 * thread that runs a restart fails its entry.
 *
 * @param <B> the backends the pool manages
 */
final class Restarter<B extends PooledBackend> {
  // The pool's own category: its log lines read the same whichever part writes them.
  private static final Logger LOG = LoggerFactory.getLogger(TransportPool.class);

  private final BackendFactory<B> factory;
  private final EntryTable<B> table;

  Restarter(BackendFactory<B> factory, EntryTable<B> table) {
    this.factory = Objects.requireNonNull(factory, "factory");
    this.table = Objects.requireNonNull(table, "table");
  }

  /**
   * One start attempt of {@code generation} on this thread, without the lock, and its
   * bookkeeping.
   *
   * @return what the start threw, or {@code null}
   */
  @Nullable Throwable attempt(PoolEntry<B> e, int generation) {
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
    table.lock.lock();
    try {
      finish(e, b, failure, later);
    } finally {
      table.lock.unlock();
    }
    EntryTable.runAll(later);
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
        table.closeLater(e, b, later);
      }
      table.settleClosed(e);
      return;
    }
    if (b != null && failure == null && exited == null) {
      boolean restart = e.everUp;
      e.backend = b;
      e.upAt = table.now();
      e.restartedBackend = restart;
      e.everUp = true;
      if (e.sessions.isEmpty()) {
        e.state = EntryState.DRAINING;
        if (!e.idle) {
          table.goIdle(e, later);
        }
      } else {
        e.state = EntryState.ACTIVE;
      }
      LOG.info("{} is up (generation {}{})", LogSafe.escape(e.id()), e.generation, restart ? ", restarted" : "");
      e.inFlight.complete(new Outcome(true, ""));
      return;
    }
    if (b != null) {
      table.closeLater(e, b, later);
    }
    String why = failure != null ? EntryTable.describe(failure) : "it exited while starting: " + exited;
    if (!e.everUp) {
      table.end(e, EntryState.FAILED, PoolException.Kind.SPAWN_FAILED, "could not start " + e.id() + ": " + why, failure,
          later);
      return;
    }
    String failed = e.restarts.attemptFailed(e.id(), why, failure instanceof InterruptedException);
    if (failed != null) {
      table.end(e, EntryState.FAILED, PoolException.Kind.FAILED, failed, failure, later);
      return;
    }
    LOG.warn("restart attempt {} of {} for {} failed: {}", e.restarts.failures(), e.restarts.attempts(),
        LogSafe.escape(e.id()), LogSafe.escape(why));
  }

  /**
   * Begins a restart of {@code e}, which has no start in flight: the entry is
   * {@link EntryState#SPAWNING} with a new start in flight, and its backend is taken out to be
   * closed by the restart. Under the lock.
   *
   * @return the restart's work, to run on the worker executor once the lock is let go
   */
  Runnable begin(PoolEntry<B> e) {
    B old = e.backend;
    e.backend = null;
    if (old != null) {
      e.pendingCloses++;
    }
    e.state = EntryState.SPAWNING;
    CompletableFuture<Outcome> restart = new CompletableFuture<>();
    e.inFlight = restart;
    return () -> table.execute(() -> run(e, old, restart));
  }

  /**
   * Runs the restart begun by {@link #begin} whose start in flight is {@code restart}: closes the
   * old backend, then attempts until the restart is done.
   */
  private void run(PoolEntry<B> e, @Nullable B old, CompletableFuture<Outcome> restart) {
    if (old != null) {
      table.closeNow(e, old);
    }
    while (true) {
      int generation;
      table.lock.lock();
      try {
        if (e.ended() || restart.isDone()) {
          return;
        }
        generation = ++e.generation;
        e.starting = true;
      } finally {
        table.lock.unlock();
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
      List<Runnable> later = new ArrayList<>();
      table.lock.lock();
      try {
        exitedUnderLock(entry, generation, reason == null ? "" : reason, later);
      } finally {
        table.lock.unlock();
      }
      EntryTable.runAll(later);
    }
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
      table.end(e, EntryState.CLOSED, PoolException.Kind.CLOSED,
          e.id() + " was closed: its backend exited with no session attached (" + reason + ")", null, later);
      return;
    }
    String failed = e.restarts.exited(e.id(), table.now(), e.upAt, e.restartedBackend, reason);
    if (failed != null) {
      table.end(e, EntryState.FAILED, PoolException.Kind.FAILED, failed, null, later);
      return;
    }
    LOG.info("the backend of {} (generation {}) exited with {} sessions attached; restarting: {}",
        LogSafe.escape(e.id()), generation, e.sessions.size(), LogSafe.escape(reason));
    later.add(begin(e));
  }
}
