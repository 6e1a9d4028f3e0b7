package dev.cotenant.testkit.bite;

import dev.cotenant.api.HazardCode;
import dev.cotenant.spi.HazardLedger;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A ledger that is right on one thread and loses records on several: copy, wait for another
 * thread to copy too, write back, no lock. Yielding instead of waiting lost a record only when
 * the threads happened to interleave.
 */
final class RacyLedger implements HazardLedger {
  private final Set<Long> threads = ConcurrentHashMap.newKeySet();
  private final CyclicBarrier pair = new CyclicBarrier(2);
  private final AtomicInteger paired = new AtomicInteger();
  private volatile boolean enough;
  private volatile Map<String, Map<String, Observations>> servers = new TreeMap<>();
  private volatile boolean dirty;

  @Override
  public boolean record(String serverName, String identity, HazardCode code, int attachedSessions) {
    if (serverName.isEmpty() || identity.isEmpty()) {
      throw new IllegalArgumentException("empty name or identity");
    }
    if (attachedSessions <= 1) {
      return false;
    }
    threads.add(Thread.currentThread().getId());
    Map<String, Map<String, Observations>> copy = new TreeMap<>();
    servers.forEach((n, ids) -> copy.put(n, new TreeMap<>(ids)));
    if (threads.size() > 1 && !enough) {
      // Once records come from several threads, wait (up to 2 s) for a second one to have copied
      // too: both then write back their own copy, and one record is lost in every run.
      try {
        pair.await(2, TimeUnit.SECONDS);
        // Three pairs, three lost writes, are enough: later writes go at once.
        enough = paired.incrementAndGet() >= 6;
      } catch (TimeoutException | BrokenBarrierException e) {
        pair.reset(); // no partner came: write alone, and stop waiting
        enough = true;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    Map<String, Observations> ids = copy.computeIfAbsent(serverName, k -> new TreeMap<>());
    Observations o = ids.get(identity);
    Set<HazardCode> codes = EnumSet.of(code);
    if (o != null) {
      codes.addAll(o.codes());
    }
    ids.put(identity, new Observations(codes, o == null ? 1 : o.count() + 1, 1.0));
    servers = copy;
    dirty = true;
    return true;
  }

  @Override
  public boolean clear(String serverName) {
    Map<String, Map<String, Observations>> copy = new TreeMap<>(servers);
    boolean had = copy.remove(serverName) != null;
    servers = copy;
    dirty |= had;
    return had;
  }

  @Override
  public void flush() {
    dirty = false;
  }

  @Override
  public void reload() {}

  @Override
  public boolean hasUnflushed() {
    return dirty;
  }

  @Override
  public Snapshot snapshot() {
    return new Snapshot(servers);
  }
}
