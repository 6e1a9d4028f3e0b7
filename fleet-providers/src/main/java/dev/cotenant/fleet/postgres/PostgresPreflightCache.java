package dev.cotenant.fleet.postgres;

import dev.cotenant.spi.PreflightCache;
import dev.cotenant.spi.PreflightRecord;
import dev.cotenant.spi.StartRecording;
import java.io.IOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The pre-flight cache in PostgreSQL: one row per server in {@code preflight}, the seeding
 * markers in {@code applied}.
 *
 * <p>{@link #put}, {@link #drop} and {@link #markApplied} change memory; {@link #flush} writes them
 * in one transaction (drops deleted, rows upserted by name, markers inserted and never deleted)
 * and reads the tables back, so a measurement one replica took is the one every replica reads:
 * each server is measured once per identity for the fleet. A row whose stored handshake is not in
 * the shape this version writes keeps its measurement without the handshake, as the file store
 * does. {@link #load} never throws: when the database cannot be read it answers what it last read
 * plus what changed here, and says so in the log; a missing measurement only ever costs a
 * pre-flight, never a wrong verdict. Thread-safe.
 */
final class PostgresPreflightCache implements PreflightCache {
  private static final Logger LOG = LoggerFactory.getLogger(PostgresPreflightCache.class);

  private final Database db;
  private final Object lock = new Object();
  private Map<String, PreflightRecord> stored = new HashMap<>();
  private Set<String> storedApplied = new HashSet<>();
  private Map<String, PreflightRecord> puts = new HashMap<>();
  private Set<String> drops = new HashSet<>();
  private Set<String> marks = new HashSet<>();

  PostgresPreflightCache(Database db) {
    this.db = db;
    load();
  }

  @Override
  public Snapshot load() {
    if (db.schemaProblem().isEmpty()) {
      try {
        Tables now = db.transaction("read the pre-flight cache", this::read);
        synchronized (lock) {
          stored = now.rows;
          storedApplied = now.applied;
        }
      } catch (IOException e) {
        LOG.warn("{}; answering from the rows read last", e.getMessage());
      }
    }
    return snapshot();
  }

  @Override
  public Snapshot snapshot() {
    synchronized (lock) {
      Map<String, PreflightRecord> rows = new HashMap<>(stored);
      rows.keySet().removeAll(drops);
      rows.putAll(puts);
      Set<String> applied = new HashSet<>(storedApplied);
      applied.addAll(marks);
      return new Snapshot(rows, applied);
    }
  }

  @Override
  public void put(PreflightRecord record) {
    synchronized (lock) {
      puts.put(record.serverName(), record);
      drops.remove(record.serverName());
    }
  }

  @Override
  public boolean drop(String serverName) {
    synchronized (lock) {
      boolean had = puts.remove(serverName) != null | (stored.containsKey(serverName) && !drops.contains(serverName));
      drops.add(serverName);
      return had;
    }
  }

  @Override
  public void markApplied(String serverName) {
    synchronized (lock) {
      marks.add(serverName);
    }
  }

  @Override
  public void flush() throws IOException {
    Map<String, PreflightRecord> writing;
    Set<String> dropping;
    Set<String> marking;
    synchronized (lock) {
      writing = puts;
      dropping = drops;
      marking = marks;
      puts = new HashMap<>();
      drops = new HashSet<>();
      marks = new HashSet<>();
    }
    try {
      db.checkWritable();
      Tables now = db.transaction("write the pre-flight cache", c -> {
        write(c, writing, dropping, marking);
        return read(c);
      });
      synchronized (lock) {
        stored = now.rows;
        storedApplied = now.applied;
      }
    } catch (IOException | RuntimeException e) {
      synchronized (lock) {
        // What changed while this flush ran came after what it was writing.
        Map<String, PreflightRecord> laterPuts = puts;
        Set<String> laterDrops = drops;
        puts = writing;
        drops = dropping;
        puts.keySet().removeAll(laterDrops);
        drops.addAll(laterDrops);
        drops.removeAll(laterPuts.keySet());
        puts.putAll(laterPuts);
        marks.addAll(marking);
      }
      throw e;
    }
  }

  private static final class Tables {
    final Map<String, PreflightRecord> rows;
    final Set<String> applied;

    Tables(Map<String, PreflightRecord> rows, Set<String> applied) {
      this.rows = rows;
      this.applied = applied;
    }
  }

  private void write(Connection c, Map<String, PreflightRecord> rows, Set<String> dropped, Set<String> applied)
      throws SQLException {
    String s = db.schema();
    if (!dropped.isEmpty()) {
      try (PreparedStatement p = c.prepareStatement("DELETE FROM " + s + ".preflight WHERE server_name = ?")) {
        for (String name : new TreeSet<>(dropped)) {
          p.setString(1, Text.store(name));
          p.addBatch();
        }
        p.executeBatch();
      }
    }
    if (!rows.isEmpty()) {
      String sql = "INSERT INTO " + s + ".preflight (server_name, identity, ran, caller_sensitive, reasons, evaluated_at,"
          + " reported_version, handshake, start, start_not_recorded) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
          + " ON CONFLICT (server_name) DO UPDATE SET"
          + " identity = EXCLUDED.identity, ran = EXCLUDED.ran, caller_sensitive = EXCLUDED.caller_sensitive,"
          + " reasons = EXCLUDED.reasons, evaluated_at = EXCLUDED.evaluated_at,"
          + " reported_version = EXCLUDED.reported_version, handshake = EXCLUDED.handshake, start = EXCLUDED.start,"
          + " start_not_recorded = EXCLUDED.start_not_recorded";
      try (PreparedStatement p = c.prepareStatement(sql)) {
        for (PreflightRecord r : new TreeMap<>(rows).values()) {
          p.setString(1, Text.store(r.serverName()));
          p.setString(2, Text.store(r.identity()));
          p.setBoolean(3, r.ran());
          p.setBoolean(4, r.callerSensitive());
          p.setArray(5, c.createArrayOf("text", r.reasons().stream().map(Text::store).toArray()));
          p.setDouble(6, r.evaluatedAt());
          if (r.reportedVersion().isPresent()) {
            p.setString(7, Text.store(r.reportedVersion().get()));
          } else {
            p.setNull(7, Types.VARCHAR);
          }
          Optional<String> handshake = r.handshake().flatMap(RowJson::handshake);
          if (handshake.isPresent()) {
            p.setString(8, handshake.get());
          } else {
            p.setNull(8, Types.VARCHAR);
          }
          Optional<String> start = r.start().flatMap(RowJson::start);
          String notRecorded = r.start().isPresent() && start.isEmpty()
              ? "its answers nest deeper than the records keep" : r.startNotRecorded();
          if (start.isPresent()) {
            p.setString(9, Text.store(start.get()));
          } else {
            p.setNull(9, Types.VARCHAR);
          }
          if (notRecorded.isEmpty()) {
            p.setNull(10, Types.VARCHAR);
          } else {
            p.setString(10, Text.store(notRecorded));
          }
          p.addBatch();
        }
        p.executeBatch();
      }
    }
    if (!applied.isEmpty()) {
      try (PreparedStatement p = c.prepareStatement(
          "INSERT INTO " + s + ".applied (server_name) VALUES (?) ON CONFLICT (server_name) DO NOTHING")) {
        for (String name : new TreeSet<>(applied)) {
          p.setString(1, Text.store(name));
          p.addBatch();
        }
        p.executeBatch();
      }
    }
  }

  private Tables read(Connection c) throws SQLException {
    String s = db.schema();
    Map<String, PreflightRecord> rows = new HashMap<>();
    try (PreparedStatement p = c.prepareStatement("SELECT server_name, identity, ran, caller_sensitive, reasons,"
        + " evaluated_at, reported_version, handshake, start, start_not_recorded FROM " + s + ".preflight")) {
      p.setFetchSize(1000);
      try (ResultSet r = p.executeQuery()) {
        while (r.next()) {
          String name = Text.read(r.getString(1));
          String handshake = r.getString(8);
          List<String> reasons = Arrays.stream((Object[]) r.getArray(5).getArray()).map(o -> Text.read(String.valueOf(o))).toList();
          Optional<StartRecording> start = Optional.empty();
          String notRecorded = Optional.ofNullable(r.getString(10)).map(Text::read).orElse("");
          String startText = r.getString(9);
          if (startText != null) {
            try {
              start = Optional.of(RowJson.readStart(Text.read(startText)));
            } catch (IllegalArgumentException e) {
              notRecorded = "the recorded start could not be read: " + e.getMessage();
            }
          }
          rows.put(name, new PreflightRecord(name, Text.read(r.getString(2)), r.getBoolean(3), r.getBoolean(4), reasons,
              r.getDouble(6), Optional.ofNullable(r.getString(7)).map(Text::read),
              handshake == null ? Optional.empty() : RowJson.readHandshake(handshake), start, notRecorded));
        }
      }
    }
    Set<String> applied = new HashSet<>();
    try (PreparedStatement p = c.prepareStatement("SELECT server_name FROM " + s + ".applied");
        ResultSet r = p.executeQuery()) {
      while (r.next()) {
        applied.add(Text.read(r.getString(1)));
      }
    }
    return new Tables(rows, applied);
  }
}
