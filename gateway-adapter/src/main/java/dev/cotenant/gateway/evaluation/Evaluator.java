package dev.cotenant.gateway.evaluation;

import dev.cotenant.api.ExecutionIdentity;
import dev.cotenant.api.LogSafe;
import dev.cotenant.api.ServerDescription;
import dev.cotenant.api.Transport;
import dev.cotenant.spi.PreflightCache;
import dev.cotenant.spi.PreflightRecord;
import dev.cotenant.spi.PreflightResult;
import dev.cotenant.spi.PreflightTransport;
import java.io.IOException;
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
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.DoubleSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides which servers are worth a pre-flight and runs passes (DESIGN §6).
 *
 * <ul>
 *   <li>Only enabled stdio servers whose stored measurement is missing or under another identity
 *       are provoked; the steady state is a file read.
 *   <li>A {@linkplain #budgetedPass budgeted} pass (reached from a request) provokes at most
 *       {@link #BUDGET} servers and takes the pass lock only if it is free; otherwise it yields
 *       and the caller serves stored rows.
 *   <li>An {@linkplain #uncappedPass uncapped} pass provokes every due server and reports
 *       {@link Progress}; {@link #startUncapped} runs one as a background job.
 *   <li>One pass at a time; one flush per pass; a failure measuring one server resolves to that
 *       server being unmeasurable and never loses the others; cancellation propagates, after
 *       the measurements already paid for are flushed.
 * </ul>
 *
 * <p>A pre-flight that could not run leaves no row: the server is attempted again on the next
 * pass (a credential may have appeared since). Thread-safe.
 */
public final class Evaluator {
  /** The most servers a budgeted pass provokes. */
  public static final int BUDGET = 2;

  private static final Logger LOG = LoggerFactory.getLogger(Evaluator.class);

  private final PreflightTransport transport;
  private final PreflightCache cache;
  private final IdentityResolver identities;
  private final DoubleSupplier epochSeconds;
  private final int parallelism;
  private final ReentrantLock passLock = new ReentrantLock();
  private final AtomicReference<Progress> progress = new AtomicReference<>(Progress.IDLE);

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
    if (parallelism < 1) {
      throw new IllegalArgumentException("parallelism must be at least 1, got " + parallelism);
    }
    this.transport = transport;
    this.cache = cache;
    this.identities = identities;
    this.epochSeconds = epochSeconds;
    this.parallelism = parallelism;
  }

  /** The progress of the current or last uncapped pass. */
  public Progress progress() {
    return progress.get();
  }

  /** True while some pass holds the pass lock. */
  public boolean passRunning() {
    return passLock.isLocked();
  }

  /**
   * The servers a pass would provoke, in the given order: enabled stdio servers whose stored
   * row is missing or was taken under another identity.
   */
  public List<ServerDescription> due(Collection<ServerDescription> servers, PreflightCache.Snapshot stored) {
    List<ServerDescription> out = new ArrayList<>();
    for (ServerDescription s : servers) {
      if (!s.enabled() || s.transport() != Transport.STDIO) {
        continue;
      }
      PreflightRecord row = stored.rows().get(s.name());
      if (row == null || !row.identity().equals(identities.identify(s).cacheKey())) {
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

  private PassResult run(Collection<ServerDescription> servers, int cap, boolean track)
      throws IOException, InterruptedException {
    PreflightCache.Snapshot stored = cache.load();
    List<ServerDescription> due = due(servers, stored);
    if (due.size() > cap) {
      due = due.subList(0, cap);
    }
    int total = due.size();
    if (track) {
      progress.set(new Progress(true, 0, 0, total));
    }
    Map<String, PreflightResult> attempted = new LinkedHashMap<>();
    int measured = 0;
    boolean putAny = false;
    ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, Math.min(parallelism, total)), daemonThreads());
    try {
      CompletionService<Measured> done = new ExecutorCompletionService<>(pool);
      List<Future<Measured>> futures = new ArrayList<>();
      for (ServerDescription s : due) {
        futures.add(done.submit(() -> measure(s)));
      }
      try {
        for (int i = 0; i < futures.size(); i++) {
          Measured m = take(done);
          attempted.put(m.server.name(), m.result);
          if (store(m)) {
            putAny = true;
            measured++;
          }
          if (track) {
            progress.set(new Progress(true, i + 1, measured, total));
          }
        }
      } catch (InterruptedException e) {
        // Measurements that completed before the cancellation were paid for: keep them.
        Future<Measured> f;
        while ((f = done.poll()) != null) {
          Measured m;
          try {
            m = f.get();
          } catch (ExecutionException | java.util.concurrent.CancellationException ignored) {
            continue;
          }
          attempted.put(m.server.name(), m.result);
          if (store(m)) {
            putAny = true;
            measured++;
          }
          if (track) {
            progress.set(new Progress(true, attempted.size(), measured, total));
          }
        }
        throw e;
      }
    } finally {
      pool.shutdownNow();
      if (track) {
        Progress p = progress.get();
        progress.set(new Progress(false, p.done(), p.measured(), p.total()));
      }
      if (putAny) {
        cache.flush();
      }
    }
    return new PassResult(attempted, new Progress(false, attempted.size(), measured, total));
  }

  /** Puts the row of a pre-flight that ran; returns true when it did. */
  private boolean store(Measured m) {
    if (!m.result.ran()) {
      return false;
    }
    cache.put(
        new PreflightRecord(
            m.server.name(),
            m.identity.cacheKey(),
            true,
            m.result.callerSensitive(),
            m.result.divergentFacets(),
            epochSeconds.getAsDouble(),
            m.result.handshake().flatMap(h -> h.reportedVersion()),
            m.result.handshake()));
    return true;
  }

  private static Measured take(CompletionService<Measured> done) throws InterruptedException {
    try {
      return done.take().get();
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
    try {
      return new Measured(server, identity, transport.preflight(server));
    } catch (InterruptedException e) {
      throw e;
    } catch (RuntimeException | StackOverflowError e) {
      // Every facet is JSON the server chose; a failure measuring one server never escapes.
      LOG.warn("pre-flight of {} failed: {}", LogSafe.escape(server.name()), LogSafe.escape(describe(e)));
      return new Measured(server, identity, PreflightResult.notRun("measurement failed: " + LogSafe.escape(describe(e), 160)));
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

  private static final class Measured {
    final ServerDescription server;
    final ExecutionIdentity identity;
    final PreflightResult result;

    Measured(ServerDescription server, ExecutionIdentity identity, PreflightResult result) {
      this.server = server;
      this.identity = identity;
      this.result = result;
    }
  }
}
