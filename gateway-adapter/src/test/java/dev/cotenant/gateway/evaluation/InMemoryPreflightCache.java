package dev.cotenant.gateway.evaluation;

import dev.cotenant.spi.PreflightCache;
import dev.cotenant.spi.PreflightRecord;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

/** A pre-flight cache in memory that counts loads and flushes and remembers what was flushed. */
final class InMemoryPreflightCache implements PreflightCache {
  final AtomicInteger loads = new AtomicInteger();
  final AtomicInteger flushes = new AtomicInteger();
  private final Map<String, PreflightRecord> rows = new LinkedHashMap<>();
  private final Set<String> applied = new HashSet<>();
  private volatile Map<String, PreflightRecord> flushed = Map.of();

  @Override
  public synchronized Snapshot load() {
    loads.incrementAndGet();
    return new Snapshot(rows, applied);
  }

  @Override
  public synchronized void put(PreflightRecord record) {
    rows.put(record.serverName(), record);
  }

  @Override
  public synchronized void markApplied(String serverName) {
    applied.add(serverName);
  }

  @Override
  public synchronized void flush() {
    flushes.incrementAndGet();
    flushed = Map.copyOf(rows);
  }

  /** The rows as of the last flush. */
  Map<String, PreflightRecord> flushed() {
    return flushed;
  }
}
