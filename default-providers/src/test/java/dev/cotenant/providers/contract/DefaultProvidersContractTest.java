package dev.cotenant.providers.contract;

import dev.cotenant.providers.classifier.EmptyClassifierProvider;
import dev.cotenant.providers.evidence.AllToolsReadOnlyProvider;
import dev.cotenant.providers.evidence.CallerIdentityProvider;
import dev.cotenant.providers.evidence.DegradesWhenSharedProvider;
import dev.cotenant.providers.evidence.NoToolAnnotationsProvider;
import dev.cotenant.providers.evidence.NoToolsListedProvider;
import dev.cotenant.providers.evidence.NotStdioProvider;
import dev.cotenant.providers.evidence.RegisteredSharedProvider;
import dev.cotenant.providers.evidence.RotatingSecretEnvProvider;
import dev.cotenant.providers.evidence.StatelessnessProbePassedProvider;
import dev.cotenant.providers.limiter.SemaphoreLimiterProvider;
import dev.cotenant.providers.seeding.DefaultSeedingPolicyProvider;
import dev.cotenant.spi.ConcurrencyLimiterProvider;
import dev.cotenant.spi.EvidenceSourceProvider;
import dev.cotenant.spi.ManagedServerClassifierProvider;
import dev.cotenant.spi.SeedingPolicyProvider;
import dev.cotenant.testkit.contract.ConcurrencyLimiterContract;
import dev.cotenant.testkit.contract.EvidenceSourceProviderContract;
import dev.cotenant.testkit.contract.ManagedServerClassifierContract;
import dev.cotenant.testkit.contract.SeedingPolicyContract;
import java.util.function.Supplier;
import org.junit.jupiter.api.Nested;

/**
 * Every default evidence source, the classifier, the seeding policy and the limiter pass the kit's
 * contract suites, as a host's own providers must.
 */
class DefaultProvidersContractTest {
  @Nested
  class NotStdio extends EvidenceSourceProviderContract {
    @Override
    protected Supplier<? extends EvidenceSourceProvider> constructor() {
      return NotStdioProvider::new;
    }
  }

  @Nested
  class CallerIdentity extends EvidenceSourceProviderContract {
    @Override
    protected Supplier<? extends EvidenceSourceProvider> constructor() {
      return CallerIdentityProvider::new;
    }
  }

  @Nested
  class DegradesWhenShared extends EvidenceSourceProviderContract {
    @Override
    protected Supplier<? extends EvidenceSourceProvider> constructor() {
      return DegradesWhenSharedProvider::new;
    }
  }

  @Nested
  class RotatingSecretEnv extends EvidenceSourceProviderContract {
    @Override
    protected Supplier<? extends EvidenceSourceProvider> constructor() {
      return RotatingSecretEnvProvider::new;
    }
  }

  @Nested
  class AllToolsReadOnly extends EvidenceSourceProviderContract {
    @Override
    protected Supplier<? extends EvidenceSourceProvider> constructor() {
      return AllToolsReadOnlyProvider::new;
    }
  }

  @Nested
  class NoToolAnnotations extends EvidenceSourceProviderContract {
    @Override
    protected Supplier<? extends EvidenceSourceProvider> constructor() {
      return NoToolAnnotationsProvider::new;
    }
  }

  @Nested
  class NoToolsListed extends EvidenceSourceProviderContract {
    @Override
    protected Supplier<? extends EvidenceSourceProvider> constructor() {
      return NoToolsListedProvider::new;
    }
  }

  @Nested
  class RegisteredShared extends EvidenceSourceProviderContract {
    @Override
    protected Supplier<? extends EvidenceSourceProvider> constructor() {
      return RegisteredSharedProvider::new;
    }
  }

  @Nested
  class StatelessnessProbePassed extends EvidenceSourceProviderContract {
    @Override
    protected Supplier<? extends EvidenceSourceProvider> constructor() {
      return StatelessnessProbePassedProvider::new;
    }
  }

  @Nested
  class EmptyClassifier extends ManagedServerClassifierContract {
    @Override
    protected Supplier<? extends ManagedServerClassifierProvider> constructor() {
      return EmptyClassifierProvider::new;
    }
  }

  @Nested
  class DefaultSeeding extends SeedingPolicyContract {
    @Override
    protected Supplier<? extends SeedingPolicyProvider> constructor() {
      return DefaultSeedingPolicyProvider::new;
    }
  }

  @Nested
  class Semaphore extends ConcurrencyLimiterContract {
    @Override
    protected Supplier<? extends ConcurrencyLimiterProvider> constructor() {
      return SemaphoreLimiterProvider::new;
    }
  }
}
