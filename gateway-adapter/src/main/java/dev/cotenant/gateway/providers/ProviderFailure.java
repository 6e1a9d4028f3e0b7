package dev.cotenant.gateway.providers;

import java.util.Objects;

/**
 * A registered provider that could not be loaded: its class is missing, is not a subtype of the
 * SPI, has no public no-arg constructor, its constructor threw, or its {@code name()} threw or
 * was blank.
 *
 * @param spi the provider interface
 * @param providerClass the provider's class name as registered
 * @param problem what went wrong, one line
 * @param cause the error behind it
 */
public record ProviderFailure(Class<?> spi, String providerClass, String problem, Throwable cause) {
  public ProviderFailure {
    Objects.requireNonNull(spi, "spi");
    Objects.requireNonNull(providerClass, "providerClass");
    Objects.requireNonNull(problem, "problem");
    Objects.requireNonNull(cause, "cause");
  }

  /** {@code META-INF/services/<spi>}: where the provider is registered. */
  public String servicesFile() {
    return ProviderSelection.servicesFile(spi);
  }

  /** {@code <class> (<problem>)}. */
  public String describe() {
    return providerClass + " (" + problem + ")";
  }
}
