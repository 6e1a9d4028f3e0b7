package dev.cotenant.providers.records;

import dev.cotenant.api.ConcurrencyRecord;
import dev.cotenant.api.LogSafe;
import dev.cotenant.spi.ConcurrencyRecords;
import dev.cotenant.spi.files.AtomicFiles;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;

/**
 * The concurrency records kept in {@code <records dir>/concurrency-records.json} (docs/statelessness.md):
 * one {@link ConcurrencyRecord} per server name, each holding the identity its statelessness
 * probe passed under.
 *
 * <p><b>Reads</b> never throw and never guess "safe": a missing, unreadable or future-schema file
 * reads as no records (every server {@code sidecar}, not probed), and an entry that the record's
 * own constructor refuses ({@code shared} without a passed probe or without a positive
 * {@code maxConcurrent}) reads as absent and is listed in {@link Snapshot#rejected()}. An
 * unreadable or future-schema file, or a {@code concurrency-records.json.corrupt} copy still
 * there, makes the snapshot {@linkplain Snapshot#incomplete() incomplete}, naming the file and the
 * problem, so nothing recommends sharing until it is dealt with (fail closed). Each problem is
 * logged once, when first seen.
 *
 * <p><b>Writes</b> ({@link #update}) take the file lock, re-read the file, change exactly one
 * entry, and replace the file atomically (temp file, fsync, rename), so two writers in two
 * processes lose nothing; the other entries are written back verbatim, refused ones included. A
 * future-schema file is never overwritten; an unreadable one is moved to
 * {@code concurrency-records.json.corrupt} first (the write fails rather than overwrite it when
 * it cannot be moved). Thread-safe; holds no state but the path and what was already logged.
 */
public final class FileConcurrencyRecords implements ConcurrencyRecords {
  /** The file name inside the records directory. */
  public static final String FILE_NAME = "concurrency-records.json";

  private static final Logger LOG = LoggerFactory.getLogger(FileConcurrencyRecords.class);
  /** What incomplete records read as, for the log line. */
  private static final String READS_AS =
      "what could be read (no concurrency records when nothing could), and nothing recommends sharing until it can be read completely";

  private final Path file;
  private final RecordsJson.WarnOnce warnings = new RecordsJson.WarnOnce();
  /** The refused entries last logged, so each set of them is logged once. */
  private Map<String, String> rejectedLogged = Map.of();

  private FileConcurrencyRecords(Path file) {
    this.file = file;
  }

  /** The records in {@code recordsDirectory}; nothing is read or created until used. */
  public static FileConcurrencyRecords open(Path recordsDirectory) {
    return new FileConcurrencyRecords(recordsDirectory.resolve(FILE_NAME));
  }

  /** The records file. */
  public Path file() {
    return file;
  }

  /**
   * The file's identity when last read whole (inode, size, modification time) and what it read as:
   * a file that has not changed since is not parsed again. Every writer replaces the file by an
   * atomic rename, so a change is a new inode; a large file read for every new session was seconds
   * each.
   */
  private record Read(Object key, Snapshot snapshot) {}

  private volatile @org.jspecify.annotations.Nullable Read last;

  /** Reads the file, or returns what it read as last time when it has not changed; never throws. */
  @Override
  public Snapshot load() {
    // A moved-aside copy of an unreadable file makes the records incomplete while it is there.
    Optional<String> aside = RecordsJson.movedAsideCopy(file, "records");
    Object id = identity();
    Object key = id == null ? null : List.of(id, aside);
    Read seen = last;
    if (key != null && seen != null && seen.key().equals(key)) {
      return seen.snapshot();
    }
    Snapshot s = read(aside);
    // Only a complete read is kept: one that failed (a permission, a partial write) is tried again.
    last = key == null || !s.complete() ? null : new Read(key, s);
    return s;
  }

  /** The file's inode, size and modification time; null when it cannot be had (no file, no inode). */
  private @org.jspecify.annotations.Nullable Object identity() {
    try {
      java.nio.file.attribute.BasicFileAttributes a =
          java.nio.file.Files.readAttributes(file, java.nio.file.attribute.BasicFileAttributes.class);
      return a.fileKey() == null ? null : List.of(a.fileKey(), a.size(), a.lastModifiedTime());
    } catch (IOException e) {
      return null;
    }
  }

