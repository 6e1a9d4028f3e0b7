package dev.cotenant.testkit.reference;

import dev.cotenant.spi.EvidenceSourceProvider;
import dev.cotenant.testkit.contract.EvidenceSourceProviderContract;
import java.util.function.Supplier;

class ReferenceEvidenceSourceTest extends EvidenceSourceProviderContract {
  @Override
  protected Supplier<? extends EvidenceSourceProvider> constructor() {
    return ReferenceProviders.Evidence::new;
  }
}
