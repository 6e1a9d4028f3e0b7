package dev.cotenant.gateway.evaluation;

import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * An uncapped pass running in the background. {@link #progress()} reads
 * {@code {running, done, measured, total}} at any time; {@link #cancel()} interrupts it (the
 * measurements already paid for are still flushed).
 */
public final class MeasureJob {
  /** The body of a job. */
  @FunctionalInterface
  interface Body {
    PassResult run() throws Exception;
  }

  private final Evaluator evaluator;
  private final Thread thread;
  private final CountDownLatch finished = new CountDownLatch(1);
  private final AtomicReference<PassResult> result = new AtomicReference<>();
  private final AtomicReference<Throwable> failure = new AtomicReference<>();

  private MeasureJob(Evaluator evaluator, Body body) {
    this.evaluator = evaluator;
    this.thread =
        new Thread(
            () -> {
              try {
                result.set(body.run());
              } catch (Throwable t) {
                failure.set(t);
              } finally {
                finished.countDown();
              }
            },
            "cotenant-measure");
    this.thread.setDaemon(true);
  }

  static MeasureJob start(Evaluator evaluator, Body body) {
    MeasureJob job = new MeasureJob(evaluator, body);
    job.thread.start();
    return job;
  }

  /** The evaluator's progress for this job. */
  public Progress progress() {
    return evaluator.progress();
  }

  /** The names of the servers being measured now, in name order. */
  public java.util.List<String> measuring() {
    return evaluator.measuring();
  }

  /** Interrupts the pass; servers already measured are kept. */
  public void cancel() {
    thread.interrupt();
  }

  /** True once the job has finished, successfully or not. */
  public boolean isDone() {
    return finished.getCount() == 0;
  }

  /**
   * Waits for the job.
   *
   * @return the result, or empty when the wait timed out
   * @throws JobFailedException when the pass failed or was cancelled
   */
  public Optional<PassResult> await(long timeout, TimeUnit unit) throws InterruptedException, JobFailedException {
    if (!finished.await(timeout, unit)) {
      return Optional.empty();
    }
    Throwable t = failure.get();
    if (t != null) {
      throw new JobFailedException(t);
    }
    return Optional.of(result.get());
  }

  /** A background pass ended with an error or was cancelled; the cause says which. */
  public static final class JobFailedException extends Exception {
    private static final long serialVersionUID = 1L;

    JobFailedException(Throwable cause) {
      super(cause instanceof InterruptedException ? "measure job cancelled" : "measure job failed: " + cause, cause);
    }

    /** True when the job was cancelled rather than failed. */
    public boolean cancelled() {
      return getCause() instanceof InterruptedException;
    }
  }
}