  private Snapshot read(Optional<String> aside) {
    ConcurrencyRecordsCodec.Result r = ConcurrencyRecordsCodec.read(file);
    Optional<String> problem = RecordsJson.problems(problemOf(r), aside);
    warnings.warn(problem, READS_AS);
    Map<String, ConcurrencyRecord> records = Map.of();
    Map<String, String> rejected = Map.of();
    if (r instanceof ConcurrencyRecordsCodec.Loaded) {
      ConcurrencyRecordsCodec.Loaded l = (ConcurrencyRecordsCodec.Loaded) r;
      records = l.records();
      rejected = l.rejected();
      logRejected(rejected);
    }
    return new Snapshot(records, rejected, problem);
  }

  private synchronized void logRejected(Map<String, String> rejected) {
    if (rejected.equals(rejectedLogged)) {
      return;
    }
    rejected.forEach((name, why) -> {
      if (!why.equals(rejectedLogged.get(name))) {
        LOG.warn("{}: refusing the entry of {}: {}; it reads as sidecar, not probed",
            LogSafe.escape(file.toString(), 500), LogSafe.escape(name), LogSafe.escape(why, 300));
      }
    });
    rejectedLogged = Map.copyOf(rejected);
  }

  private Optional<String> problemOf(ConcurrencyRecordsCodec.Result r) {
    if (r instanceof ConcurrencyRecordsCodec.Unreadable) {
      return Optional.of(file + " " + ((ConcurrencyRecordsCodec.Unreadable) r).why());
    }
    if (r instanceof ConcurrencyRecordsCodec.Future) {
      return Optional.of(file + " has schema " + ((ConcurrencyRecordsCodec.Future) r).schema()
          + ", newer than this build's " + ConcurrencyRecordsCodec.SCHEMA
          + " (written by a newer build; this build never overwrites it)");
    }
    return Optional.empty();
  }

  /**
   * Changes the entry of {@code serverName} under the file lock: {@code change} receives the
   * stored record (empty when there is none or the stored one is refused) and returns the new one,
   * or empty to remove the entry. When {@code change} throws, nothing is written.
   *
   * @return what is stored now
   * @throws IOException when the file cannot be written, or holds a newer schema
   */
  @Override
  public Optional<ConcurrencyRecord> update(
      String serverName, Function<Optional<ConcurrencyRecord>, Optional<ConcurrencyRecord>> change) throws IOException {
    Objects.requireNonNull(serverName, "serverName");
    Objects.requireNonNull(change, "change");
    try (AtomicFiles.Lock lock = AtomicFiles.lock(file)) {
      AtomicFiles.deleteStaleTemps(file);
      ConcurrencyRecordsCodec.Result disk = ConcurrencyRecordsCodec.read(file);
      Map<String, JsonNode> raw;
      Optional<ConcurrencyRecord> current = Optional.empty();
      if (disk instanceof ConcurrencyRecordsCodec.Future) {
        throw new IOException(file + " has schema " + ((ConcurrencyRecordsCodec.Future) disk).schema()
            + ", newer than this build's " + ConcurrencyRecordsCodec.SCHEMA
            + "; refusing to overwrite a newer writer's concurrency records");
      } else if (disk instanceof ConcurrencyRecordsCodec.Loaded) {
        ConcurrencyRecordsCodec.Loaded l = (ConcurrencyRecordsCodec.Loaded) disk;
        raw = ConcurrencyRecordsCodec.mutable(l.raw());
        current = Optional.ofNullable(l.records().get(serverName));
      } else {
        raw = ConcurrencyRecordsCodec.mutable(Map.of());
      }
      Optional<ConcurrencyRecord> next = Objects.requireNonNull(change.apply(current), "change returned null");
      next.ifPresent(r -> {
        if (!r.serverName().equals(serverName)) {
          throw new IllegalArgumentException(
              "a record of " + r.serverName() + " cannot be stored under " + serverName);
        }
      });
      if (disk instanceof ConcurrencyRecordsCodec.Unreadable) {
        warnings.warn(problemOf(disk), "no concurrency records; rewriting it");
        RecordsJson.moveAsideOrThrow(file);
      }
      if (next.isPresent()) {
        raw.put(serverName, ConcurrencyRecordsCodec.encodeRecord(next.get()));
      } else {
        raw.remove(serverName);
      }
      AtomicFiles.write(file, ConcurrencyRecordsCodec.encode(raw));
      return next;
    }
  }

  @Override
  public String toString() {
    return "FileConcurrencyRecords[" + file + "]";
  }
}
