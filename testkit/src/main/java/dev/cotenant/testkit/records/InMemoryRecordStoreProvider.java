package dev.cotenant.testkit.records;

import dev.cotenant.spi.ProviderContext;
import dev.cotenant.spi.RecordStoreProvider;
import dev.cotenant.spi.RecordStores;
import java.nio.file.Path;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * The record store provider {@value #NAME}: {@link InMemoryRecordStores}, one instance per records
 * directory for the life of this provider, so that stores opened again for the same directory see
 * what was recorded before (memory plays the part of the files).
 *
 * <p>Not registered in {@code META-INF/services}: a host's tests pass it as an instance, or
 * register it in a test-scoped service file, so it never competes with {@code file} by accident.
 * Construction is trivial. Thread-safe.
 */
public final class InMemoryRecordStoreProvider implements RecordStoreProvider {
  /** The provider's name. */
  public static final String NAME = "memory";

  private final ConcurrentMap<Path, InMemoryRecordStores> byDirectory = new ConcurrentHashMap<>();

  /** A provider holding no stores yet. */
  public InMemoryRecordStoreProvider() {}

  @Override
  public String name() {
    return NAME;
  }

  /** The stores of {@code context.recordsDirectory()}, created on first use. */
  @Override
  public RecordStores create(ProviderContext context) {
    Path key = context.recordsDirectory().toAbsolutePath().normalize();
    return byDirectory.computeIfAbsent(key, k -> new InMemoryRecordStores());
  }
}
