package dev.cotenant.gateway.rows;

import dev.cotenant.api.HazardCode;
import dev.cotenant.providers.records.FileConcurrencyRecords;
import dev.cotenant.providers.records.FileHazardLedger;
import dev.cotenant.providers.records.FilePreflightCache;
import dev.cotenant.spi.HazardLedger;
import dev.cotenant.spi.PreflightCache;
import dev.cotenant.spi.PreflightRecord;
import dev.cotenant.spi.RecordStores;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The file record stores of one directory behind counters: every read of a record (the cache's
 * {@code load()}, the ledger's {@code snapshot()} or {@code reload()}) and every per-server query
 * (which a row builder must never make) is counted.
 */
final class SpyRecordStores implements RecordStores {
  final AtomicInteger cacheReads = new AtomicInteger();
  final AtomicInteger ledgerReads = new AtomicInteger();
  final AtomicInteger perServerQueries = new AtomicInteger();
  final AtomicInteger concurrencyReads = new AtomicInteger();
  private final HazardLedger ledger;
  private final PreflightCache cache;
  private final dev.cotenant.spi.ConcurrencyRecords concurrency;

  SpyRecordStores(Path directory) {
    this.ledger = new Ledger(FileHazardLedger.open(directory));
    this.cache = new Cache(FilePreflightCache.open(directory));
    FileConcurrencyRecords files = FileConcurrencyRecords.open(directory);
    this.concurrency = new dev.cotenant.spi.ConcurrencyRecords() {
      @Override
      public Snapshot load() {
        concurrencyReads.incrementAndGet();
        return files.load();
      }

      @Override
      public Optional<dev.cotenant.api.ConcurrencyRecord> get(String serverName) {
        perServerQueries.incrementAndGet();
        return files.get(serverName);
      }

      @Override
      public Optional<dev.cotenant.api.ConcurrencyRecord> update(
          String serverName,
          java.util.function.Function<Optional<dev.cotenant.api.ConcurrencyRecord>, Optional<dev.cotenant.api.ConcurrencyRecord>> change)
          throws IOException {
        return files.update(serverName, change);
      }
    };
  }

  @Override
  public HazardLedger hazardLedger() {
    return ledger;
  }

  @Override
  public PreflightCache preflightCache() {
    return cache;
  }

  @Override
  public dev.cotenant.spi.ConcurrencyRecords concurrencyRecords() {
    return concurrency;
  }

  void resetCounts() {
    concurrencyReads.set(0);
    cacheReads.set(0);
    ledgerReads.set(0);
    perServerQueries.set(0);
  }

  private final class Ledger implements HazardLedger {
    private final HazardLedger d;

    Ledger(HazardLedger d) {
      this.d = d;
    }

    @Override
    public boolean record(String serverName, String identity, HazardCode code, int attachedSessions) {
      return d.record(serverName, identity, code, attachedSessions);
    }

    @Override
    public Set<HazardCode> codesFor(String serverName, String identity) {
      perServerQueries.incrementAndGet();
      return d.codesFor(serverName, identity);
    }

    @Override
    public Set<HazardCode> codesForName(String serverName) {
      perServerQueries.incrementAndGet();
      return d.codesForName(serverName);
    }

    @Override
    public Set<String> serverNames() {
      perServerQueries.incrementAndGet();
      return d.serverNames();
    }

    @Override
    public boolean clear(String serverName) {
      return d.clear(serverName);
    }

    @Override
    public void flush() throws IOException {
      d.flush();
    }

    @Override
    public void reload() {
      ledgerReads.incrementAndGet();
      d.reload();
    }

    @Override
    public Snapshot snapshot() {
      ledgerReads.incrementAndGet();
      return d.snapshot();
    }
  }

  private final class Cache implements PreflightCache {
    private final PreflightCache d;

    Cache(PreflightCache d) {
      this.d = d;
    }

    @Override
    public Snapshot load() {
      cacheReads.incrementAndGet();
      return d.load();
    }

    @Override
    public Snapshot snapshot() {
      perServerQueries.incrementAndGet();
      return d.snapshot();
    }

    @Override
    public Optional<PreflightRecord> lookup(String serverName, String currentIdentity, Optional<String> currentReportedVersion) {
      perServerQueries.incrementAndGet();
      return d.lookup(serverName, currentIdentity, currentReportedVersion);
    }

    @Override
    public boolean drop(String serverName) {
      return d.drop(serverName);
    }

    @Override
    public void put(PreflightRecord record) {
      d.put(record);
    }

    @Override
    public void markApplied(String serverName) {
      d.markApplied(serverName);
    }

    @Override
    public void flush() throws IOException {
      d.flush();
    }
  }
}
