package dev.cotenant.spi;

import dev.cotenant.api.ConcurrencyRecord;
import java.io.IOException;
import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * The concurrency records (docs/statelessness.md): one {@link ConcurrencyRecord} per server name, each
 * holding the identity its statelessness probe passed under. The third store of
 * {@link RecordStores}.
 *
 * <p>Reads never throw and never guess "safe": a missing or unreadable store reads as no records
 * (every server {@code sidecar}, not probed), and an entry the record's own constructor refuses
 * reads as absent and is listed in {@link Snapshot#rejected()}. A store that exists but could not
 * be read completely (unreadable, a newer schema, an unreadable copy moved aside and not yet dealt
 * with) says so in {@link Snapshot#incomplete()}: a withdrawn registration or another writer's
 * record may be hidden, so while it does nothing recommends sharing and a registration as
 * {@code shared} is refused (docs/statelessness.md, fail closed). {@link #update} changes exactly one entry
 * atomically with respect to every other writer, in any process. Thread-safe.
 */
public interface ConcurrencyRecords {
  /**
   * Every record at one moment, and whether the store could be read completely.
   *
   * @param records the entries that hold, by name
   * @param rejected the entries the schema refuses, by name, with the reason; each reads as
   *     absent (no registration), which withholds sharing from that server only, so a refused
   *     entry alone does not make the read incomplete
   * @param incomplete empty when the store was read completely; otherwise a short,
   *     human-readable reason naming the record and the problem (shown to operators as the detail
   *     of {@code concurrency_records_unreadable})
   */
  record Snapshot(Map<String, ConcurrencyRecord> records, Map<String, String> rejected, Optional<String> incomplete) {
    public Snapshot {
      records = Collections.unmodifiableMap(new TreeMap<>(records));
      rejected = Collections.unmodifiableMap(new TreeMap<>(rejected));
      Objects.requireNonNull(incomplete, "incomplete");
      if (incomplete.isPresent() && incomplete.get().isBlank()) {
        throw new IllegalArgumentException("an incomplete concurrency-records snapshot says why");
      }
    }

    /** A snapshot of a store read completely. */
    public Snapshot(Map<String, ConcurrencyRecord> records, Map<String, String> rejected) {
      this(records, rejected, Optional.empty());
    }

    /** What could be read of a store that could not be read completely, and why. */
    public static Snapshot incomplete(Map<String, ConcurrencyRecord> records, Map<String, String> rejected, String why) {
      return new Snapshot(records, rejected, Optional.of(why));
    }

    /** True when the store was read completely. */
    public boolean complete() {
      return incomplete.isEmpty();
    }

    /** No records. */
    public static Snapshot empty() {
      return new Snapshot(Map.of(), Map.of());
    }

    /** The record of {@code serverName}, if one is stored and holds. */
    public Optional<ConcurrencyRecord> get(String serverName) {
      return Optional.ofNullable(records.get(serverName));
    }
  }

  /** Reads the store; blocking IO; never throws. */
  Snapshot load();

  /** The record of {@code serverName}, if one is stored and holds. Blocking IO. */
  default Optional<ConcurrencyRecord> get(String serverName) {
    return load().get(serverName);
  }

  /**
   * Changes the entry of {@code serverName}: {@code change} receives the stored record (empty when
   * there is none or the stored one is refused) and returns the new one, or empty to remove the
   * entry. When {@code change} throws, nothing is written and the exception propagates.
   *
   * @return what is stored now
   * @throws IOException when the store cannot be written
   * @throws IllegalArgumentException when the new record names another server
   */
  Optional<ConcurrencyRecord> update(
      String serverName, Function<Optional<ConcurrencyRecord>, Optional<ConcurrencyRecord>> change) throws IOException;

  /** Stores {@code record}, replacing the entry of its server. */
  default void put(ConcurrencyRecord record) throws IOException {
    update(record.serverName(), current -> Optional.of(record));
  }
}
