package dev.cotenant.fleet.postgres;

import dev.cotenant.fleet.servers.PostgresServer;
import dev.cotenant.spi.ConcurrencyRecords;
import dev.cotenant.spi.HazardLedger;
import dev.cotenant.spi.PreflightCache;
import dev.cotenant.spi.ProviderConfig;
import dev.cotenant.spi.ProviderContext;
import dev.cotenant.spi.RecordStores;
import dev.cotenant.testkit.contract.ConcurrencyRecordsContract;
import dev.cotenant.testkit.contract.HazardLedgerContract;
import dev.cotenant.testkit.contract.PreflightCacheContract;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.TestInstance;

/**
 * The {@code postgres} stores pass the kit's record-store suites against a real PostgreSQL. The
 * suites' records directory stands for one fleet: each directory gets its own schema, so two
 * stores opened on one directory are two replicas on one database, and opening again is a
 * restart.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PostgresStoresContractTest {
  static PostgresServer server;
  static String url;
  static final List<PostgresRecordStores> opened = new ArrayList<>();

  @BeforeAll
  static void start() throws Exception {
    server = PostgresServer.start();
    url = server.createDatabase("contract");
  }

  @AfterAll
  static void stop() {
    opened.forEach(PostgresRecordStores::close);
    if (server != null) {
      server.close();
    }
  }

  /** Opens the stores of the fleet kept under {@code directory} (its own schema), through the provider. */
  static RecordStores open(Path directory) {
    String schema = "t_" + Integer.toHexString(directory.toAbsolutePath().toString().hashCode() & 0x7fffffff);
    ProviderConfig config = ProviderConfig.of(Map.of(
        PostgresSettings.URL_KEY, url,
        PostgresSettings.SCHEMA_KEY, schema,
        PostgresSettings.USER_KEY, PostgresServer.USER,
        PostgresSettings.PASSWORD_FILE_KEY, server.passwordFile().toString()));
    RecordStores stores = new PostgresRecordStoreProvider().create(new ProviderContext(config, directory));
    synchronized (opened) {
      opened.add((PostgresRecordStores) stores);
    }
    return stores;
  }

  @Nested
  class Ledger extends HazardLedgerContract {
    @Override
    protected HazardLedger open(Path directory) {
      return PostgresStoresContractTest.open(directory).hazardLedger();
    }

    /**
     * An observation is stamped with the time it was recorded, in seconds, before and after a
     * flush. Mutant: {@code record}'s clock in milliseconds times 1000 (a hazard seen "in the
     * future", which no later observation could ever be newer than).
     */
    @org.junit.jupiter.api.Test
    void anObservationIsStampedWithItsTimeInSeconds() throws Exception {
      HazardLedger l = open(directory);
      double before = System.currentTimeMillis() / 1000.0;
      org.junit.jupiter.api.Assertions.assertTrue(
          l.record("stamped", "id-1", dev.cotenant.api.HazardCode.CROSS_SESSION_LEAK, 2));
      double after = System.currentTimeMillis() / 1000.0;
      double seen = l.snapshot().servers().get("stamped").get("id-1").lastSeen();
      org.junit.jupiter.api.Assertions.assertTrue(seen >= before - 1 && seen <= after + 1,
          seen + " is not within [" + before + ", " + after + "]");
      l.flush();
      double stored = open(directory).snapshot().servers().get("stamped").get("id-1").lastSeen();
      org.junit.jupiter.api.Assertions.assertTrue(stored >= before - 1 && stored <= after + 1,
          "read back: " + stored + " is not within [" + before + ", " + after + "]");
    }
  }

  @Nested
  class Cache extends PreflightCacheContract {
    @Override
    protected PreflightCache open(Path directory) {
      return PostgresStoresContractTest.open(directory).preflightCache();
    }

    private dev.cotenant.spi.PreflightRecord row(String name) {
      return new dev.cotenant.spi.PreflightRecord(name, "key-" + name, true, false, List.of(), 1000.0,
          java.util.Optional.of("1.0"), java.util.Optional.empty());
    }

    /**
     * A dropped row is gone from the database once flushed, for every replica; a drop says
     * whether there was a row. Mutants: {@code drop}'s answer, and {@code write}'s delete of
     * the dropped rows skipped or not batched (the row came back on the next load).
     */
    @org.junit.jupiter.api.Test
    void aDroppedRowIsGoneForEveryReplicaOnceFlushed() throws Exception {
      PreflightCache cache = open(directory);
      cache.load();
      cache.put(row("kept"));
      cache.put(row("dropped"));
      cache.put(row("also-dropped"));
      cache.flush();
      org.junit.jupiter.api.Assertions.assertTrue(cache.drop("dropped"));
      org.junit.jupiter.api.Assertions.assertTrue(cache.drop("also-dropped"));
      org.junit.jupiter.api.Assertions.assertFalse(cache.drop("never-stored"));
      cache.flush();
      org.junit.jupiter.api.Assertions.assertEquals(java.util.Set.of("kept"), open(directory).load().rows().keySet());
      org.junit.jupiter.api.Assertions.assertEquals(java.util.Set.of("kept"), cache.load().rows().keySet());
    }
  }

  @Nested
  class Concurrency extends ConcurrencyRecordsContract {
    @Override
    protected ConcurrencyRecords open(Path directory) {
      return PostgresStoresContractTest.open(directory).concurrencyRecords();
    }
  }
}
