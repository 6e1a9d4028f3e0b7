package dev.cotenant.testkit.records;

import dev.cotenant.spi.HazardLedger;
import dev.cotenant.spi.ProviderConfig;
import dev.cotenant.spi.ProviderContext;
import dev.cotenant.testkit.contract.HazardLedgerContract;
import java.nio.file.Path;

class InMemoryHazardLedgerTest extends HazardLedgerContract {
  private final InMemoryRecordStoreProvider provider = new InMemoryRecordStoreProvider();

  @Override
  protected HazardLedger open(Path directory) {
    return provider.create(new ProviderContext(ProviderConfig.empty(), directory)).hazardLedger();
  }
}
