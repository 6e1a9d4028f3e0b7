package dev.cotenant.gateway.archfixture;

import dev.cotenant.providers.records.FileRecordStores;
import java.nio.file.Path;

/** Breaks {@code NO_PROVIDER_IMPLEMENTATIONS} on purpose: it opens the file stores by their class. */
public final class ImportsAProvider {
  private ImportsAProvider() {}

  /** The file stores of {@code dir}, reached around the SPI. */
  public static Object stores(Path dir) {
    return FileRecordStores.open(dir);
  }
}
