package dev.cotenant.gateway.providers;

import java.util.List;
import java.util.Objects;

/**
 * What a {@link ProviderDiscovery} found for one SPI.
 *
 * @param spi the provider interface
 * @param providers the providers that loaded, in discovery order
 * @param failures the registered providers that could not be loaded, in discovery order
 * @param <T> the provider interface
 */
public record Discovered<T>(Class<T> spi, List<T> providers, List<ProviderFailure> failures) {
  public Discovered {
    Objects.requireNonNull(spi, "spi");
    providers = List.copyOf(providers);
    failures = List.copyOf(failures);
  }
}
