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
import java.util.function.Function;
import java.util.function.IntFunction;
import java.util.stream.Collectors;

/** Runs tasks on several threads released at once, and collects their answers. */
final class Concurrently {
  /** How many threads ask at once in {@link #disagreements}. */
  static final int THREADS = 8;

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

  /**
   * Asks {@code answer} about each of {@code inputs} from {@link #THREADS} threads at once,
   * {@code rounds} times, each worker starting {@code stride} inputs further on than the one
   * before, and compares every answer with {@code expected} (what one thread was answered, in
   * input order). One line per worker that was answered otherwise, naming its first such answer
   * and the input by {@code label}; empty when every answer agreed.
   */
  static <I, A> List<String> disagreements(int rounds, int stride, List<I> inputs, List<A> expected,
      Function<I, A> answer, IntFunction<String> label) throws Exception {
    List<String> problems = run(THREADS, 60, worker -> {
      for (int round = 0; round < rounds; round++) {
        for (int i = 0; i < inputs.size(); i++) {
          int k = (i + worker * stride + round) % inputs.size();
          A got = answer.apply(inputs.get(k));
          if (!expected.get(k).equals(got)) {
            return "worker " + worker + " got " + got + " for " + label.apply(k) + ", expected " + expected.get(k);
          }
        }
      }
      return "";
    });
    return problems.stream().filter(p -> !p.isEmpty()).collect(Collectors.toList());
  }

  /** A task given its worker index. */
  @FunctionalInterface
  interface IndexedTask<T> {
    T run(int index) throws Exception;
  }
}
