package dev.cotenant.spi;

import java.nio.file.Path;
import java.util.Objects;

/**
 * What every provider's factory method receives.
 *
 * @param config the host's Cotenant configuration
 * @param recordsDirectory the per-host records directory, resolved once by the runtime (DESIGN
 *     §4); providers must not resolve it themselves, so every writer and reader agree
 */
public record ProviderContext(ProviderConfig config, Path recordsDirectory) {
  public ProviderContext {
    Objects.requireNonNull(config, "config");
    Objects.requireNonNull(recordsDirectory, "recordsDirectory");
  }
}
