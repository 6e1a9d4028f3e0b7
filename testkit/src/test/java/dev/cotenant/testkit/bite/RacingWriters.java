package dev.cotenant.testkit.bite;

import java.util.Set;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Makes a broken store's read-modify-write race lose a write in every run, not only when the
 * threads happen to interleave: called between the read and the write, it holds each writer,
 * once writes come from more than one thread, until a second one has read too (up to 2 s), for
 * the first three pairs. Writes from one thread go at once. Yielding there instead lost nothing
 * in some runs: on a busy machine a thread could finish its writes within one time slice.
 */
final class RacingWriters {
  private final Set<Long> threads = ConcurrentHashMap.newKeySet();
  private final CyclicBarrier pair = new CyclicBarrier(2);
  private final AtomicInteger paired = new AtomicInteger();
  private volatile boolean enough;

  /** Between a writer's read and its write. */
  void betweenReadAndWrite() {
    threads.add(Thread.currentThread().getId());
    if (threads.size() < 2 || enough) {
      return;
    }
    try {
      pair.await(2, TimeUnit.SECONDS);
      enough = paired.incrementAndGet() >= 6; // three pairs, three lost writes
    } catch (TimeoutException | BrokenBarrierException e) {
      pair.reset(); // no partner came: write alone, and stop waiting
      enough = true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
