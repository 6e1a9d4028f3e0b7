package dev.cotenant.spi;

/**
 * The three durable records a {@link RecordStoreProvider} supplies. Every consumer (rows,
 * evaluation, the statelessness probe, registration, the limiter's admission) reads them through
 * this interface, so a host's stores replace the files everywhere.
 */
public interface RecordStores {
  /** The observed-hazard ledger. */
  HazardLedger hazardLedger();

  /** The pre-flight cache. */
  PreflightCache preflightCache();

  /** The concurrency records. */
  ConcurrencyRecords concurrencyRecords();
}
