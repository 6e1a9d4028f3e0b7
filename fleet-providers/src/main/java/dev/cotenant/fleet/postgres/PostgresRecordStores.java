package dev.cotenant.fleet.postgres;

import dev.cotenant.spi.ConcurrencyRecords;
import dev.cotenant.spi.HazardLedger;
import dev.cotenant.spi.PreflightCache;
import dev.cotenant.spi.RecordStores;
import java.io.IOException;

/**
 * The three stores of the {@code postgres} provider over one {@link Database}. Opening connects,
 * creates or migrates the schema and reads the ledger and the cache once. Thread-safe.
 */
public final class PostgresRecordStores implements RecordStores, AutoCloseable {
  private final Database db;
  private final PostgresHazardLedger ledger;
  private final PostgresPreflightCache cache;
  private final PostgresConcurrencyRecords concurrency;

  private PostgresRecordStores(Database db) {
    this.db = db;
    this.ledger = new PostgresHazardLedger(db);
    this.cache = new PostgresPreflightCache(db);
    this.concurrency = new PostgresConcurrencyRecords(db);
  }

  /**
   * Opens the stores.
   *
   * @throws IOException naming the database (never the password) when it cannot be reached or
   *     the schema cannot be created
   */
  public static PostgresRecordStores open(PostgresSettings settings) throws IOException {
    return new PostgresRecordStores(Database.open(settings));
  }

  @Override
  public HazardLedger hazardLedger() {
    return ledger;
  }

  @Override
  public PreflightCache preflightCache() {
    return cache;
  }

  @Override
  public ConcurrencyRecords concurrencyRecords() {
    return concurrency;
  }

  /** Closes the connection; the stores open a new one if used again. */
  @Override
  public void close() {
    db.close();
  }
}
