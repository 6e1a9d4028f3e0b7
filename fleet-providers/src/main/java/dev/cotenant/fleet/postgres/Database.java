package dev.cotenant.fleet.postgres;

import java.io.IOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one connection the three stores of a {@link PostgresRecordStores} share, and the
 * transactions they run on it.
 *
 * <p>One connection, used by one transaction at a time: the stores' hot paths do no IO (the
 * ledger records in memory), so their database work is a flush, a reload or one record's update,
 * and a pool bought nothing in the benchmarks (see {@code docs/performance.md}). A connection that
 * failed is dropped and the next transaction opens a new one; a transaction that failed on a
 * connection that had been idle is tried once more on a fresh one (the server may have been
 * restarted meanwhile), and one the server cancelled for a serialization conflict or a deadlock is
 * tried again up to {@value #CONFLICT_RETRIES} times. Thread-safe.
 */
final class Database implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Database.class);
  static final int CONFLICT_RETRIES = 5;

  /** Work done inside one transaction. */
  @FunctionalInterface
  interface Work<T> {
    T run(Connection c) throws SQLException, IOException;
  }

  private final PostgresSettings settings;
  private final Object lock = new Object();
  private @Nullable Connection connection;
  private Optional<String> schemaProblem = Optional.empty();

  private Database(PostgresSettings settings) {
    this.settings = settings;
  }

  /**
   * Connects, and creates or migrates the schema.
   *
   * @throws IOException naming the database when it cannot be reached or the schema cannot be
   *     created
   */
  static Database open(PostgresSettings settings) throws IOException {
    Database db = new Database(settings);
    db.schemaProblem = db.transaction("open the Cotenant records (connect, then create or migrate the schema)", c -> Schema.migrate(c, settings.schema()));
    db.schemaProblem.ifPresent(p -> LOG.warn("{}", p));
    return db;
  }

  PostgresSettings settings() {
    return settings;
  }

  /** The schema name, quoted as SQL uses it. */
  String schema() {
    return "\"" + settings.schema() + "\"";
  }

  /**
   * Why the records in this database cannot be read as this version reads them (a newer schema),
   * or empty when they can.
   */
  Optional<String> schemaProblem() {
    return schemaProblem;
  }

  /** Refuses a write while {@link #schemaProblem()} is present. */
  void checkWritable() throws IOException {
    if (schemaProblem.isPresent()) {
      throw new IOException(schemaProblem.get() + "; nothing was written");
    }
  }

  /**
   * Runs {@code work} in one transaction and commits it.
   *
   * @param what what the work does, for the message of a failure
   * @throws IOException naming the database and the cause when it fails; nothing it did is kept
   */
  <T> T transaction(String what, Work<T> work) throws IOException {
    synchronized (lock) {
      int conflicts = 0;
      boolean retriedConnection = false;
      while (true) {
        boolean fresh = connection == null;
        Connection c;
        try {
          c = connection();
        } catch (SQLException e) {
          throw failure(what, e);
        }
        try {
          T result = work.run(c);
          c.commit();
          return result;
        } catch (SQLException e) {
          rollback(c);
          String state = e.getSQLState() == null ? "" : e.getSQLState();
          if ((state.equals("40001") || state.equals("40P01")) && conflicts < CONFLICT_RETRIES) {
            conflicts++;
            continue;
          }
          if (connectionLost(c, state)) {
            drop();
            if (!fresh && !retriedConnection) {
              retriedConnection = true;
              continue;
            }
          }
          throw failure(what, e);
        } catch (IOException | RuntimeException | Error e) {
          rollback(c);
          throw e;
        }
      }
    }
  }

  private Connection connection() throws SQLException {
    if (connection == null) {
      Connection c = DriverManager.getConnection(settings.url(), settings.driverProperties());
      c.setAutoCommit(false);
      connection = c;
    }
    return connection;
  }

  private static boolean connectionLost(Connection c, String state) {
    if (state.startsWith("08") || state.equals("57P01") || state.equals("57P02") || state.equals("57P03")) {
      return true;
    }
    try {
      return c.isClosed() || !c.isValid(2);
    } catch (SQLException e) {
      return true;
    }
  }

  private void rollback(Connection c) {
    try {
      if (!c.isClosed()) {
        c.rollback();
      }
    } catch (SQLException e) {
      drop();
    }
  }

  private void drop() {
    Connection c = connection;
    connection = null;
    if (c != null) {
      try {
        c.close();
      } catch (SQLException e) {
        // Already broken.
      }
    }
  }

  private IOException failure(String what, SQLException e) {
    return new IOException(describe(what, e), revealsSecret(e) ? scrubbed(e) : e);
  }

  /** True when a message of {@code e}, its causes or its chained exceptions holds a secret. */
  private boolean revealsSecret(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t.getMessage() != null && settings.reveals(t.getMessage())) {
        return true;
      }
      if (t instanceof SQLException && ((SQLException) t).getNextException() != null
          && ((SQLException) t).getNextException() != t && revealsSecret(((SQLException) t).getNextException())) {
        return true;
      }
      if (t.getCause() == t) {
        break;
      }
    }
    return false;
  }

  /** A copy of {@code e} whose message hides the secrets, with its stack trace and without its causes. */
  private SQLException scrubbed(SQLException e) {
    SQLException s = new SQLException(settings.scrub(String.valueOf(e.getMessage())), e.getSQLState(), e.getErrorCode());
    s.setStackTrace(e.getStackTrace());
    return s;
  }

  /** One line naming the database, the work and the cause; never the password. */
  String describe(String what, SQLException e) {
    SQLException shown = e instanceof java.sql.BatchUpdateException && e.getNextException() != null ? e.getNextException() : e;
    // Secrets are hidden before the line is cut, so a cut never leaves part of one.
    String cause = shown.getMessage() == null ? shown.getClass().getSimpleName()
        : settings.scrub(shown.getMessage()).lines().findFirst().orElse("");
    if (cause.length() > 300) {
      cause = cause.substring(0, 300) + "...";
    }
    return "PostgreSQL at " + settings.redactedUrl() + settings.who() + " could not " + what + ": " + cause
        + (shown.getSQLState() == null ? "" : " (SQLSTATE " + shown.getSQLState() + ")");
  }

  /** Executes statements, for DDL. */
  static void execute(Connection c, List<String> statements) throws SQLException {
    try (Statement s = c.createStatement()) {
      for (String sql : statements) {
        s.execute(sql);
      }
    }
  }

  /** Takes a transaction-scoped advisory lock on {@code key} (released at commit or rollback). */
  static void lock(Connection c, String key) throws SQLException {
    try (PreparedStatement p = c.prepareStatement("SELECT pg_advisory_xact_lock(hashtextextended(?, 0))")) {
      p.setString(1, Text.store(key));
      try (ResultSet r = p.executeQuery()) {
        r.next();
      }
    }
  }

  @Override
  public void close() {
    synchronized (lock) {
      drop();
    }
  }
}
