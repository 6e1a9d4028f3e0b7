package dev.cotenant.testkit.contract;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** Runs tasks on several threads released at once, and collects their answers. */
final class Concurrently {
  private Concurrently() {}

  /** Runs {@code threads} copies of {@code task} (given its index), all started together; their results in index order. */
  static <T> List<T> run(int threads, long timeoutSeconds, IndexedTask<T> task) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(threads, r -> {
      Thread t = new Thread(r, "contract-worker");
      t.setDaemon(true);
      return t;
    });
    CountDownLatch start = new CountDownLatch(1);
    try {
      List<Future<T>> futures = new ArrayList<>();
      for (int i = 0; i < threads; i++) {
        int index = i;
        Callable<T> c = () -> {
          start.await();
          return task.run(index);
        };
        futures.add(pool.submit(c));
      }
      start.countDown();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
      List<T> out = new ArrayList<>();
      for (Future<T> f : futures) {
        try {
          out.add(f.get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS));
        } catch (ExecutionException e) {
          Throwable cause = e.getCause();
          if (cause instanceof Exception) {
            throw (Exception) cause;
          }
          if (cause instanceof Error) {
            throw (Error) cause;
          }
          throw e;
        } catch (TimeoutException e) {
          throw new AssertionError(threads + " concurrent workers did not finish within " + timeoutSeconds + " s", e);
        }
      }
      return out;
    } finally {
      pool.shutdownNow();
    }
  }

  /** A task given its worker index. */
  @FunctionalInterface
  interface IndexedTask<T> {
    T run(int index) throws Exception;
  }
}
