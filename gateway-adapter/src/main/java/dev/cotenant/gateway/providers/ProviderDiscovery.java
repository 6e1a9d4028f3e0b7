package dev.cotenant.gateway.providers;

import java.util.List;

/**
 * Where provider instances come from: the seam in front of {@link java.util.ServiceLoader}.
 * {@link #classpath()} is the real one; tests and hosts may supply their own or {@link #none()}.
 * Implementations never throw for a broken provider: they report it in
 * {@link Discovered#failures()} so selection can say which one broke and where it is
 * registered. Thread-safe.
 */
@FunctionalInterface
public interface ProviderDiscovery {
  /** Every provider of {@code spi} this discovery can find, and every one that failed to load. */
  <T> Discovered<T> discover(Class<T> spi);

  /** The real discovery: {@link java.util.ServiceLoader} over the context (or this library's) class loader. */
  static ProviderDiscovery classpath() {
    return ProviderLoader.ofContextClassLoader();
  }

  /** A discovery that finds nothing: only explicitly passed providers are used. */
  static ProviderDiscovery none() {
    return new ProviderDiscovery() {
      @Override
      public <T> Discovered<T> discover(Class<T> spi) {
        return new Discovered<>(spi, List.of(), List.of());
      }
    };
  }
}
