package dev.cotenant.testkit.bite;

import dev.cotenant.api.ConcurrencyRecord;
import dev.cotenant.api.HazardCode;
import dev.cotenant.spi.ConcurrencyRecords;
import dev.cotenant.spi.HazardLedger;
import dev.cotenant.spi.PreflightCache;
import dev.cotenant.spi.PreflightRecord;
import dev.cotenant.spi.ProviderConfig;
import dev.cotenant.spi.ProviderContext;
import dev.cotenant.spi.RecordStores;
import dev.cotenant.testkit.records.InMemoryRecordStoreProvider;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/** Stores that forward every call to the in-memory ones; a broken store overrides one method. */
final class Forwarding {
  private Forwarding() {}

  /** The in-memory stores of {@code directory}, from {@code provider}. */
  static RecordStores memory(InMemoryRecordStoreProvider provider, Path directory) {
    return provider.create(new ProviderContext(ProviderConfig.empty(), directory));
  }

  static class Ledger implements HazardLedger {
    final HazardLedger d;

    Ledger(HazardLedger d) {
      this.d = d;
    }

    @Override
    public boolean record(String serverName, String identity, HazardCode code, int attachedSessions) {
      return d.record(serverName, identity, code, attachedSessions);
    }

    @Override
    public Set<HazardCode> codesFor(String serverName, String identity) {
      return d.codesFor(serverName, identity);
    }

    @Override
    public Set<HazardCode> codesForName(String serverName) {
      return d.codesForName(serverName);
    }

    @Override
    public Set<String> serverNames() {
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
      d.reload();
    }

    @Override
    public boolean hasUnflushed() {
      return d.hasUnflushed();
    }

    @Override
    public Snapshot snapshot() {
      return d.snapshot();
    }
  }

  static class Cache implements PreflightCache {
    final PreflightCache d;

    Cache(PreflightCache d) {
      this.d = d;
    }

    @Override
    public Snapshot load() {
      return d.load();
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

    @Override
    public Snapshot snapshot() {
      return d.snapshot();
    }

    @Override
    public boolean drop(String serverName) {
      return d.drop(serverName);
    }

    @Override
    public Optional<PreflightRecord> lookup(String serverName, String currentIdentity, Optional<String> currentReportedVersion) {
      return d.lookup(serverName, currentIdentity, currentReportedVersion);
    }
  }

  static class Records implements ConcurrencyRecords {
    final ConcurrencyRecords d;

    Records(ConcurrencyRecords d) {
      this.d = d;
    }

    @Override
    public Snapshot load() {
      return d.load();
    }

    @Override
    public Optional<ConcurrencyRecord> update(
        String serverName, Function<Optional<ConcurrencyRecord>, Optional<ConcurrencyRecord>> change) throws IOException {
      return d.update(serverName, change);
    }
  }
}
