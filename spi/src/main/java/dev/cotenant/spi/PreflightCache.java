package dev.cotenant.spi;

import java.io.IOException;
import java.util.Map;
import java.util.Set;

/**
 * The pre-flight cache (DESIGN §4.2): one row per configured server keyed by name, plus the
 * {@code applied} seeding markers. Only the expensive measurement is cached, never a verdict.
 * Reading rules (another schema dropped, rows without {@code ran} dropped, an absent or corrupt
 * file read as empty) are applied by {@link #load}. Implementations are thread-safe.
 */
public interface PreflightCache {
  /** Reads the store. Blocking IO; never throws on a missing or corrupt file (reads as empty). */
  Snapshot load();

  /** Stores (replaces) the row of {@code record.serverName()} in memory. */
  void put(PreflightRecord record);

  /** Adds an {@code applied} marker in memory. Markers are never pruned. */
  void markApplied(String serverName);

  /** Writes the rows and markers; blocking IO. */
  void flush() throws IOException;

  /**
   * An immutable view of the store as loaded.
   *
   * @param rows rows by server name
   * @param applied the {@code applied} markers
   */
  record Snapshot(Map<String, PreflightRecord> rows, Set<String> applied) {
    public Snapshot {
      rows = Map.copyOf(rows);
      applied = Set.copyOf(applied);
    }

    /** An empty snapshot. */
    public static Snapshot empty() {
      return new Snapshot(Map.of(), Set.of());
    }
  }
}
