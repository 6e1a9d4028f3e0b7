package dev.cotenant.spi;

import java.io.IOException;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The pre-flight cache (docs/records.md): one row per configured server keyed by name, plus the
 * {@code applied} seeding markers. Only the expensive measurement is cached, never a verdict.
 * Reading rules (another schema dropped, rows without {@code ran} dropped, an absent or corrupt
 * file read as empty) are applied by {@link #load}; the current-identity and
 * current-reported-version rules by {@link #lookup}. Implementations are thread-safe.
 */
public interface PreflightCache {
  /**
   * Reads the store, overlays the changes made here and not flushed yet, and returns the result,
   * which also becomes what {@link #snapshot} returns. Blocking IO; never throws on a missing or
   * corrupt file (reads as empty).
   */
  Snapshot load();

  /** Stores (replaces) the row of {@code record.serverName()} in memory. */
  void put(PreflightRecord record);

  /** Adds an {@code applied} marker in memory. Markers are never pruned. */
  void markApplied(String serverName);

  /** Writes the rows and markers; blocking IO. */
  void flush() throws IOException;

  /** The rows and markers as held in memory; no IO. The default re-reads through {@link #load}. */
  default Snapshot snapshot() {
    return load();
  }

  /**
   * Removes the row of {@code serverName} in memory (on disk at the next flush); returns true when
   * there was one. The default refuses: a cache that cannot drop rows cannot apply the
   * {@code reportedVersion} rule.
   */
  default boolean drop(String serverName) {
    throw new UnsupportedOperationException(getClass().getName() + " cannot drop pre-flight rows");
  }

  /**
   * The stored measurement of {@code serverName} as valid now. No IO.
   *
   * <ul>
   *   <li>When both the row and {@code currentReportedVersion} know a version and they differ, the
   *       row is DROPPED (it measured code that has been replaced) and the answer is empty.
   *   <li>When the row was taken under another identity the answer is empty and the row is KEPT
   *       (a transient {@code unknown} fingerprint must not discard a good measurement).
   * </ul>
   *
   * @param serverName the configured name
   * @param currentIdentity the server's current {@code ExecutionIdentity.cacheKey()}
   * @param currentReportedVersion what the server calls itself now, when known
   */
  default Optional<PreflightRecord> lookup(
      String serverName, String currentIdentity, Optional<String> currentReportedVersion) {
    Optional<PreflightRecord> row = Optional.ofNullable(snapshot().rows().get(serverName));
    if (row.isPresent() && row.get().versionConflicts(currentReportedVersion)) {
      drop(serverName);
      return Optional.empty();
    }
    return row.filter(r -> r.identity().equals(currentIdentity));
  }

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

    /**
     * The row of {@code serverName} when it was taken under {@code currentIdentity}; empty when
     * there is none or it was taken under another identity ("no measurement").
     */
    public Optional<PreflightRecord> measurement(String serverName, String currentIdentity) {
      return Optional.ofNullable(rows.get(serverName)).filter(r -> r.identity().equals(currentIdentity));
    }
  }
}
