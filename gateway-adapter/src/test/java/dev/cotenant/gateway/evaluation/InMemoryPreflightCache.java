package dev.cotenant.gateway.evaluation;

import dev.cotenant.spi.PreflightCache;
import dev.cotenant.spi.PreflightRecord;
import dev.cotenant.testkit.records.InMemoryRecordStores;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The kit's in-memory pre-flight cache (held to the contract suite) behind counters: it counts
 * loads and flushes and remembers what was flushed. A {@link #beforeFlush} hook may fail a flush
 * (nothing is written then) or act while it runs.
 */
final class InMemoryPreflightCache implements PreflightCache {
  /** Runs at the start of every flush; throwing fails that flush. */
  interface FlushHook {
    void run(int attempt) throws IOException;
  }

  final AtomicInteger loads = new AtomicInteger();
  final AtomicInteger flushes = new AtomicInteger();
  final AtomicInteger attempts = new AtomicInteger();
  volatile FlushHook beforeFlush = attempt -> {};
  /** Every flush's rows, in order. */
  final java.util.List<Map<String, PreflightRecord>> history = new java.util.concurrent.CopyOnWriteArrayList<>();
  private final PreflightCache store = new InMemoryRecordStores().preflightCache();
  private volatile Map<String, PreflightRecord> flushed = Map.of();

  @Override
  public synchronized Snapshot load() {
    loads.incrementAndGet();
    return store.load();
  }

  @Override
  public synchronized void put(PreflightRecord record) {
    store.put(record);
  }

  @Override
  public synchronized void markApplied(String serverName) {
    store.markApplied(serverName);
  }

  @Override
  public synchronized boolean drop(String serverName) {
    return store.drop(serverName);
  }

  @Override
  public synchronized void flush() throws IOException {
    beforeFlush.run(attempts.incrementAndGet());
    store.flush();
    flushes.incrementAndGet();
    flushed = Map.copyOf(store.snapshot().rows());
    history.add(flushed);
    notifyAll();
  }

  /** Waits (at most 30 s) until a flush has written {@code name}'s row; false when none did. */
  synchronized boolean awaitFlushed(String name) throws InterruptedException {
    long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(30);
    while (!flushed.containsKey(name)) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        return false;
      }
      java.util.concurrent.TimeUnit.NANOSECONDS.timedWait(this, left);
    }
    return true;
  }

  /** The rows as of the last flush. */
  Map<String, PreflightRecord> flushed() {
    return flushed;
  }
}
