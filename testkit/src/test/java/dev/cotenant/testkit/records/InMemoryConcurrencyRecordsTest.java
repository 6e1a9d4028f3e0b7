package dev.cotenant.testkit.records;

import dev.cotenant.spi.ConcurrencyRecords;
import dev.cotenant.spi.ProviderConfig;
import dev.cotenant.spi.ProviderContext;
import dev.cotenant.testkit.contract.ConcurrencyRecordsContract;
import java.nio.file.Path;

class InMemoryConcurrencyRecordsTest extends ConcurrencyRecordsContract {
  private final InMemoryRecordStoreProvider provider = new InMemoryRecordStoreProvider();

  @Override
  protected ConcurrencyRecords open(Path directory) {
    return provider.create(new ProviderContext(ProviderConfig.empty(), directory)).concurrencyRecords();
  }
}
