package dev.cotenant.testkit.bite;

import dev.cotenant.api.Verdict;
import dev.cotenant.spi.ProviderContext;
import dev.cotenant.spi.SeedPlan;
import dev.cotenant.spi.SeedingPolicy;
import dev.cotenant.spi.SeedingPolicyProvider;
import dev.cotenant.testkit.contract.SeedingPolicyContract;
import dev.cotenant.testkit.reference.ReferenceProviders;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

/** Each rule of {@link SeedingPolicyContract} fails a policy that breaks it, and the reference policy passes them all. */
class SeedingPolicyContractBiteTest extends ContractBiteTest {
  SeedingPolicyContractBiteTest() {
    super("dev.cotenant.testkit.reference.ReferenceSeedingPolicyTest");
  }

  abstract static class Broken extends SeedingPolicyContract {
    @Override
    protected Supplier<? extends SeedingPolicyProvider> constructor() {
      return () -> new ReferenceProviders.Seeding() {
        @Override
        public SeedingPolicy create(ProviderContext context) {
          return brokenPolicy();
        }
      };
    }

    abstract SeedingPolicy brokenPolicy();
  }

  /** Ignores the applied markers when planning: an operator's "off" is overwritten at every start. */
  @FailsExactly({"planNeverSeedsAServerAlreadyApplied", "applyWritesExactlyThePlanAndMarksItApplied"})
  static class Reseeds extends Broken {
    @Override
    SeedingPolicy brokenPolicy() {
      return new ReferenceProviders.Seeding.Policy() {
        @Override
        protected boolean seeded(String name, Set<String> applied) {
          return false;
        }
      };
    }
  }

  /** Un-stubs the servers that want sharing and writes the global switch. */
  @FailsExactly({"applyWritesExactlyThePlanAndMarksItApplied", "applyNeverTurnsSharingOnNorTouchesOtherEntries",
      "applyNeverSeedsAServerMarkedAppliedSinceThePlan"})
  static class TurnsSharingOn extends Broken {
    @Override
    SeedingPolicy brokenPolicy() {
      return new ReferenceProviders.Seeding.Policy() {
        @Override
        public void apply(SeedPlan plan, Map<String, Object> stubOverrides, Set<String> applied) {
          super.apply(plan, stubOverrides, applied);
          if (!plan.wantsShare().isEmpty()) {
            stubOverrides.put("sharing", true);
          }
        }
      };
    }
  }

  /** Base of the policies that spoil the reference policy's plan after it is made. */
  abstract static class BrokenPlan extends Broken {
    @Override
    SeedingPolicy brokenPolicy() {
      return new ReferenceProviders.Seeding.Policy() {
        @Override
        public SeedPlan plan(Map<String, Verdict> verdicts, Set<String> applied) {
          return spoil(super.plan(verdicts, applied), applied);
        }
      };
    }

    /** What the broken policy returns instead of the reference plan {@code p} made from {@code applied}. */
    abstract SeedPlan spoil(SeedPlan p, Set<String> applied);
  }

  /** Leaves {@code wantsShare} empty. */
  @FailsExactly("planReportsTheServersThatWantSharing")
  static class HidesWantsShare extends BrokenPlan {
    @Override
    SeedPlan spoil(SeedPlan p, Set<String> applied) {
      return new SeedPlan(p.stubOverrides(), Set.of(), p.alreadySeeded());
    }
  }

  /** Records its plan in the applied markers it was handed, while planning. */
  @FailsExactly("planIsPureAndLeavesItsInputsAlone")
  static class PlanMutatesApplied extends BrokenPlan {
    @Override
    SeedPlan spoil(SeedPlan p, Set<String> applied) {
      try {
        applied.addAll(p.stubOverrides().keySet());
      } catch (UnsupportedOperationException e) {
        // An immutable input: nothing to spoil.
      }
      return p;
    }
  }
}
