package dev.cotenant.providers.limiter;

import dev.cotenant.spi.ConcurrencyLimiter;
import dev.cotenant.spi.ConcurrencyLimiterProvider;
import dev.cotenant.spi.ProviderContext;

/** Provides the in-process {@link SemaphoreLimiter} under the name {@code semaphore}. */
public final class SemaphoreLimiterProvider implements ConcurrencyLimiterProvider {
  @Override
  public String name() {
    return "semaphore";
  }

  @Override
  public ConcurrencyLimiter create(ProviderContext context) {
    return new SemaphoreLimiter();
  }
}
