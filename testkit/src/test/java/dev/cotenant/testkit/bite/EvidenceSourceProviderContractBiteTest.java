package dev.cotenant.testkit.bite;

import dev.cotenant.api.Finding;
import dev.cotenant.api.ReasonCode;
import dev.cotenant.spi.EvidenceSource;
import dev.cotenant.spi.EvidenceSourceProvider;
import dev.cotenant.spi.ProviderContext;
import dev.cotenant.testkit.contract.EvidenceSourceProviderContract;
import dev.cotenant.testkit.reference.ReferenceProviders;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/** Each rule of {@link EvidenceSourceProviderContract} fails a source that breaks it, and the reference source passes them all. */
class EvidenceSourceProviderContractBiteTest {
  @Test
  void theReferenceSourcePassesTheWholeSuite() throws Exception {
    SuiteRun.of("dev.cotenant.testkit.reference.ReferenceEvidenceSourceTest").assertAllPassed();
  }

  @Test
  void anImpureSource() {
    SuiteRun.of(ImpureSource.class).assertFailedExactly("findingsArePure", "findingsAreThreadSafe");
  }

  @Test
  void aSourceReturningNull() {
    SuiteRun.of(NullSource.class).assertFailedExactly("findingsAreNeverNull", "findingsArePure",
        "findingsNameThisProviderAsTheirSource", "findingsUseOnlyCodesASourceMayContribute", "findingsAreThreadSafe",
        "findingsStartNoProcess");
  }

  @Test
  void aSourceClaimingAnObservation() {
    SuiteRun.of(ClaimsAnObservation.class).assertFailedExactly("findingsUseOnlyCodesASourceMayContribute");
  }

  @Test
  void aSourceNamingAnotherProvider() {
    SuiteRun.of(NamesAnotherSource.class).assertFailedExactly("findingsNameThisProviderAsTheirSource");
  }

  @Test
  void aProviderWithAnUppercaseName() {
    SuiteRun.of(UppercaseName.class).assertFailedExactly("nameIsNonBlankAndLowercase");
  }

  @Test
  void aProviderWhoseConstructorWritesAFile() {
    SuiteRun.of(ConstructorDoesIo.class).assertFailedExactly("constructionDoesNoIo");
  }

  /** Numbers its findings: the same input never gets the same answer twice. */
  static class ImpureSource extends EvidenceSourceProviderContract {
    @Override
    protected Supplier<? extends EvidenceSourceProvider> constructor() {
      return () -> new ReferenceProviders.Evidence() {
        private final AtomicLong calls = new AtomicLong();

        @Override
        public EvidenceSource create(ProviderContext context) {
          return input -> List.of(Finding.of(name(), ReasonCode.NO_TOOLS_LISTED, "call " + calls.incrementAndGet()));
        }
      };
    }
  }

  /** Returns null for a server it has no handshake of. */
  static class NullSource extends EvidenceSourceProviderContract {
    @Override
    protected Supplier<? extends EvidenceSourceProvider> constructor() {
      return () -> new ReferenceProviders.Evidence() {
        @Override
        public EvidenceSource create(ProviderContext context) {
          EvidenceSource honest = super.create(context);
          return input -> input.handshake().isPresent() ? honest.findings(input) : null;
        }
      };
    }
  }

  /** Contributes {@code observed_hazard}, which only the ledger may ground. */
  static class ClaimsAnObservation extends EvidenceSourceProviderContract {
    @Override
    protected Supplier<? extends EvidenceSourceProvider> constructor() {
      return () -> new ReferenceProviders.Evidence() {
        @Override
        public EvidenceSource create(ProviderContext context) {
          EvidenceSource honest = super.create(context);
          return input -> {
            List<Finding> out = new ArrayList<>(honest.findings(input));
            if (input.concurrency().isPresent()) {
              out.add(Finding.of(name(), ReasonCode.OBSERVED_HAZARD, "cross_session_leak"));
            }
            return out;
          };
        }
      };
    }
  }

  /** Signs its findings with another provider's name. */
  static class NamesAnotherSource extends EvidenceSourceProviderContract {
    @Override
    protected Supplier<? extends EvidenceSourceProvider> constructor() {
      return () -> new ReferenceProviders.Evidence() {
        @Override
        public EvidenceSource create(ProviderContext context) {
          EvidenceSource honest = super.create(context);
          return input -> {
            List<Finding> out = new ArrayList<>();
            for (Finding f : honest.findings(input)) {
              out.add(new Finding("default-evidence", f.code(), f.detail()));
            }
            return out;
          };
        }
      };
    }
  }

  /** Named {@code Reference}. */
  static class UppercaseName extends EvidenceSourceProviderContract {
    @Override
    protected Supplier<? extends EvidenceSourceProvider> constructor() {
      return () -> new ReferenceProviders.Evidence() {
        @Override
        public String name() {
          return "Reference";
        }
      };
    }
  }

  /** Resolves a records directory under the user's home in its constructor, and creates it. */
  static class ConstructorDoesIo extends EvidenceSourceProviderContract {
    @Override
    protected Supplier<? extends EvidenceSourceProvider> constructor() {
      return () -> {
        try {
          Files.createDirectories(Path.of(System.getProperty("user.home"), ".cotenant", "records"));
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
        return new ReferenceProviders.Evidence();
      };
    }
  }
}
