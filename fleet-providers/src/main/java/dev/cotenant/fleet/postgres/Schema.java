package dev.cotenant.fleet.postgres;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;

/**
 * The tables of the {@code postgres} record stores and their versioned migrations.
 *
 * <p>Every store lives in one schema ({@code cotenant} unless configured), whose
 * {@code schema_version} table holds one row: the version of the layout. At first use, under a
 * transaction-scoped advisory lock (so replicas starting together migrate once), the schema and
 * tables are created and each migration above the stored version runs, in order, in the same
 * transaction. Running it again changes nothing. A database whose version is NEWER than
 * {@value #VERSION} was written by a later Cotenant: nothing is migrated or written, and every
 * read says it could not be read completely, so nothing recommends sharing (fail closed).
 *
 * <p>Version 1 (documented in {@code docs/fleet.md}):
 * <ul>
 *   <li>{@code hazards(server_name, identity, codes text[], count, last_seen)}, one row per server
 *       and launch identity;
 *   <li>{@code preflight(server_name, identity, ran, caller_sensitive, reasons text[],
 *       evaluated_at, reported_version, handshake)}, one row per server, the handshake as JSON
 *       text;
 *   <li>{@code applied(server_name)}, the seeding markers, never pruned;
 *   <li>{@code concurrency(server_name, model, scope, max_concurrent, probe)}, one row per server,
 *       the probe as JSON text, with the record's own invariants as CHECK constraints.
 * </ul>
 *
 * <p>Version 2 adds to {@code preflight} the start the pre-flight recorded ({@code start}, JSON
 * text as {@code StartRecording.toJson} writes it) and why it recorded none
 * ({@code start_not_recorded}), both nullable.
 */
final class Schema {
  /** The newest layout this version reads and writes. */
  static final int VERSION = 2;

  private Schema() {}

  /** The DDL of each version, index 0 being version 1. */
  static List<List<String>> migrations(String s) {
    return List.of(
        List.of(
        "CREATE TABLE " + s + ".hazards ("
            + " server_name text NOT NULL CHECK (server_name <> ''),"
            + " identity text NOT NULL,"
            + " codes text[] NOT NULL CHECK (cardinality(codes) > 0),"
            + " count bigint NOT NULL CHECK (count > 0),"
            + " last_seen double precision NOT NULL,"
            + " PRIMARY KEY (server_name, identity))",
        "CREATE TABLE " + s + ".preflight ("
            + " server_name text PRIMARY KEY,"
            + " identity text NOT NULL,"
            + " ran boolean NOT NULL,"
            + " caller_sensitive boolean NOT NULL,"
            + " reasons text[] NOT NULL,"
            + " evaluated_at double precision NOT NULL,"
            + " reported_version text,"
            + " handshake text)",
        "CREATE TABLE " + s + ".applied (server_name text PRIMARY KEY)",
        "CREATE TABLE " + s + ".concurrency ("
            + " server_name text PRIMARY KEY CHECK (server_name <> ''),"
            + " model text NOT NULL,"
            + " scope text NOT NULL,"
            + " max_concurrent integer CHECK (max_concurrent IS NULL OR max_concurrent > 0),"
            + " probe text,"
            + " CHECK (model <> 'shared' OR (max_concurrent IS NOT NULL AND probe IS NOT NULL)))"),
        List.of("ALTER TABLE " + s + ".preflight ADD COLUMN start text, ADD COLUMN start_not_recorded text"));
  }

  /**
   * Creates or migrates the schema named {@code name}.
   *
   * @return why the stored layout cannot be used by this version (a newer one), or empty
   */
  static Optional<String> migrate(Connection c, String name) throws SQLException {
    String s = "\"" + name + "\"";
    Database.lock(c, "cotenant-schema/" + name);
    Database.execute(c, List.of(
        "CREATE SCHEMA IF NOT EXISTS " + s,
        "CREATE TABLE IF NOT EXISTS " + s + ".schema_version (one boolean PRIMARY KEY DEFAULT true CHECK (one),"
            + " version integer NOT NULL)"));
    int stored = 0;
    try (PreparedStatement p = c.prepareStatement("SELECT version FROM " + s + ".schema_version");
        ResultSet r = p.executeQuery()) {
      if (r.next()) {
        stored = r.getInt(1);
      }
    }
    if (stored > VERSION) {
      return Optional.of("the Cotenant records in PostgreSQL schema " + name + " are at version " + stored
          + ", newer than this Cotenant reads (" + VERSION + "); upgrade Cotenant");
    }
    List<List<String>> all = migrations(s);
    for (int v = stored + 1; v <= VERSION; v++) {
      Database.execute(c, all.get(v - 1));
    }
    if (stored < VERSION) {
      try (PreparedStatement p = c.prepareStatement("INSERT INTO " + s + ".schema_version (version) VALUES (?)"
          + " ON CONFLICT (one) DO UPDATE SET version = EXCLUDED.version")) {
        p.setInt(1, VERSION);
        p.executeUpdate();
      }
    }
    return Optional.empty();
  }
}
