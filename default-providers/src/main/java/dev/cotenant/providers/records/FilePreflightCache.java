package dev.cotenant.providers.records;

import dev.cotenant.api.ExecutionIdentity;
import dev.cotenant.api.LogSafe;
import dev.cotenant.spi.PreflightCache;
import dev.cotenant.spi.PreflightRecord;
import dev.cotenant.spi.files.AtomicFiles;
import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The pre-flight cache kept in {@code <records dir>/shareability-verdicts.json} (docs/records.md).
 *
 * <p>Rows live in memory, loaded when the cache is opened. Changes made here ({@link #put},
 * {@link #drop}, {@link #markApplied}) are remembered until {@link #flush}, which under the file
 * lock re-reads the file, applies exactly those changes on top of it and writes it atomically,
 * so a second process writing the same cache loses nothing. A drop removes the file's row only
 * while it is still the row that was dropped; a newer measurement written meanwhile survives.
 *
 * <p>Thread-safe: every method holds the cache's monitor; none is on a hot path.
 */
public final class FilePreflightCache implements PreflightCache {
  /** The file name inside the records directory. */
  public static final String FILE_NAME = "shareability-verdicts.json";

  private static final Logger LOG = LoggerFactory.getLogger(FilePreflightCache.class);

  private final Path file;
  private Map<String, PreflightRecord> rows = new TreeMap<>();
  private Set<String> applied = new TreeSet<>();
  private final Map<String, PreflightRecord> pendingPuts = new HashMap<>();
  private final Map<String, PreflightRecord> pendingDrops = new HashMap<>();
  private final Set<String> pendingApplied = new HashSet<>();

  private FilePreflightCache(Path file) {
    this.file = file;
  }

  /** Opens the cache in {@code recordsDirectory}, loading what the file holds. Reads only. */
  public static FilePreflightCache open(Path recordsDirectory) {
    FilePreflightCache c = new FilePreflightCache(recordsDirectory.resolve(FILE_NAME));
    c.load();
    return c;
  }

  /** The cache file. */
  public Path file() {
    return file;
  }

  @Override
  public synchronized Snapshot load() {
    CacheCodec.Result disk = CacheCodec.read(file);
    Map<String, PreflightRecord> r = new TreeMap<>();
    Set<String> a = new TreeSet<>();
    if (disk instanceof CacheCodec.Loaded) {
      CacheCodec.Loaded l = (CacheCodec.Loaded) disk;
      logDropped(l);
      r.putAll(l.rows());
      a.addAll(l.applied());
    } else {
      String why = ((CacheCodec.Empty) disk).why();
      if (!why.isEmpty()) {
        RecordsJson.warnUnreadable(file, why, "an empty pre-flight cache");
      }
    }
    overlayPending(r, a);
    rows = r;
    applied = a;
    return snapshot();
  }

  @Override
  public synchronized Snapshot snapshot() {
    return new Snapshot(rows, applied);
  }

  @Override
  public synchronized void put(PreflightRecord record) {
    ExecutionIdentity id;
    try {
      id = ExecutionIdentity.parseCacheKey(record.identity());
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("pre-flight row for '" + record.serverName() + "': " + e.getMessage(), e);
    }
    if (!ExecutionIdentity.PREFLIGHT_SCHEMA.equals(id.schema())) {
      throw new IllegalArgumentException(
          "pre-flight row for '" + record.serverName() + "' was measured under schema '" + id.schema()
              + "', not this build's '" + ExecutionIdentity.PREFLIGHT_SCHEMA + "'; it would be dropped on read");
    }
    rows.put(record.serverName(), record);
    pendingPuts.put(record.serverName(), record);
    pendingDrops.remove(record.serverName());
  }

  @Override
  public synchronized boolean drop(String serverName) {
    PreflightRecord removed = rows.remove(serverName);
    pendingPuts.remove(serverName);
    if (removed != null) {
      pendingDrops.put(serverName, removed);
    }
    return removed != null;
  }

  @Override
  public synchronized Optional<PreflightRecord> lookup(
      String serverName, String currentIdentity, Optional<String> currentReportedVersion) {
    PreflightRecord row = rows.get(serverName);
    if (row == null) {
      return Optional.empty();
    }
    if (row.versionConflicts(currentReportedVersion)) {
      drop(serverName);
      LOG.info(
          "dropped the pre-flight row of server {}: it was measured as version {} and the server now reports {}",
          LogSafe.escape(serverName),
          LogSafe.escape(row.reportedVersion().orElseThrow()),
          LogSafe.escape(currentReportedVersion.orElseThrow()));
      return Optional.empty();
    }
    return row.identity().equals(currentIdentity) ? Optional.of(row) : Optional.empty();
  }

  @Override
  public synchronized void markApplied(String serverName) {
    if (serverName.isEmpty()) {
      throw new IllegalArgumentException("an applied marker needs a server name");
    }
    applied.add(serverName);
    pendingApplied.add(serverName);
  }

  /** True when a change made here has not reached the file yet. */
  public synchronized boolean hasUnflushed() {
    return !(pendingPuts.isEmpty() && pendingDrops.isEmpty() && pendingApplied.isEmpty());
  }

  @Override
  public synchronized void flush() throws IOException {
    if (!hasUnflushed()) {
      return;
    }
    Map<String, PreflightRecord> r = new TreeMap<>();
    Set<String> a = new TreeSet<>();
    AtomicFiles.Lock lock = AtomicFiles.lock(file);
    try {
      AtomicFiles.deleteStaleTemps(file);
      CacheCodec.Result disk = CacheCodec.read(file);
      if (disk instanceof CacheCodec.Loaded) {
        r.putAll(((CacheCodec.Loaded) disk).rows());
        a.addAll(((CacheCodec.Loaded) disk).applied());
      } else {
        String why = ((CacheCodec.Empty) disk).why();
        if (!why.isEmpty()) {
          RecordsJson.warnUnreadable(file, why, "an empty pre-flight cache; rewriting it from memory");
          RecordsJson.moveAside(file);
          r.putAll(rows);
          a.addAll(applied);
        }
      }
      overlayPending(r, a);
      AtomicFiles.write(file, CacheCodec.encode(r, a));
    } finally {
      lock.close();
    }
    pendingPuts.clear();
    pendingDrops.clear();
    pendingApplied.clear();
    rows = r;
    applied = a;
  }

  private void overlayPending(Map<String, PreflightRecord> r, Set<String> a) {
    pendingDrops.forEach((name, dropped) -> r.remove(name, dropped));
    r.putAll(pendingPuts);
    a.addAll(pendingApplied);
  }

  private void logDropped(CacheCodec.Loaded l) {
    if (!l.droppedForeignSchema().isEmpty()) {
      LOG.info(
          "dropped {} pre-flight row(s) measured under another schema than {}: {}",
          l.droppedForeignSchema().size(), ExecutionIdentity.PREFLIGHT_SCHEMA, names(l.droppedForeignSchema()));
    }
    if (!l.droppedMalformed().isEmpty()) {
      LOG.warn(
          "dropped {} pre-flight row(s) of {} that cannot say whether the pre-flight ran or under which identity: {}",
          l.droppedMalformed().size(), LogSafe.escape(file.toString(), 500), names(l.droppedMalformed()));
    }
  }

  private static String names(List<String> names) {
    StringBuilder sb = new StringBuilder();
    for (String n : names) {
      if (sb.length() > 0) {
        sb.append(", ");
      }
      sb.append(LogSafe.escape(n, 80));
      if (sb.length() > 400) {
        return sb.append(", …").toString();
      }
    }
    return sb.toString();
  }

  @Override
  public String toString() {
    return "FilePreflightCache[" + Objects.toString(file) + "]";
  }
}
