package dev.cotenant.cli.daemon.api;

import dev.cotenant.api.LogSafe;
import dev.cotenant.api.ServerDescription;
import dev.cotenant.cli.steps.MeasurePass;
import dev.cotenant.cli.steps.ShareSteps;
import dev.cotenant.cli.views.IoFailure;
import dev.cotenant.cli.views.Output;
import dev.cotenant.gateway.Cotenant;
import dev.cotenant.gateway.config.ConfiguredServer;
import dev.cotenant.gateway.evaluation.MeasureJob;
import dev.cotenant.gateway.evaluation.PassResult;
import dev.cotenant.gateway.probe.ProbePlan;
import dev.cotenant.gateway.probe.SurfaceReport;
import dev.cotenant.gateway.rows.Row;
import dev.cotenant.gateway.sharing.Sharing;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The API's share jobs: what {@code cotenant share NAME} does ({@link ShareSteps}, the same code),
 * run on the daemon's runtime on a thread of its own, at most one at a time, each step kept as it
 * is done so that {@code GET /api/share} shows the steps as they come. When a job ends the pool is
 * told the records changed (a registration, or a hazard the probe recorded, decides the next
 * session's placement at once). Thread-safe.
 */
final class ShareJobs implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ShareJobs.class);

  /** How long closing waits for a running job to tear its processes down. */
  static final long CLOSE_WAIT_MS = 15_000;

  private final Cotenant cotenant;
  private final Sharing sharing;
  private @Nullable Job current;
  private boolean closed;

  ShareJobs(Cotenant cotenant, Sharing sharing) {
    this.cotenant = cotenant;
    this.sharing = sharing;
  }

  /** One job and what became of it; its fields are read under the jobs' lock. */
  private static final class Job {
    final String server;
    final Instant startedAt = Instant.now();
    final List<ObjectNode> steps = new ArrayList<>();
    @Nullable String doing;
    @Nullable ObjectNode result;
    @Nullable Integer exitStatus;
    @Nullable String error;
    @Nullable Instant finishedAt;
    @Nullable Thread thread;

    Job(String server) {
      this.server = server;
    }
  }

  /**
   * Starts sharing {@code target}.
   *
   * @param withPlan the command that runs it again with a plan, for a probe that proves nothing
   * @throws ApiError {@code share_running} when a job runs
   */
  synchronized ObjectNode start(ConfiguredServer target, int rounds, OptionalInt maxConcurrent, String withPlan)
      throws ApiError {
    if (closed) {
      throw new ApiError(503, "internal", "the daemon is stopping");
    }
    Job running = current;
    if (running != null && running.finishedAt == null) {
      throw new ApiError(409, "share_running", "a share of '" + LogSafe.escape(running.server, 200) + "' runs already "
          + "(started " + running.startedAt + "); wait for it (GET /api/share)");
    }
    Job job = new Job(target.name());
    current = job;
    Thread t = new Thread(() -> run(job, target, rounds, maxConcurrent, withPlan), "cotenant-api-share");
    t.setDaemon(true);
    job.thread = t;
    t.start();
    return state(job);
  }

  private void run(Job job, ConfiguredServer target, int rounds, OptionalInt maxConcurrent, String withPlan) {
    try {
      ShareSteps.Outcome outcome = new ShareSteps(cotenant, target, new DaemonSurface(job), sharing.settings(), withPlan)
          .run(ProbePlan.empty(), rounds, maxConcurrent);
      synchronized (this) {
        job.result = outcome.json().deepCopy();
        job.exitStatus = outcome.status();
      }
      LOG.info("share {}: {}", LogSafe.escape(target.name(), 200), LogSafe.escape(outcome.message(), 500));
    } catch (InterruptedException e) {
      synchronized (this) {
        job.error = "interrupted: the daemon is stopping";
      }
    } catch (java.io.IOException e) {
      String why = LogSafe.escape(IoFailure.describe(e), 400);
      LOG.warn("share {} failed: {}", LogSafe.escape(target.name(), 200), why);
      synchronized (this) {
        job.error = why;
      }
    } catch (MeasureJob.JobFailedException | RuntimeException e) {
      String why = e.getClass().getSimpleName() + ": " + LogSafe.escape(String.valueOf(e.getMessage()), 300);
      LOG.warn("share {} failed: {}", LogSafe.escape(target.name(), 200), why);
      synchronized (this) {
        job.error = why;
      }
    } finally {
      synchronized (this) {
        job.doing = null;
        job.finishedAt = Instant.now();
      }
      // A registration or a recorded hazard decides the next session's placement now.
      sharing.recordsChanged();
    }
  }

  /** The steps run on the daemon: rows as the API shows them, each step kept as it is done. */
  private final class DaemonSurface implements ShareSteps.Surface {
    private final Job job;

    DaemonSurface(Job job) {
      this.job = job;
    }

    @Override
    public Row row(ConfiguredServer server) {
      return cotenant.rows(cotenant.load(List.of(server)), s -> s.source().toString()).get(0);
    }

    @Override
    public PassResult measure(ServerDescription server) throws InterruptedException, MeasureJob.JobFailedException {
      doing(job, "measure");
      MeasureJob pass = MeasurePass.start(cotenant, List.of(server));
      try {
        for (;;) {
          Optional<PassResult> done = pass.await(1, TimeUnit.SECONDS);
          if (done.isPresent()) {
            return done.get();
          }
        }
      } catch (InterruptedException e) {
        pass.cancel();
        throw e;
      } finally {
        doing(job, null);
      }
    }

    @Override
    public SurfaceReport probe(ConfiguredServer server, ProbePlan plan, int rounds) throws InterruptedException {
      doing(job, "probe");
      try {
        return cotenant.statelessness().probeSurface(server.description(), plan, rounds);
      } finally {
        doing(job, null);
      }
    }

    @Override
    public void said(ObjectNode step, List<String> more) {
      synchronized (ShareJobs.this) {
        job.steps.add(step.deepCopy());
      }
    }
  }

  private synchronized void doing(Job job, @Nullable String what) {
    job.doing = what;
  }

  /** The state of the current or last job; {@code running: false} and nulls before any. */
  synchronized ObjectNode state() {
    return state(current);
  }

  private ObjectNode state(@Nullable Job job) {
    ObjectNode o = Output.object();
    o.put("running", job != null && job.finishedAt == null);
    JobJson.putNullable(o, "server", job == null ? null : job.server);
    JobJson.putNullable(o, "doing", job == null ? null : job.doing);
    ArrayNode steps = o.putArray("steps");
    if (job != null) {
      job.steps.forEach(s -> steps.add(s.deepCopy()));
    }
    if (job != null && job.result != null) {
      o.set("result", job.result.deepCopy());
    } else {
      o.putNull("result");
    }
    if (job != null && job.exitStatus != null) {
      o.put("exitStatus", job.exitStatus.intValue());
    } else {
      o.putNull("exitStatus");
    }
    JobJson.putTimes(o, job == null ? null : job.error, job == null ? null : job.startedAt,
        job == null ? null : job.finishedAt);
    return o;
  }

  /** Refuses new jobs, interrupts the running one and waits (bounded) for it to tear down. */
  @Override
  public void close() {
    Thread t;
    synchronized (this) {
      closed = true;
      t = current == null || current.finishedAt != null ? null : current.thread;
    }
    if (t == null) {
      return;
    }
    t.interrupt();
    try {
      t.join(CLOSE_WAIT_MS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
