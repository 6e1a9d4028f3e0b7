package dev.cotenant.providers.records;

import dev.cotenant.api.HazardCode;
import dev.cotenant.api.LogSafe;
import dev.cotenant.spi.HazardLedger;
import dev.cotenant.spi.files.AtomicFiles;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The observed-hazard ledger kept in {@code <records dir>/observed-hazards.json} (docs/records.md).
 *
 * <p><b>Memory.</b> Every (server, identity) pair has a cell holding what the file is known to say
 * (its base) and what was recorded here since the last flush (pending counts per code).
 * {@link #record} touches one cell under that cell's monitor and bumps a generation counter: no
 * IO, no allocation once the cell exists.
 *
 * <p><b>Flush.</b> Captures the generation, then the pending counts; under the file lock re-reads
 * the file and merges (codes union, counts added, latest {@code lastSeen}); writes atomically; then
 * subtracts exactly what it wrote from the pending counts. The ledger counts as flushed only up
 * to the generation captured before the payload, so an observation recorded while a flush is in
 * progress stays pending and reaches disk on the next flush.
 *
 * <p><b>Files that cannot be used.</b> A missing, unreadable or future-schema file reads as
 * nothing observed, and a file with entries of the wrong type reads as what could be read. A
 * future-schema file is never overwritten ({@link #flush} fails naming it); an unreadable one, or
 * one with entries that had to be dropped, is moved to {@code observed-hazards.json.corrupt}
 * before it is replaced by what this ledger knows (a flush fails rather than overwrite it when it
 * cannot be moved).
 *
 * <p><b>Fail closed.</b> An observation may hide in what could not be read, so
 * {@link #snapshot()} says the ledger is {@linkplain Snapshot#incomplete() incomplete}, naming
 * the file and the problem, while the last read of the file found any of these, or while an
 * {@code observed-hazards.json.corrupt} copy is still there (its observations are not read until
 * an operator deals with it and deletes it). Each problem is logged once, when first seen.
 */
public final class FileHazardLedger implements HazardLedger {
  /** The file name inside the records directory. */
  public static final String FILE_NAME = "observed-hazards.json";

  private static final Logger LOG = LoggerFactory.getLogger(FileHazardLedger.class);
  private static final int CODE_COUNT = HazardCode.values().length;
  /** What an incomplete ledger reads as, for the log line. */
  private static final String READS_AS =
      "what could be read (nothing observed when nothing could), and nothing recommends sharing until it can be read completely";
  /** How many dropped entries a problem names before it counts the rest. */
  private static final int DROPPED_NAMED = 3;

  private final Path file;
  private final LongSupplier clockMillis;
  private final ConcurrentHashMap<String, ConcurrentHashMap<String, Cell>> servers = new ConcurrentHashMap<>();
  private final AtomicLong generation = new AtomicLong();
  private volatile long flushedGeneration;
  /** Serialises flush, clear and reload within this ledger. */
  private final ReentrantLock ioLock = new ReentrantLock();
  /** Names cleared since the last flush; guarded by {@link #ioLock}. */
  private final Set<String> pendingClears = new HashSet<>();
  private volatile Runnable afterCapture = () -> {};
  /** Why the durable copy was not read completely at the last read, or null; written under {@link #ioLock}. */
  private volatile String incomplete;
  private final RecordsJson.WarnOnce warnings = new RecordsJson.WarnOnce();

  private FileHazardLedger(Path file, LongSupplier clockMillis) {
    this.file = file;
    this.clockMillis = clockMillis;
  }

  /** Opens the ledger in {@code recordsDirectory}, loading what the file holds. Reads only. */
  public static FileHazardLedger open(Path recordsDirectory) {
    return open(recordsDirectory, System::currentTimeMillis);
  }

  /**
   * Opens the ledger in {@code recordsDirectory} with a clock for {@code lastSeen}, loading what
   * the file holds. Reads only.
   */
  public static FileHazardLedger open(Path recordsDirectory, LongSupplier clockMillis) {
    FileHazardLedger l = new FileHazardLedger(recordsDirectory.resolve(FILE_NAME), Objects.requireNonNull(clockMillis));
    l.reload();
    return l;
  }

  /** The ledger file. */
  public Path file() {
    return file;
  }

  /** Runs {@code hook} inside {@link #flush}, after the payload is captured and before the write. For tests. */
  void afterCaptureHook(Runnable hook) {
    this.afterCapture = Objects.requireNonNull(hook);
  }

  @Override
  public boolean record(String serverName, String identity, HazardCode code, int attachedSessions) {
    Objects.requireNonNull(code, "code");
    if (serverName.isEmpty()) {
      throw new IllegalArgumentException("a hazard needs a server name");
    }
    if (identity.isEmpty()) {
      throw new IllegalArgumentException(
          "a hazard needs a launch identity; the empty identity is reserved for records an older writer could not attribute");
    }
    if (attachedSessions <= 1 && code.refutesSharing()) {
      return false;
    }
    double now = clockMillis.getAsLong() / 1000.0;
    int ordinal = code.ordinal();
    for (;;) {
      ConcurrentHashMap<String, Cell> ids = servers.get(serverName);
      if (ids == null) {
        ids = servers.computeIfAbsent(serverName, k -> new ConcurrentHashMap<>());
      }
      Cell c = ids.get(identity);
      if (c == null) {
        c = ids.computeIfAbsent(identity, k -> new Cell());
      }
      synchronized (c) {
        if (c.retired) {
          ids.remove(identity, c);
          continue;
        }
        c.pending[ordinal]++;
        if (now > c.lastSeen) {
          c.lastSeen = now;
        }
      }
      generation.incrementAndGet();
      return true;
    }
  }

  @Override
  public Set<HazardCode> codesFor(String serverName, String identity) {
    if (identity.isEmpty()) {
      return Set.of();
    }
    Map<String, Cell> ids = servers.get(serverName);
    Cell c = ids == null ? null : ids.get(identity);
    if (c == null) {
      return Set.of();
    }
    synchronized (c) {
      return LedgerCodec.codes(c.retired ? 0 : c.codes());
    }
  }

  @Override
  public Set<HazardCode> codesForName(String serverName) {
    Map<String, Cell> ids = servers.get(serverName);
    if (ids == null) {
      return Set.of();
    }
    int mask = 0;
    for (Cell c : ids.values()) {
      synchronized (c) {
        if (!c.retired) {
          mask |= c.codes();
        }
      }
    }
    return LedgerCodec.codes(mask);
  }

  @Override
  public Set<String> serverNames() {
    Set<String> out = new TreeSet<>();
    for (String name : servers.keySet()) {
      if (!codesForName(name).isEmpty()) {
        out.add(name);
      }
    }
    return Collections.unmodifiableSet(out);
  }

  @Override
  public boolean clear(String serverName) {
    ioLock.lock();
    try {
      boolean had = !codesForName(serverName).isEmpty();
      ConcurrentHashMap<String, Cell> ids = servers.remove(serverName);
      if (ids != null) {
        for (Cell c : ids.values()) {
          synchronized (c) {
            c.retired = true;
          }
        }
      }
      pendingClears.add(serverName);
      generation.incrementAndGet();
      LOG.info("cleared every hazard record of server {} (on disk at the next flush)", LogSafe.escape(serverName));
      return had;
    } finally {
      ioLock.unlock();
    }
  }

  @Override
  public boolean hasUnflushed() {
    return generation.get() != flushedGeneration;
  }

  @Override
  public void flush() throws IOException {
    ioLock.lock();
    try {
      long captured = generation.get();
      if (captured == flushedGeneration) {
        return;
      }
      Map<Cell, long[]> pendingByCell = new HashMap<>();
      Map<String, Map<String, LedgerCodec.Obs>> known = LedgerCodec.emptyModel();
      Map<String, Map<String, LedgerCodec.Obs>> fresh = LedgerCodec.emptyModel();
      capture(pendingByCell, known, fresh);
      Set<String> clears = Set.copyOf(pendingClears);
      afterCapture.run();

      Map<String, Map<String, LedgerCodec.Obs>> merged;
      AtomicFiles.Lock lock = AtomicFiles.lock(file);
      try {
        AtomicFiles.deleteStaleTemps(file);
        LedgerCodec.Result disk = LedgerCodec.read(file);
        Map<String, Map<String, LedgerCodec.Obs>> base;
        if (disk instanceof LedgerCodec.Future) {
          noteRead(disk);
          throw new IOException(
              file + " has schema " + ((LedgerCodec.Future) disk).schema()
                  + ", newer than this build's " + LedgerCodec.SCHEMA + "; refusing to overwrite a newer writer's ledger");
        } else if (disk instanceof LedgerCodec.Loaded) {
          base = ((LedgerCodec.Loaded) disk).servers();
          if (!((LedgerCodec.Loaded) disk).dropped().isEmpty()) {
            // What was dropped may be evidence: keep the file as it was for an operator.
            noteRead(disk);
            RecordsJson.moveAsideOrThrow(file);
          }
        } else {
          if (disk instanceof LedgerCodec.Unreadable) {
            noteRead(disk);
            RecordsJson.moveAsideOrThrow(file);
          }
          base = known;
        }
        merged = merge(base, fresh, clears);
        AtomicFiles.write(file, LedgerCodec.encode(merged));
        noteRead(new LedgerCodec.Loaded(merged, List.of()));
      } finally {
        lock.close();
      }
      absorb(merged, pendingByCell);
      pendingClears.removeAll(clears);
      flushedGeneration = captured;
    } finally {
      ioLock.unlock();
    }
  }

  @Override
  public void reload() {
    ioLock.lock();
    try {
      LedgerCodec.Result disk = LedgerCodec.read(file);
      if (disk instanceof LedgerCodec.Loaded) {
        Map<String, Map<String, LedgerCodec.Obs>> model = new TreeMap<>(((LedgerCodec.Loaded) disk).servers());
        model.keySet().removeAll(pendingClears);
        absorb(model, Map.of());
      }
      noteRead(disk);
    } finally {
      ioLock.unlock();
    }
  }

  /**
   * Remembers whether {@code disk}, the file as just read, was read completely (and whether a
   * moved-aside copy is still there), logging a problem the first time it is seen. Under
   * {@link #ioLock}.
   */
  private void noteRead(LedgerCodec.Result disk) {
    Optional<String> problem = RecordsJson.problems(problemOf(disk), RecordsJson.movedAsideCopy(file, "observations"));
    incomplete = problem.orElse(null);
    warnings.warn(problem, READS_AS);
  }

  private Optional<String> problemOf(LedgerCodec.Result disk) {
    if (disk instanceof LedgerCodec.Unreadable) {
      return Optional.of(file + " " + ((LedgerCodec.Unreadable) disk).why());
    }
    if (disk instanceof LedgerCodec.Future) {
      return Optional.of(file + " has schema " + ((LedgerCodec.Future) disk).schema() + ", newer than this build's "
          + LedgerCodec.SCHEMA + " (written by a newer build; this build never overwrites it)");
    }
    if (disk instanceof LedgerCodec.Loaded && !((LedgerCodec.Loaded) disk).dropped().isEmpty()) {
      List<String> dropped = ((LedgerCodec.Loaded) disk).dropped();
      String named = String.join("; ", dropped.subList(0, Math.min(DROPPED_NAMED, dropped.size())));
      int more = dropped.size() - DROPPED_NAMED;
      return Optional.of(file + " holds entries this build cannot read, dropped on reading: " + named
          + (more > 0 ? "; and " + more + " more" : ""));
    }
    return Optional.empty();
  }

  @Override
  public Snapshot snapshot() {
    Map<String, Map<String, Observations>> out = new TreeMap<>();
    servers.forEach(
        (name, ids) ->
            ids.forEach(
                (id, c) -> {
                  Observations o;
                  synchronized (c) {
                    int codes = c.codes();
                    if (c.retired || codes == 0) {
                      return;
                    }
                    o = new Observations(LedgerCodec.codes(codes), c.count(), c.lastSeen);
                  }
                  out.computeIfAbsent(name, k -> new TreeMap<>()).put(id, o);
                }));
    String why = incomplete;
    return why == null ? new Snapshot(out) : Snapshot.incomplete(out, why);
  }

  /** Copies every cell: what the file is believed to hold (its base) and what is pending. */
  private void capture(
      Map<Cell, long[]> pendingByCell,
      Map<String, Map<String, LedgerCodec.Obs>> known,
      Map<String, Map<String, LedgerCodec.Obs>> fresh) {
    servers.forEach(
        (name, ids) ->
            ids.forEach(
                (id, c) -> {
                  synchronized (c) {
                    if (c.retired) {
                      return;
                    }
                    if (c.baseCodes != 0) {
                      known.computeIfAbsent(name, k -> new TreeMap<>())
                          .put(id, new LedgerCodec.Obs(c.baseCodes, c.baseCount, c.lastSeen));
                    }
                    long total = 0;
                    int pendingCodes = 0;
                    for (int i = 0; i < CODE_COUNT; i++) {
                      total += c.pending[i];
                      if (c.pending[i] > 0) {
                        pendingCodes |= 1 << i;
                      }
                    }
                    if (total > 0) {
                      pendingByCell.put(c, c.pending.clone());
                      fresh.computeIfAbsent(name, k -> new TreeMap<>()).put(id, new LedgerCodec.Obs(pendingCodes, total, c.lastSeen));
                    }
                  }
                }));
  }

  private static Map<String, Map<String, LedgerCodec.Obs>> merge(
      Map<String, Map<String, LedgerCodec.Obs>> base,
      Map<String, Map<String, LedgerCodec.Obs>> fresh,
      Set<String> clears) {
    Map<String, Map<String, LedgerCodec.Obs>> out = LedgerCodec.emptyModel();
    base.forEach(
        (name, ids) -> {
          if (!clears.contains(name)) {
            out.put(name, new TreeMap<>(ids));
          }
        });
    fresh.forEach(
        (name, ids) -> {
          Map<String, LedgerCodec.Obs> target = out.computeIfAbsent(name, k -> new TreeMap<>());
          ids.forEach((id, o) -> target.merge(id, o, LedgerCodec.Obs::merge));
        });
    return out;
  }

  /**
   * Makes memory agree with {@code model} (what the file now says): each cell's base becomes the
   * model's record, minus nothing, and {@code written} pending counts are subtracted. A cell the
   * model lacks and with nothing pending was cleared by another writer and is retired.
   */
  private void absorb(Map<String, Map<String, LedgerCodec.Obs>> model, Map<Cell, long[]> written) {
    model.forEach(
        (name, ids) -> {
          ConcurrentHashMap<String, Cell> cells = servers.computeIfAbsent(name, k -> new ConcurrentHashMap<>());
          ids.forEach(
              (id, o) -> {
                for (;;) {
                  Cell c = cells.computeIfAbsent(id, k -> new Cell());
                  synchronized (c) {
                    if (c.retired) {
                      cells.remove(id, c);
                      continue;
                    }
                    subtract(c, written.get(c));
                    c.baseCodes = o.codes();
                    c.baseCount = o.count();
                    c.lastSeen = Math.max(c.lastSeen, o.lastSeen());
                  }
                  break;
                }
              });
        });
    servers.forEach(
        (name, ids) -> {
          Map<String, LedgerCodec.Obs> inModel = model.getOrDefault(name, Map.of());
          ids.forEach(
              (id, c) -> {
                if (inModel.containsKey(id)) {
                  return;
                }
                synchronized (c) {
                  subtract(c, written.get(c));
                  c.baseCodes = 0;
                  c.baseCount = 0;
                  if (c.pendingTotal() == 0) {
                    c.retired = true;
                    ids.remove(id, c);
                  }
                }
              });
        });
  }

  private static void subtract(Cell c, long[] written) {
    if (written != null) {
      for (int i = 0; i < CODE_COUNT; i++) {
        c.pending[i] -= written[i];
      }
    }
  }

  /** One (server, identity) record; every field guarded by the cell's monitor. */
  private static final class Cell {
    int baseCodes;
    long baseCount;
    double lastSeen;
    final long[] pending = new long[CODE_COUNT];
    boolean retired;

    int codes() {
      int m = baseCodes;
      for (int i = 0; i < CODE_COUNT; i++) {
        if (pending[i] > 0) {
          m |= 1 << i;
        }
      }
      return m;
    }

    long pendingTotal() {
      long t = 0;
      for (long p : pending) {
        t += p;
      }
      return t;
    }

    long count() {
      return baseCount + pendingTotal();
    }
  }

  @Override
  public String toString() {
    return "FileHazardLedger[" + file + "]";
  }
}
