package dev.cotenant.spi;

/** The two durable records a {@link RecordStoreProvider} supplies. */
public interface RecordStores {
  /** The observed-hazard ledger. */
  HazardLedger hazardLedger();

  /** The pre-flight cache. */
  PreflightCache preflightCache();
}
