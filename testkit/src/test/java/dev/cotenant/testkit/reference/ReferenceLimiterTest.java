package dev.cotenant.testkit.reference;

import dev.cotenant.spi.ConcurrencyLimiterProvider;
import dev.cotenant.testkit.contract.ConcurrencyLimiterContract;
import java.util.function.Supplier;

class ReferenceLimiterTest extends ConcurrencyLimiterContract {
  @Override
  protected Supplier<? extends ConcurrencyLimiterProvider> constructor() {
    return ReferenceProviders.Limiter::new;
  }
}
