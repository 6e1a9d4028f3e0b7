package dev.cotenant.fleet.postgres;

import dev.cotenant.api.ConcurrencyModel;
import dev.cotenant.api.ConcurrencyRecord;
import dev.cotenant.api.ProbePass;
import dev.cotenant.api.ShareScope;
import dev.cotenant.spi.ConcurrencyRecords;
import java.io.IOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The concurrency records in PostgreSQL: one row per server in {@code concurrency}, the probe as
 * JSON text.
 *
 * <p>Reads go to the database every time (placement reads a record per session, so a
 * registration or a withdrawal by any replica decides the next placement everywhere). A row the
 * record's own constructor refuses reads as absent and is listed as rejected; the table's CHECK
 * constraints already refuse {@code shared} without {@code maxConcurrent} or a probe. When the
 * database cannot be read, {@link #load} answers no records and says why in
 * {@link Snapshot#incomplete()}, so nothing recommends sharing. {@link #update} runs in one
 * transaction holding an advisory lock on the server's name, so a read-modify-write by two
 * replicas at once loses nothing. Thread-safe.
 */
final class PostgresConcurrencyRecords implements ConcurrencyRecords {
  private static final Logger LOG = LoggerFactory.getLogger(PostgresConcurrencyRecords.class);

  private final Database db;

  PostgresConcurrencyRecords(Database db) {
    this.db = db;
  }

  @Override
  public Snapshot load() {
    if (db.schemaProblem().isPresent()) {
      return Snapshot.incomplete(Map.of(), Map.of(), db.schemaProblem().get());
    }
    try {
      return db.transaction("read the concurrency records", c -> {
        Map<String, ConcurrencyRecord> records = new HashMap<>();
        Map<String, String> rejected = new HashMap<>();
        try (PreparedStatement p = c.prepareStatement(
            "SELECT server_name, model, scope, max_concurrent, probe FROM " + db.schema() + ".concurrency");
            ResultSet r = p.executeQuery()) {
          while (r.next()) {
            String name = Text.read(r.getString(1));
            try {
              records.put(name, decode(r));
            } catch (IllegalArgumentException e) {
              rejected.put(name, String.valueOf(e.getMessage()));
            }
          }
        }
        return new Snapshot(records, rejected);
      });
    } catch (IOException e) {
      LOG.warn("{}; no server is shared until a read succeeds", e.getMessage());
      return Snapshot.incomplete(Map.of(), Map.of(), e.getMessage());
    }
  }

  @Override
  public Optional<ConcurrencyRecord> get(String serverName) {
    if (db.schemaProblem().isPresent()) {
      return Optional.empty();
    }
    try {
      return db.transaction("read the concurrency record of " + serverName, c -> stored(c, serverName, false));
    } catch (IOException e) {
      LOG.warn("{}; reading no record (not shared)", e.getMessage());
      return Optional.empty();
    }
  }

  @Override
  public Optional<ConcurrencyRecord> update(
      String serverName, Function<Optional<ConcurrencyRecord>, Optional<ConcurrencyRecord>> change) throws IOException {
    db.checkWritable();
    return db.transaction("update the concurrency record of " + serverName, c -> {
      Database.lock(c, "cotenant-concurrency/" + db.settings().schema() + "/" + serverName);
      Optional<ConcurrencyRecord> next = change.apply(stored(c, serverName, true));
      if (next.isPresent() && !next.get().serverName().equals(serverName)) {
        throw new IllegalArgumentException(
            "an update of " + serverName + "'s concurrency record returned one of " + next.get().serverName());
      }
      if (next.isEmpty()) {
        try (PreparedStatement p = c.prepareStatement("DELETE FROM " + db.schema() + ".concurrency WHERE server_name = ?")) {
          p.setString(1, Text.store(serverName));
          p.executeUpdate();
        }
        return next;
      }
      ConcurrencyRecord r = next.get();
      try (PreparedStatement p = c.prepareStatement("INSERT INTO " + db.schema() + ".concurrency (server_name, model,"
          + " scope, max_concurrent, probe) VALUES (?, ?, ?, ?, ?) ON CONFLICT (server_name) DO UPDATE SET"
          + " model = EXCLUDED.model, scope = EXCLUDED.scope, max_concurrent = EXCLUDED.max_concurrent,"
          + " probe = EXCLUDED.probe")) {
        p.setString(1, Text.store(serverName));
        p.setString(2, r.model().wireName());
        p.setString(3, r.scope().wireName());
        if (r.maxConcurrent().isPresent()) {
          p.setInt(4, r.maxConcurrent().getAsInt());
        } else {
          p.setNull(4, Types.INTEGER);
        }
        if (r.probe().isPresent()) {
          p.setString(5, RowJson.probe(r.probe().get()));
        } else {
          p.setNull(5, Types.VARCHAR);
        }
        p.executeUpdate();
      }
      return next;
    });
  }

  /** The stored record of {@code serverName}; empty when there is none or it is refused. */
  private Optional<ConcurrencyRecord> stored(Connection c, String serverName, boolean forUpdate) throws SQLException {
    try (PreparedStatement p = c.prepareStatement("SELECT server_name, model, scope, max_concurrent, probe FROM "
        + db.schema() + ".concurrency WHERE server_name = ?" + (forUpdate ? " FOR UPDATE" : ""))) {
      p.setString(1, Text.store(serverName));
      try (ResultSet r = p.executeQuery()) {
        if (!r.next()) {
          return Optional.empty();
        }
        try {
          return Optional.of(decode(r));
        } catch (IllegalArgumentException e) {
          return Optional.empty();
        }
      }
    }
  }

  /**
   * The record of the current row.
   *
   * @throws IllegalArgumentException saying why when the row is refused
   */
  private static ConcurrencyRecord decode(ResultSet r) throws SQLException {
    String name = Text.read(r.getString(1));
    String modelName = r.getString(2);
    String scopeName = r.getString(3);
    ConcurrencyModel model = ConcurrencyModel.fromWire(modelName)
        .orElseThrow(() -> new IllegalArgumentException("unknown concurrency model '" + modelName + "'"));
    ShareScope scope = ShareScope.fromWire(scopeName)
        .orElseThrow(() -> new IllegalArgumentException("unknown share scope '" + scopeName + "'"));
    int max = r.getInt(4);
    OptionalInt maxConcurrent = r.wasNull() ? OptionalInt.empty() : OptionalInt.of(max);
    String probe = r.getString(5);
    Optional<ProbePass> pass = probe == null ? Optional.empty() : Optional.of(RowJson.readProbe(probe));
    return new ConcurrencyRecord(name, model, scope, maxConcurrent, pass);
  }
}
