package dev.cotenant.gateway.evaluation;

import dev.cotenant.api.ExecutionIdentity;
import dev.cotenant.api.LogSafe;
import dev.cotenant.api.ServerDescription;
import dev.cotenant.api.Transport;
import dev.cotenant.gateway.identity.IdentityResolver;
import dev.cotenant.spi.PreflightCache;
import dev.cotenant.spi.PreflightRecord;
import dev.cotenant.spi.PreflightResult;
import dev.cotenant.spi.PreflightTransport;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletionService;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorCompletionService;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.DoubleSupplier;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides which servers are worth a pre-flight and runs passes (docs/integration.md).
 *
 * <ul>
 *   <li>Only enabled stdio servers whose stored measurement is missing, under another identity,
 *       or a pre-flight that could not run are provoked; the steady state is a file read.
 *   <li>A {@linkplain #budgetedPass budgeted} pass (reached from a request) provokes at most
 *       {@link #BUDGET} servers and takes the pass lock only if it is free; otherwise it yields
 *       and the caller serves stored rows.
 *   <li>An {@linkplain #uncappedPass uncapped} pass provokes every due server and reports
 *       {@link Progress}; {@link #startUncapped} runs one as a background job. Its completed
 *       measurements reach the cache as they complete, batched: it flushes whenever some are
 *       waiting and {@link #FLUSH_INTERVAL} has passed since its last flush, and once more at
 *       the end, so a process killed mid-pass loses only the measurements in flight and those
 *       completed within the last interval.
 *   <li>A budgeted pass flushes once, at its end: no more file writes on a request path than
 *       that.
 *   <li>One pass at a time; a failure measuring one server resolves to that server being
 *       unmeasurable and never loses the others; cancellation propagates, after the
 *       measurements already paid for are flushed.
 * </ul>
 *
 * <p>A pre-flight that could not run leaves a row saying so ({@code ran: false}, its reason), so
 * every surface that reads the records shows why the server has no measurement
 * ({@code preflight_not_run}); such a row is not a measurement, and the server is attempted again
 * on the next pass (a credential may have appeared since). It never replaces a measurement whose
 * identity differs from the current one only in a binary fingerprint that has just become
 * {@code unknown}: an executable that is briefly unreadable (mid-install) must not discard a good
 * measurement. Thread-safe.
 */
public final class Evaluator {
  /** The most servers a budgeted pass provokes. */
  public static final int BUDGET = 2;

  /**
   * The longest completed measurements of an uncapped pass wait in memory before they are
   * flushed (and the shortest time between two of its flushes).
   */
  public static final Duration FLUSH_INTERVAL = Duration.ofSeconds(1);

  private static final Logger LOG = LoggerFactory.getLogger(Evaluator.class);

  /** How long a pass waits at its end for its workers' teardown (a cancelled pre-flight's). */
  public static final Duration WORKER_TEARDOWN = Duration.ofSeconds(10);

  /** No flush is due while waiting: wait for the next result however long it takes. */
  private static final long NEVER = Long.MAX_VALUE;

  private final PreflightTransport transport;
  private final PreflightCache cache;
  private final IdentityResolver identities;
  private final DoubleSupplier epochSeconds;
  private final int parallelism;
  private final LongSupplier nanoTime;
  private final ReentrantLock passLock = new ReentrantLock();
  private final AtomicReference<Progress> progress = new AtomicReference<>(Progress.IDLE);
  /** The names of the servers whose pre-flight runs now. */
  private final java.util.Set<String> measuring = java.util.concurrent.ConcurrentHashMap.newKeySet();

  /**
   * An evaluator.
   *
   * @param transport the pre-flight transport (its own ceiling bounds processes)
   * @param cache the pre-flight cache rows are written to
   * @param identities current launch identities
   * @param epochSeconds the clock stamped into rows
   * @param parallelism servers measured at once within a pass (at least 1)
   */
  public Evaluator(
      PreflightTransport transport,
      PreflightCache cache,
      IdentityResolver identities,
      DoubleSupplier epochSeconds,
      int parallelism) {
    this(transport, cache, identities, epochSeconds, parallelism, System::nanoTime);
  }

  /** As the public constructor, with the monotonic clock that times the batched flushes. */
  Evaluator(
      PreflightTransport transport,
      PreflightCache cache,
      IdentityResolver identities,
      DoubleSupplier epochSeconds,
      int parallelism,
      LongSupplier nanoTime) {
    if (parallelism < 1) {
      throw new IllegalArgumentException("parallelism must be at least 1, got " + parallelism);
    }
    this.transport = transport;
    this.cache = cache;
    this.identities = identities;
    this.epochSeconds = epochSeconds;
    this.parallelism = parallelism;
    this.nanoTime = nanoTime;
  }

  /** The progress of the current or last uncapped pass. */
  public Progress progress() {
    return progress.get();
  }

  /** The names of the servers being measured now, in name order; empty between passes. */
  public List<String> measuring() {
    return measuring.stream().sorted().toList();
  }

  /** True while some pass holds the pass lock. */
  public boolean passRunning() {
    return passLock.isLocked();
  }

  /**
   * The servers a pass would provoke, in the given order: enabled stdio servers whose stored
   * row is missing, was taken under another identity, or says the pre-flight could not run.
   */
  public List<ServerDescription> due(Collection<ServerDescription> servers, PreflightCache.Snapshot stored) {
    List<ServerDescription> out = new ArrayList<>();
    for (ServerDescription s : servers) {
      if (!s.enabled() || s.transport() != Transport.STDIO) {
        continue;
      }
      PreflightRecord row = stored.rows().get(s.name());
      if (row == null || !row.ran() || !row.identity().equals(identities.identify(s).cacheKey())) {
        out.add(s);
      }
    }
    return out;
  }

  /**
   * A pass reached from a request: at most {@link #BUDGET} servers, and only if no other pass
   * is running.
   *
   * @return the pass's result, or empty when another pass held the lock (serve stored rows)
   */
  public Optional<PassResult> budgetedPass(Collection<ServerDescription> servers)
      throws IOException, InterruptedException {
    if (!passLock.tryLock()) {
      return Optional.empty();
    }
    try {
      return Optional.of(run(servers, BUDGET, false));
    } finally {
      passLock.unlock();
    }
  }

  /** An uncapped pass over every due server, waiting for a running pass to finish first. */
  public PassResult uncappedPass(Collection<ServerDescription> servers) throws IOException, InterruptedException {
    passLock.lockInterruptibly();
    try {
      return run(servers, Integer.MAX_VALUE, true);
    } finally {
      passLock.unlock();
    }
  }

  /** Starts an uncapped pass on a background thread. */
  public MeasureJob startUncapped(Collection<ServerDescription> servers) {
    List<ServerDescription> copy = List.copyOf(servers);
    return MeasureJob.start(this, () -> uncappedPass(copy));
  }

  /**
   * Runs one pass; the caller holds the pass lock.
   *
   * @param uncapped true for an uncapped pass, which tracks {@link #progress} and flushes as it
   *     goes; false for a budgeted one, which flushes once, at its end
   */
  private PassResult run(Collection<ServerDescription> servers, int cap, boolean uncapped)
      throws IOException, InterruptedException {
    PreflightCache.Snapshot stored = cache.load();
    List<ServerDescription> due = due(servers, stored);
    if (due.size() > cap) {
      due = due.subList(0, cap);
    }
    Pass pass = new Pass(uncapped, due.size(), stored);
    if (uncapped) {
      progress.set(new Progress(true, 0, 0, pass.total));
    }
    ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, Math.min(parallelism, pass.total)), daemonThreads());
    try {
      CompletionService<Measured> done = new ExecutorCompletionService<>(pool);
      for (ServerDescription s : due) {
        done.submit(() -> measure(s));
      }
      try {
        while (pass.received < pass.total) {
          long wait = pass.nanosUntilFlush();
          Future<Measured> f = wait == NEVER ? done.take() : done.poll(wait, TimeUnit.NANOSECONDS);
          if (f != null) {
            pass.add(result(f));
          }
          pass.flushIfDue();
        }
      } catch (InterruptedException e) {
        // Measurements that completed before the cancellation were paid for: keep them.
        Future<Measured> f;
        while ((f = done.poll()) != null) {
          try {
            pass.add(f.get());
          } catch (ExecutionException | java.util.concurrent.CancellationException ignored) {
            // the worker was cancelled with the pass
          }
        }
        throw e;
      }
    } finally {
      pool.shutdownNow();
      awaitWorkers(pool);
      if (uncapped) {
        Progress p = progress.get();
        progress.set(new Progress(false, p.done(), p.measured(), p.total()));
      }
      pass.flushPending();
    }
    return new PassResult(pass.attempted, new Progress(false, pass.attempted.size(), pass.measured, pass.total));
  }

  /**
   * One pass's state, confined to the thread running it: what it received, and when its stored
   * rows are flushed. An uncapped pass flushes whenever rows are pending and
   * {@link #FLUSH_INTERVAL} has passed since its last flush (its start, before the first); every
   * pass flushes what is pending at its end.
   */
  private final class Pass {
    final boolean uncapped;
    final int total;
    final Map<String, PreflightResult> attempted = new LinkedHashMap<>();
    int received;
    int measured;
    /** Rows stored since the last successful flush. */
    boolean pending;
    long lastFlush = nanoTime.getAsLong();
    boolean warned;

    final PreflightCache.Snapshot stored;

    Pass(boolean uncapped, int total, PreflightCache.Snapshot stored) {
      this.uncapped = uncapped;
      this.total = total;
      this.stored = stored;
    }

    /** Takes one result in: its row (a measurement, or why it could not run) is stored and becomes pending. */
    void add(Measured m) {
      received++;
      attempted.put(m.server().name(), m.result());
      if (store(m, stored)) {
        measured += m.result().ran() ? 1 : 0;
        pending = true;
      }
      if (uncapped) {
        progress.set(new Progress(true, received, measured, total));
      }
    }

    /** How long the next result may be waited for before a flush is due; {@link #NEVER} when none will be. */
    long nanosUntilFlush() {
      if (!uncapped || !pending) {
        return NEVER;
      }
      return Math.max(0, FLUSH_INTERVAL.toNanos() - (nanoTime.getAsLong() - lastFlush));
    }

    /**
     * Flushes when a flush is due. A failure does not end the pass: the rows stay pending in the
     * cache and a later flush writes them; the one at the pass's end propagates its failure.
     */
    void flushIfDue() {
      if (nanosUntilFlush() != 0) {
        return;
      }
      try {
        flush();
      } catch (IOException e) {
        if (!warned) {
          warned = true;
          LOG.warn("the pre-flight cache could not be written ({}); the measurements stay in memory for the next "
              + "flush of this pass", LogSafe.escape(describe(e)));
        }
      }
      lastFlush = nanoTime.getAsLong();
    }

    /** The flush at the pass's end, also after a cancellation or a failure. */
    void flushPending() throws IOException {
      if (pending) {
        flush();
      }
    }

    /**
     * Flushes the cache. A cancellation that interrupts the write (an interruptible file channel
     * gives up when its thread is interrupted) does not lose what was paid for: the flush is
     * retried with the interrupt cleared, and the interrupt is restored for the pass to see.
     */
    private void flush() throws IOException {
      boolean interrupted = false;
      try {
        for (;;) {
          try {
            cache.flush();
            pending = false;
            return;
          } catch (IOException e) {
            if (!Thread.interrupted()) {
              throw e;
            }
            interrupted = true;
          }
        }
      } finally {
        if (interrupted) {
          Thread.currentThread().interrupt();
        }
      }
    }
  }

  /**
   * Puts the row of a pre-flight: a measurement when it ran, otherwise a row saying it could not
   * run and why (see the class comment for the one row it never replaces). Returns true when a
   * row was put.
   */
  private boolean store(Measured m, PreflightCache.Snapshot stored) {
    if (!m.result().ran()) {
      if (m.identity() == null || keepsAMeasurementThroughAnUnreadableBinary(stored.rows().get(m.server().name()), m.identity())) {
        return false;
      }
      String why = m.result().notRunReason().isBlank() ? "the pre-flight could not run" : m.result().notRunReason();
      cache.put(
          new PreflightRecord(
              m.server().name(), m.identity().cacheKey(), false, false, List.of(why), epochSeconds.getAsDouble(),
              Optional.empty(), Optional.empty()));
      return true;
    }
    cache.put(
        new PreflightRecord(
            m.server().name(),
            m.identity().cacheKey(),
            true,
            m.result().callerSensitive(),
            m.result().divergentFacets(),
            epochSeconds.getAsDouble(),
            m.result().handshake().flatMap(h -> h.reportedVersion()),
            m.result().handshake(),
            m.result().start(),
            m.result().startNotRecorded()));
    return true;
  }

  /**
   * True when {@code row} is a measurement that ran under an identity differing from {@code now}
   * only in the binary fingerprint, which is {@code unknown} now: the executable is briefly
   * unreadable, and a pre-flight that could not run then must not replace the measurement.
   */
  static boolean keepsAMeasurementThroughAnUnreadableBinary(PreflightRecord row, ExecutionIdentity now) {
    if (row == null || !row.ran() || !ExecutionIdentity.UNKNOWN_BINARY.equals(now.binaryVersion())) {
      return false;
    }
    ExecutionIdentity then;
    try {
      then = ExecutionIdentity.parseCacheKey(row.identity());
    } catch (IllegalArgumentException e) {
      return false;
    }
    return !ExecutionIdentity.UNKNOWN_BINARY.equals(then.binaryVersion())
        && then.serverName().equals(now.serverName())
        && then.commandArgsHash().equals(now.commandArgsHash())
        && then.envHash().equals(now.envHash())
        && then.schema().equals(now.schema());
  }

  /**
   * Waits, up to {@link #WORKER_TEARDOWN}, for the pass's workers to end. A cancelled pre-flight
   * tears its server's processes down on its worker's thread, so the pass returns only once they
   * are gone: a host that cancels a pass and then exits leaves no server behind. A second
   * interrupt does not cut the wait short; the interrupt is kept for the caller.
   */
  private static void awaitWorkers(ExecutorService pool) {
    boolean interrupted = Thread.interrupted();
    long deadline = System.nanoTime() + WORKER_TEARDOWN.toNanos();
    try {
      while (true) {
        try {
          if (!pool.awaitTermination(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
            LOG.warn("the pass's workers did not end within {} s of its end; the teardown of their servers goes on "
                + "without it", WORKER_TEARDOWN.toSeconds());
          }
          return;
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private static Measured result(Future<Measured> f) throws InterruptedException {
    try {
      return f.get();
    } catch (ExecutionException e) {
      // measure() catches everything but cancellation; an ExecutionException here means the
      // worker itself was interrupted, which is cancellation of the pass.
      throw new InterruptedException("pass cancelled: " + e.getCause());
    }
  }

  private Measured measure(ServerDescription server) throws InterruptedException {
    ExecutionIdentity identity;
    try {
      identity = identities.identify(server);
    } catch (RuntimeException e) {
      return new Measured(server, null, PreflightResult.notRun("identity could not be computed: " + LogSafe.escape(describe(e), 160)));
    }
    measuring.add(server.name());
    try {
      return new Measured(server, identity, transport.preflight(server));
    } catch (InterruptedException e) {
      throw e;
    } catch (RuntimeException | StackOverflowError e) {
      // Every facet is JSON the server chose; a failure measuring one server never escapes.
      LOG.warn("pre-flight of {} failed: {}", LogSafe.escape(server.name()), LogSafe.escape(describe(e)));
      return new Measured(server, identity, PreflightResult.notRun("measurement failed: " + LogSafe.escape(describe(e), 160)));
    } finally {
      measuring.remove(server.name());
    }
  }

  private static String describe(Throwable e) {
    String m = e.getMessage();
    return e.getClass().getSimpleName() + (m == null ? "" : ": " + m);
  }

  private static java.util.concurrent.ThreadFactory daemonThreads() {
    return r -> {
      Thread t = new Thread(r, "cotenant-preflight");
      t.setDaemon(true);
      return t;
    };
  }

  private record Measured(ServerDescription server, ExecutionIdentity identity, PreflightResult result) {}
}
