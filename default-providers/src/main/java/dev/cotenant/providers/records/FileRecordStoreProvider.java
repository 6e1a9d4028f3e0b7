package dev.cotenant.providers.records;

import dev.cotenant.spi.ProviderContext;
import dev.cotenant.spi.RecordStoreProvider;
import dev.cotenant.spi.RecordStores;

/**
 * The default record store, named {@value #NAME}: JSON files in the records directory
 * ({@code observed-hazards.json}, {@code shareability-verdicts.json},
 * {@code concurrency-records.json}), written atomically and
 * merged under a file lock. Registered in
 * {@code META-INF/services/dev.cotenant.spi.RecordStoreProvider}; construction does nothing.
 */
public final class FileRecordStoreProvider implements RecordStoreProvider {
  /** The provider name. */
  public static final String NAME = "file";

  /** Does nothing; files are opened in {@link #create}. */
  public FileRecordStoreProvider() {}

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public RecordStores create(ProviderContext context) {
    return FileRecordStores.open(context.recordsDirectory());
  }
}
