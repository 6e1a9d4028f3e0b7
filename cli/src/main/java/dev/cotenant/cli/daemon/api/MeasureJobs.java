package dev.cotenant.cli.daemon.api;

import dev.cotenant.api.LogSafe;
import dev.cotenant.api.ServerDescription;
import dev.cotenant.cli.steps.MeasurePass;
import dev.cotenant.cli.views.Output;
import dev.cotenant.gateway.Cotenant;
import dev.cotenant.gateway.evaluation.MeasureJob;
import dev.cotenant.gateway.evaluation.Progress;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The API's measure jobs: at most one uncapped pass at a time on the daemon's runtime (each on
 * an evaluator of its own, so its progress starts at zero), its progress as the contract's object,
 * cancellation, and a watcher that stamps when it ended and how. Thread-safe.
 */
final class MeasureJobs implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(MeasureJobs.class);

  /** How long closing waits for a cancelled job to tear its processes down. */
  static final long CLOSE_WAIT_MS = 15_000;

  private final Cotenant cotenant;
  private @Nullable Job current;
  private boolean closed;

  MeasureJobs(Cotenant cotenant) {
    this.cotenant = cotenant;
  }

  /** One job and what became of it. */
  private static final class Job {
    final MeasureJob job;
    final Instant startedAt = Instant.now();
    volatile @Nullable Instant finishedAt;
    volatile boolean cancelled;
    volatile @Nullable String error;

    Job(MeasureJob job) {
      this.job = job;
    }

    boolean running() {
      return finishedAt == null;
    }
  }

  /**
   * Starts a pass over {@code servers}.
   *
   * @throws ApiError {@code measure_running} when a job runs
   */
  synchronized ObjectNode start(List<ServerDescription> servers) throws ApiError {
    if (closed) {
      throw new ApiError(503, "internal", "the daemon is stopping");
    }
    if (current != null && current.running()) {
      throw new ApiError(409, "measure_running", "a measure job runs already (started " + current.startedAt
          + "); wait for it, or cancel it with DELETE /api/measure");
    }
    Job job = new Job(MeasurePass.start(cotenant, servers));
    current = job;
    Thread watcher = new Thread(() -> watch(job), "cotenant-api-measure");
    watcher.setDaemon(true);
    watcher.start();
    return progress(job);
  }

  private void watch(Job job) {
    try {
      for (;;) {
        try {
          Optional<?> done = job.job.await(1, TimeUnit.HOURS);
          if (done.isPresent()) {
            break;
          }
        } catch (MeasureJob.JobFailedException e) {
          if (!e.cancelled()) {
            job.error = e.getMessage();
            LOG.warn("the measure job failed: {}", LogSafe.escape(String.valueOf(e.getMessage()), 500));
          }
          break;
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      job.finishedAt = Instant.now();
    }
  }

  /** The progress of the current or last job; all zeros before any. */
  synchronized ObjectNode progress() {
    return progress(current);
  }

  /**
   * Cancels the running job.
   *
   * @throws ApiError {@code not_found} when none runs
   */
  synchronized ObjectNode cancel() throws ApiError {
    Job job = current;
    if (job == null || !job.running()) {
      throw ApiError.notFound("no measure job runs");
    }
    job.cancelled = true;
    job.job.cancel();
    return progress(job);
  }

  private static ObjectNode progress(@Nullable Job job) {
    ObjectNode o = Output.object();
    Progress p = job == null ? Progress.IDLE : job.job.progress();
    o.put("running", job != null && job.running());
    o.put("done", p.done());
    o.put("measured", p.measured());
    o.put("total", p.total());
    ArrayNode current = o.putArray("current");
    if (job != null && job.running()) {
      job.job.measuring().forEach(current::add);
    }
    o.put("cancelled", job != null && job.cancelled);
    JobJson.putTimes(o, job == null ? null : job.error, job == null ? null : job.startedAt,
        job == null ? null : job.finishedAt);
    return o;
  }

  /** Refuses new jobs, cancels the running one and waits (bounded) for it to tear down. */
  @Override
  public void close() {
    Job job;
    synchronized (this) {
      closed = true;
      job = current;
    }
    if (job == null || job.job.isDone()) {
      return;
    }
    job.cancelled = true;
    job.job.cancel();
    try {
      job.job.await(CLOSE_WAIT_MS, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (MeasureJob.JobFailedException e) {
      // cancelled, as asked
    }
  }
}
