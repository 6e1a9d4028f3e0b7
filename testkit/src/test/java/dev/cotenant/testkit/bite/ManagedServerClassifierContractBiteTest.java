package dev.cotenant.testkit.bite;

import dev.cotenant.api.ServerDescription;
import dev.cotenant.spi.ManagedServerClassifier;
import dev.cotenant.spi.ManagedServerClassifierProvider;
import dev.cotenant.spi.ProviderContext;
import dev.cotenant.testkit.contract.ManagedServerClassifierContract;
import dev.cotenant.testkit.reference.ReferenceProviders;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/** Each rule of {@link ManagedServerClassifierContract} fails a classifier that breaks it, and the reference passes them all. */
class ManagedServerClassifierContractBiteTest {
  @Test
  void theReferenceClassifierPassesTheWholeSuite() throws Exception {
    SuiteRun.of("dev.cotenant.testkit.reference.ReferenceClassifierTest").assertAllPassed();
  }

  @Test
  void anImpureClassifier() {
    SuiteRun.of(Impure.class).assertFailedExactly("answersArePure", "answersAreThreadSafe");
  }

  @Test
  void aClassifierReturningNull() {
    SuiteRun.of(ReturnsNull.class).assertFailedExactly("answersAreNeverNull", "answersArePure", "answersAreThreadSafe",
        "classifyingNeverRunsTheServer");
  }

  @Test
  void aClassifierThatRunsTheServerToFindOut() {
    SuiteRun.of(RunsTheServer.class).assertFailedExactly("classifyingNeverRunsTheServer");
  }

  /** Says "session-bound" every other call. */
  static class Impure extends ManagedServerClassifierContract {
    @Override
    protected Supplier<? extends ManagedServerClassifierProvider> constructor() {
      return () -> new ReferenceProviders.Classifier() {
        private final AtomicLong calls = new AtomicLong();

        @Override
        public ManagedServerClassifier create(ProviderContext context) {
          return server -> calls.incrementAndGet() % 2 == 0 ? Optional.of("flip") : Optional.empty();
        }
      };
    }
  }

  /** Answers null for a server it does not know. */
  static class ReturnsNull extends ManagedServerClassifierContract {
    @Override
    protected Supplier<? extends ManagedServerClassifierProvider> constructor() {
      return () -> new ReferenceProviders.Classifier() {
        @Override
        public ManagedServerClassifier create(ProviderContext context) {
          ManagedServerClassifier honest = super.create(context);
          return server -> honest.sessionBoundReason(server).orElse(null) == null ? null : honest.sessionBoundReason(server);
        }
      };
    }
  }

  /** Starts a stdio server and waits for it, to see what it does. */
  static class RunsTheServer extends ManagedServerClassifierContract {
    @Override
    protected Supplier<? extends ManagedServerClassifierProvider> constructor() {
      return () -> new ReferenceProviders.Classifier() {
        @Override
        public ManagedServerClassifier create(ProviderContext context) {
          ManagedServerClassifier honest = super.create(context);
          return server -> {
            run(server);
            return honest.sessionBoundReason(server);
          };
        }
      };
    }

    private static void run(ServerDescription server) {
      if (!server.name().startsWith("fake")) {
        return;
      }
      List<String> command = new ArrayList<>();
      command.add(server.command());
      command.addAll(server.args());
      try {
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
        pb.environment().putAll(server.env());
        Process p = pb.start();
        Thread.sleep(2_000);
        p.getOutputStream().close();
        if (!p.waitFor(10, TimeUnit.SECONDS)) {
          p.destroyForcibly().waitFor();
        }
      } catch (IOException e) {
        // Could not run it: nothing learned.
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
