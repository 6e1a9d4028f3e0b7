package dev.cotenant.providers.seeding;

import dev.cotenant.spi.ProviderContext;
import dev.cotenant.spi.SeedingPolicy;
import dev.cotenant.spi.SeedingPolicyProvider;

/** Provides {@link DefaultSeedingPolicy} under the name {@code default}. */
public final class DefaultSeedingPolicyProvider implements SeedingPolicyProvider {
  @Override
  public String name() {
    return "default";
  }

  @Override
  public SeedingPolicy create(ProviderContext context) {
    return new DefaultSeedingPolicy();
  }
}
