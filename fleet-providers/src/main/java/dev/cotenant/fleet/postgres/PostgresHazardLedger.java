package dev.cotenant.fleet.postgres;

import dev.cotenant.api.HazardCode;
import dev.cotenant.spi.HazardLedger;
import java.io.IOException;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The hazard ledger in PostgreSQL: one row per server and launch identity in {@code hazards}.
 *
 * <p>{@link #record} only changes memory: the observation is added to the in-memory view and to a
 * pending delta. {@link #flush} writes the deltas in one transaction, merged BY THE DATABASE into
 * what other replicas wrote ({@code count = count + delta}, the codes' union, the latest
 * {@code last_seen}), after the servers cleared here were deleted, then reads the table back: no
 * replica's observation is lost to another's write. Rows are locked in one order (server, then
 * identity) so two replicas flushing together cannot deadlock.
 *
 * <p>Fail closed: when the table cannot be read (the database is unreachable, the schema is
 * newer, a row carries a code this version does not know), {@link #snapshot()} keeps what it last
 * read plus what was recorded here and says it is incomplete, so nothing recommends sharing until
 * a later read is complete. A failed flush keeps every delta for the next one. Thread-safe.
 */
final class PostgresHazardLedger implements HazardLedger {
  private static final Logger LOG = LoggerFactory.getLogger(PostgresHazardLedger.class);

  /** Observations of one server and identity: a mutable accumulator. */
  private static final class Acc {
    final Set<HazardCode> codes = EnumSet.noneOf(HazardCode.class);
    long count;
    double lastSeen;

    void add(Set<HazardCode> c, long n, double seen) {
      codes.addAll(c);
      count += n;
      lastSeen = Math.max(lastSeen, seen);
    }

    Observations frozen() {
      return new Observations(codes, count, lastSeen);
    }
  }

  private final Database db;
  private final Object lock = new Object();
  /** What the table held at the last read. */
  private Map<String, Map<String, Acc>> stored = new HashMap<>();
  /** Recorded here and not flushed yet. */
  private Map<String, Map<String, Acc>> pending = new HashMap<>();
  /** Cleared here and not flushed yet. */
  private Set<String> cleared = new HashSet<>();
  private Optional<String> incomplete;
  private HazardLedger.@Nullable Snapshot cached;

  PostgresHazardLedger(Database db) {
    this.db = db;
    this.incomplete = db.schemaProblem();
    reload();
  }

  @Override
  public boolean record(String serverName, String identity, HazardCode code, int attachedSessions) {
    if (serverName == null || serverName.isEmpty()) {
      throw new IllegalArgumentException("a hazard needs a server name");
    }
    if (identity == null || identity.isEmpty()) {
      throw new IllegalArgumentException("a hazard of " + serverName + " needs a launch identity");
    }
    if (code == null || (attachedSessions <= 1 && code.refutesSharing())) {
      return false;
    }
    double now = System.currentTimeMillis() / 1000.0;
    synchronized (lock) {
      pending.computeIfAbsent(serverName, k -> new HashMap<>()).computeIfAbsent(identity, k -> new Acc())
          .add(EnumSet.of(code), 1, now);
      cached = null;
    }
    return true;
  }

  @Override
  public boolean clear(String serverName) {
    synchronized (lock) {
      boolean had = stored.containsKey(serverName) || pending.containsKey(serverName);
      stored.remove(serverName);
      pending.remove(serverName);
      // Deleted at the next flush even when this replica has not read it yet: another may have.
      cleared.add(serverName);
      cached = null;
      return had;
    }
  }

  @Override
  public boolean hasUnflushed() {
    synchronized (lock) {
      return !pending.isEmpty() || !cleared.isEmpty();
    }
  }

  @Override
  public void flush() throws IOException {
    Map<String, Map<String, Acc>> writing;
    Set<String> clearing;
    synchronized (lock) {
      writing = pending;
      clearing = cleared;
      pending = new HashMap<>();
      cleared = new HashSet<>();
    }
    try {
      db.checkWritable();
      Read now = db.transaction("write the hazard ledger", c -> {
        delete(c, clearing);
        upsert(c, writing);
        return read(c);
      });
      synchronized (lock) {
        stored = now.table;
        stored.keySet().removeAll(cleared);
        incomplete = now.problem;
        cached = null;
      }
    } catch (IOException | RuntimeException e) {
      synchronized (lock) {
        // Keep every change for the next flush, in order: what was recorded or cleared while this
        // flush ran came after what it was writing.
        Map<String, Map<String, Acc>> later = pending;
        Set<String> laterClears = cleared;
        pending = writing;
        cleared = clearing;
        for (String name : laterClears) {
          pending.remove(name);
          cleared.add(name);
        }
        later.forEach((name, ids) -> ids.forEach((id, acc) -> pending.computeIfAbsent(name, k -> new HashMap<>())
            .computeIfAbsent(id, k -> new Acc()).add(acc.codes, acc.count, acc.lastSeen)));
        cached = null;
      }
      throw e;
    }
  }

  @Override
  public void reload() {
    try {
      Read now = db.transaction("read the hazard ledger", this::read);
      synchronized (lock) {
        stored = now.table;
        stored.keySet().removeAll(cleared);
        incomplete = now.problem.or(db::schemaProblem);
        cached = null;
      }
    } catch (IOException e) {
      LOG.warn("{}; the ledger is incomplete until a read succeeds, so nothing recommends sharing", e.getMessage());
      synchronized (lock) {
        incomplete = Optional.of(e.getMessage());
        cached = null;
      }
    }
  }

  @Override
  public HazardLedger.Snapshot snapshot() {
    synchronized (lock) {
      if (cached != null) {
        return cached;
      }
      Map<String, Map<String, Observations>> out = new TreeMap<>();
      merge(out, stored);
      merge(out, pending);
      HazardLedger.Snapshot s = new HazardLedger.Snapshot(out, incomplete);
      cached = s;
      return s;
    }
  }

  private static void merge(Map<String, Map<String, Observations>> out, Map<String, Map<String, Acc>> in) {
    in.forEach((name, ids) -> {
      Map<String, Observations> m = out.computeIfAbsent(name, k -> new TreeMap<>());
      ids.forEach((id, acc) -> {
        Observations before = m.get(id);
        if (before == null) {
          m.put(id, acc.frozen());
        } else {
          Set<HazardCode> codes = EnumSet.noneOf(HazardCode.class);
          codes.addAll(before.codes());
          codes.addAll(acc.codes);
          m.put(id, new Observations(codes, before.count() + acc.count, Math.max(before.lastSeen(), acc.lastSeen)));
        }
      });
    });
  }

  /** What one read of the table gave. */
  private static final class Read {
    final Map<String, Map<String, Acc>> table;
    final Optional<String> problem;

    Read(Map<String, Map<String, Acc>> table, Optional<String> problem) {
      this.table = table;
      this.problem = problem;
    }
  }

  private void delete(Connection c, Set<String> names) throws SQLException {
    if (names.isEmpty()) {
      return;
    }
    try (PreparedStatement p = c.prepareStatement("DELETE FROM " + db.schema() + ".hazards WHERE server_name = ?")) {
      for (String name : new TreeSet<>(names)) {
        p.setString(1, Text.store(name));
        p.addBatch();
      }
      p.executeBatch();
    }
  }

  private void upsert(Connection c, Map<String, Map<String, Acc>> rows) throws SQLException {
    if (rows.isEmpty()) {
      return;
    }
    String sql = "INSERT INTO " + db.schema() + ".hazards AS h (server_name, identity, codes, count, last_seen)"
        + " VALUES (?, ?, ?, ?, ?) ON CONFLICT (server_name, identity) DO UPDATE SET"
        + " codes = ARRAY(SELECT DISTINCT x FROM unnest(h.codes || EXCLUDED.codes) AS x ORDER BY x),"
        + " count = h.count + EXCLUDED.count,"
        + " last_seen = GREATEST(h.last_seen, EXCLUDED.last_seen)";
    try (PreparedStatement p = c.prepareStatement(sql)) {
      for (Map.Entry<String, Map<String, Acc>> server : new TreeMap<>(rows).entrySet()) {
        for (Map.Entry<String, Acc> id : new TreeMap<>(server.getValue()).entrySet()) {
          List<String> codes = new ArrayList<>();
          id.getValue().codes.forEach(code -> codes.add(code.wireName()));
          Array array = c.createArrayOf("text", codes.toArray());
          p.setString(1, Text.store(server.getKey()));
          p.setString(2, Text.store(id.getKey()));
          p.setArray(3, array);
          p.setLong(4, id.getValue().count);
          p.setDouble(5, id.getValue().lastSeen);
          p.addBatch();
        }
      }
      p.executeBatch();
    }
  }

  private Read read(Connection c) throws SQLException {
    Map<String, Map<String, Acc>> table = new HashMap<>();
    Set<String> unknown = new TreeSet<>();
    try (PreparedStatement p = c.prepareStatement(
            "SELECT server_name, identity, codes, count, last_seen FROM " + db.schema() + ".hazards");
        ResultSet r = p.executeQuery()) {
      p.setFetchSize(1000);
      while (r.next()) {
        String name = Text.read(r.getString(1));
        String id = Text.read(r.getString(2));
        Set<HazardCode> codes = EnumSet.noneOf(HazardCode.class);
        for (Object o : (Object[]) r.getArray(3).getArray()) {
          Optional<HazardCode> code = HazardCode.fromWire(String.valueOf(o));
          if (code.isPresent()) {
            codes.add(code.get());
          } else {
            unknown.add(String.valueOf(o));
          }
        }
        if (!codes.isEmpty()) {
          table.computeIfAbsent(name, k -> new HashMap<>()).computeIfAbsent(id, k -> new Acc())
              .add(codes, r.getLong(4), r.getDouble(5));
        }
      }
    }
    Optional<String> problem = unknown.isEmpty() ? Optional.empty() : Optional.of(
        "the hazard ledger in PostgreSQL at " + db.settings().redactedUrl() + " holds hazard codes this Cotenant does not"
            + " know " + unknown + " (written by a newer version?)");
    return new Read(table, problem);
  }
}
