package dev.cotenant.providers.records;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.api.HazardCode;
import dev.cotenant.spi.ProviderConfig;
import dev.cotenant.spi.ProviderContext;
import dev.cotenant.spi.RecordStoreProvider;
import dev.cotenant.spi.RecordStores;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.ServiceLoader;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The {@code file} provider is found through the real {@link ServiceLoader} and opens both records. */
class FileRecordStoreProviderTest {
  @TempDir Path dir;

  @Test
  void theFileProviderIsRegisteredAndOpensBothRecords() throws Exception {
    List<RecordStoreProvider> found =
        ServiceLoader.load(RecordStoreProvider.class).stream().map(ServiceLoader.Provider::get).filter(p -> p.name().equals("file")).toList();
    assertEquals(1, found.size());
    assertTrue(found.get(0) instanceof FileRecordStoreProvider);
    Path records = dir.resolve("records");
    RecordStores stores = found.get(0).create(new ProviderContext(ProviderConfig.empty(), records));
    assertFalse(Files.exists(records), "opening creates nothing");
    stores.hazardLedger().record("srv", Fixtures.ID_1, HazardCode.CROSS_SESSION_LEAK, 2);
    stores.hazardLedger().flush();
    stores.preflightCache().markApplied("srv");
    stores.preflightCache().flush();
    assertTrue(Files.isRegularFile(records.resolve("observed-hazards.json")));
    assertTrue(Files.isRegularFile(records.resolve("shareability-verdicts.json")));
    assertEquals(Set.of("srv"), found.get(0).create(new ProviderContext(ProviderConfig.empty(), records)).preflightCache().snapshot().applied());
    assertEquals(
        "rwx------",
        java.nio.file.attribute.PosixFilePermissions.toString(Files.getPosixFilePermissions(records)));
    assertEquals(
        "rw-------",
        java.nio.file.attribute.PosixFilePermissions.toString(Files.getPosixFilePermissions(records.resolve("observed-hazards.json"))));
  }
}
