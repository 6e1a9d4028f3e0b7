package dev.cotenant.fleet.postgres;

import dev.cotenant.spi.ProviderContext;
import dev.cotenant.spi.RecordStoreProvider;
import dev.cotenant.spi.RecordStores;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * The {@value #NAME} record stores: the hazard ledger, the pre-flight cache and the concurrency
 * records in one PostgreSQL database, shared by every replica of a gateway. Selected with
 * {@code cotenant.records.provider=postgres}; configured as {@link PostgresSettings} describes.
 * Registered in {@code META-INF/services/dev.cotenant.spi.RecordStoreProvider}; construction does
 * nothing, {@link #create} connects.
 */
public final class PostgresRecordStoreProvider implements RecordStoreProvider {
  /** The provider name. */
  public static final String NAME = "postgres";

  /** Does nothing; the database is opened in {@link #create}. */
  public PostgresRecordStoreProvider() {}

  @Override
  public String name() {
    return NAME;
  }

  /**
   * Connects and creates or migrates the schema.
   *
   * @throws IllegalArgumentException naming the key when the configuration is missing or malformed
   * @throws UncheckedIOException naming the database when it cannot be reached
   */
  @Override
  public RecordStores create(ProviderContext context) {
    PostgresSettings settings = PostgresSettings.from(context.config(), System.getenv());
    try {
      return PostgresRecordStores.open(settings);
    } catch (IOException e) {
      throw new UncheckedIOException(e.getMessage(), e);
    }
  }
}
