package dev.cotenant.testkit.records;

import dev.cotenant.api.ConcurrencyRecord;
import dev.cotenant.api.HazardCode;
import dev.cotenant.spi.ConcurrencyRecords;
import dev.cotenant.spi.HazardLedger;
import dev.cotenant.spi.PreflightCache;
import dev.cotenant.spi.PreflightRecord;
import dev.cotenant.spi.RecordStores;
import java.time.Clock;
import java.util.EnumSet;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * The three record stores in memory, for tests and for hosts that want no files: the hazard
 * ledger, the pre-flight cache and the concurrency records, following every rule of docs/records.md
 * and docs/statelessness.md that is not about a file (they pass {@code HazardLedgerContract}, {@code PreflightCacheContract}
 * and {@code ConcurrencyRecordsContract}).
 *
 * <p>Memory is their durable copy: {@code flush} writes nothing and only clears the ledger's
 * "unflushed" flag, {@code load} and {@code reload} read what is held. To see state "survive a
 * restart", open the stores again through the same {@link InMemoryRecordStoreProvider}, which
 * keeps one instance per records directory.
 *
 * <p>Thread-safe: each store guards its state with its own monitor, held only for in-memory
 * work (never for IO, since there is none). The ledger's {@code record} is cheap and never blocks
 * on anything but that monitor. A {@link ConcurrencyRecords#update} change function runs under the
 * records' monitor, which makes the update atomic; it must not call back into the store from
 * another thread.
 */
public final class InMemoryRecordStores implements RecordStores {
  private final Ledger ledger;
  private final Cache cache = new Cache();
  private final Records records = new Records();

  /** Empty stores whose ledger stamps observations with the system clock. */
  public InMemoryRecordStores() {
    this(Clock.systemUTC());
  }

  /** Empty stores whose ledger stamps observations ({@code lastSeen}) with {@code clock}. */
  public InMemoryRecordStores(Clock clock) {
    this.ledger = new Ledger(Objects.requireNonNull(clock, "clock"));
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
  public ConcurrencyRecords concurrencyRecords() {
    return records;
  }

  private static final class Ledger implements HazardLedger {
    private static final class Entry {
      final Set<HazardCode> codes = EnumSet.noneOf(HazardCode.class);
      long count;
      double lastSeen;
    }

    private final Clock clock;
    /** Server name to identity to observations. */
    private final Map<String, Map<String, Entry>> servers = new TreeMap<>();
    private long generation;
    private long flushedGeneration;

    Ledger(Clock clock) {
      this.clock = clock;
    }

    @Override
    public boolean record(String serverName, String identity, HazardCode code, int attachedSessions) {
      Objects.requireNonNull(code, "code");
      if (serverName.isEmpty()) {
        throw new IllegalArgumentException("a hazard needs a server name");
      }
      if (identity.isEmpty()) {
        throw new IllegalArgumentException("a hazard of " + serverName + " needs a launch identity");
      }
      if (attachedSessions <= 1 && code.refutesSharing()) {
        return false;
      }
      double now = clock.millis() / 1000.0;
      synchronized (this) {
        Entry e = servers.computeIfAbsent(serverName, k -> new TreeMap<>()).computeIfAbsent(identity, k -> new Entry());
        e.codes.add(code);
        e.count++;
        e.lastSeen = Math.max(e.lastSeen, now);
        generation++;
      }
      return true;
    }

    @Override
    public synchronized boolean clear(String serverName) {
      if (servers.remove(serverName) == null) {
        return false;
      }
      generation++;
      return true;
    }

    /** Memory is the durable copy: nothing to write; what was recorded until now counts as flushed. */
    @Override
    public synchronized void flush() {
      flushedGeneration = generation;
    }

    /** Nothing to re-read: the records live only here. */
    @Override
    public void reload() {}

    @Override
    public synchronized boolean hasUnflushed() {
      return generation != flushedGeneration;
    }

    @Override
    public synchronized Snapshot snapshot() {
      Map<String, Map<String, Observations>> copy = new TreeMap<>();
      servers.forEach((name, ids) -> {
        Map<String, Observations> byId = new TreeMap<>();
        ids.forEach((id, e) -> byId.put(id, new Observations(e.codes, e.count, e.lastSeen)));
        copy.put(name, byId);
      });
      return new Snapshot(copy);
    }
  }

  private static final class Cache implements PreflightCache {
    private final Map<String, PreflightRecord> rows = new TreeMap<>();
    private final Set<String> applied = new LinkedHashSet<>();

    @Override
    public synchronized Snapshot load() {
      return new Snapshot(rows, applied);
    }

    @Override
    public synchronized void put(PreflightRecord record) {
      rows.put(record.serverName(), record);
    }

    @Override
    public synchronized void markApplied(String serverName) {
      if (serverName.isEmpty()) {
        throw new IllegalArgumentException("an applied marker needs a server name");
      }
      applied.add(serverName);
    }

    @Override
    public void flush() {}

    @Override
    public synchronized Snapshot snapshot() {
      return new Snapshot(rows, applied);
    }

    @Override
    public synchronized boolean drop(String serverName) {
      return rows.remove(serverName) != null;
    }

    /** Checked and dropped under one monitor hold, so a row put meanwhile is never dropped by mistake. */
    @Override
    public synchronized Optional<PreflightRecord> lookup(
        String serverName, String currentIdentity, Optional<String> currentReportedVersion) {
      PreflightRecord row = rows.get(serverName);
      if (row == null) {
        return Optional.empty();
      }
      if (row.versionConflicts(currentReportedVersion)) {
        rows.remove(serverName);
        return Optional.empty();
      }
      return row.identity().equals(currentIdentity) ? Optional.of(row) : Optional.empty();
    }
  }

  private static final class Records implements ConcurrencyRecords {
    private final Map<String, ConcurrencyRecord> records = new TreeMap<>();

    @Override
    public synchronized Snapshot load() {
      return new Snapshot(records, Map.of());
    }

    @Override
    public synchronized Optional<ConcurrencyRecord> update(
        String serverName, Function<Optional<ConcurrencyRecord>, Optional<ConcurrencyRecord>> change) {
      Optional<ConcurrencyRecord> next = Objects.requireNonNull(
          change.apply(Optional.ofNullable(records.get(serverName))), "a concurrency record change returned null");
      if (next.isPresent() && !next.get().serverName().equals(serverName)) {
        throw new IllegalArgumentException(
            "the update of " + serverName + " returned a record of " + next.get().serverName());
      }
      if (next.isPresent()) {
        records.put(serverName, next.get());
      } else {
        records.remove(serverName);
      }
      return next;
    }
  }
}
