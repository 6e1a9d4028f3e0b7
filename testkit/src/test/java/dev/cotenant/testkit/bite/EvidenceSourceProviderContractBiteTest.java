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

/** Each rule of {@link EvidenceSourceProviderContract} fails a source that breaks it, and the reference source passes them all. */
class EvidenceSourceProviderContractBiteTest extends ContractBiteTest {
  EvidenceSourceProviderContractBiteTest() {
    super("dev.cotenant.testkit.reference.ReferenceEvidenceSourceTest");
  }

  /** The reference provider, whose sources are what {@link #wrap} makes of the honest ones. */
  abstract static class Broken extends EvidenceSourceProviderContract {
    @Override
    protected Supplier<? extends EvidenceSourceProvider> constructor() {
      return () -> new ReferenceProviders.Evidence() {
        @Override
        public EvidenceSource create(ProviderContext context) {
          return wrap(super.create(context), name());
        }
      };
    }

    /** The broken source made of {@code honest}, the source of the provider named {@code name}. */
    abstract EvidenceSource wrap(EvidenceSource honest, String name);
  }

  /** Numbers its findings: the same input never gets the same answer twice. */
  @FailsExactly({"findingsArePure", "findingsAreThreadSafe"})
  static class ImpureSource extends Broken {
    @Override
    EvidenceSource wrap(EvidenceSource honest, String name) {
      AtomicLong calls = new AtomicLong();
      return input -> List.of(Finding.of(name, ReasonCode.NO_TOOLS_LISTED, "call " + calls.incrementAndGet()));
    }
  }

  /** Returns null for a server it has no handshake of. */
  @FailsExactly({"findingsAreNeverNull", "findingsArePure", "findingsNameThisProviderAsTheirSource",
      "findingsUseOnlyCodesASourceMayContribute", "findingsAreThreadSafe", "findingsStartNoProcess"})
  static class NullSource extends Broken {
    @Override
    EvidenceSource wrap(EvidenceSource honest, String name) {
      return input -> input.handshake().isPresent() ? honest.findings(input) : null;
    }
  }

  /** Contributes {@code observed_hazard}, which only the ledger may ground. */
  @FailsExactly("findingsUseOnlyCodesASourceMayContribute")
  static class ClaimsAnObservation extends Broken {
    @Override
    EvidenceSource wrap(EvidenceSource honest, String name) {
      return input -> {
        List<Finding> out = new ArrayList<>(honest.findings(input));
        if (input.concurrency().isPresent()) {
          out.add(Finding.of(name, ReasonCode.OBSERVED_HAZARD, "cross_session_leak"));
        }
        return out;
      };
    }
  }

  /** Signs its findings with another provider's name. */
  @FailsExactly("findingsNameThisProviderAsTheirSource")
  static class NamesAnotherSource extends Broken {
    @Override
    EvidenceSource wrap(EvidenceSource honest, String name) {
      return input -> {
        List<Finding> out = new ArrayList<>();
        for (Finding f : honest.findings(input)) {
          out.add(new Finding("default-evidence", f.code(), f.detail()));
        }
        return out;
      };
    }
  }

  /** Named {@code Reference}. */
  @FailsExactly("nameIsNonBlankAndLowercase")
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
  @FailsExactly("constructionDoesNoIo")
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
