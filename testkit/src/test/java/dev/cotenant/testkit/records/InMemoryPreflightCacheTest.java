package dev.cotenant.testkit.records;

import dev.cotenant.spi.PreflightCache;
import dev.cotenant.spi.ProviderConfig;
import dev.cotenant.spi.ProviderContext;
import dev.cotenant.testkit.contract.PreflightCacheContract;
import java.nio.file.Path;

class InMemoryPreflightCacheTest extends PreflightCacheContract {
  private final InMemoryRecordStoreProvider provider = new InMemoryRecordStoreProvider();

  @Override
  protected PreflightCache open(Path directory) {
    return provider.create(new ProviderContext(ProviderConfig.empty(), directory)).preflightCache();
  }
}
