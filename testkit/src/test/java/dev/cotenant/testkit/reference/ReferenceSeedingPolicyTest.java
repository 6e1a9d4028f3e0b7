package dev.cotenant.testkit.reference;

import dev.cotenant.spi.SeedingPolicyProvider;
import dev.cotenant.testkit.contract.SeedingPolicyContract;
import java.util.function.Supplier;

class ReferenceSeedingPolicyTest extends SeedingPolicyContract {
  @Override
  protected Supplier<? extends SeedingPolicyProvider> constructor() {
    return ReferenceProviders.Seeding::new;
  }
}
