package dev.cotenant.providers.contract;

import dev.cotenant.providers.records.FileConcurrencyRecords;
import dev.cotenant.providers.records.FileHazardLedger;
import dev.cotenant.providers.records.FilePreflightCache;
import dev.cotenant.spi.ConcurrencyRecords;
import dev.cotenant.spi.HazardLedger;
import dev.cotenant.spi.PreflightCache;
import dev.cotenant.testkit.contract.ConcurrencyRecordsContract;
import dev.cotenant.testkit.contract.HazardLedgerContract;
import dev.cotenant.testkit.contract.PreflightCacheContract;
import java.nio.file.Path;
import org.junit.jupiter.api.Nested;

/** The {@code file} record stores pass the kit's contract suites, as a host's own stores must. */
class FileStoresContractTest {
  @Nested
  class Ledger extends HazardLedgerContract {
    @Override
    protected HazardLedger open(Path directory) {
      return FileHazardLedger.open(directory);
    }
  }

  @Nested
  class Cache extends PreflightCacheContract {
    @Override
    protected PreflightCache open(Path directory) {
      return FilePreflightCache.open(directory);
    }
  }

  @Nested
  class Concurrency extends ConcurrencyRecordsContract {
    @Override
    protected ConcurrencyRecords open(Path directory) {
      return FileConcurrencyRecords.open(directory);
    }
  }
}
