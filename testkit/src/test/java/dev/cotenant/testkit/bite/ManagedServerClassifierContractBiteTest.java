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

/** Each rule of {@link ManagedServerClassifierContract} fails a classifier that breaks it, and the reference passes them all. */
class ManagedServerClassifierContractBiteTest extends ContractBiteTest {
  ManagedServerClassifierContractBiteTest() {
    super("dev.cotenant.testkit.reference.ReferenceClassifierTest");
  }

  /** The reference provider, whose classifiers are what {@link #wrap} makes of the honest ones. */
  abstract static class Broken extends ManagedServerClassifierContract {
    @Override
    protected Supplier<? extends ManagedServerClassifierProvider> constructor() {
      return () -> new ReferenceProviders.Classifier() {
        @Override
        public ManagedServerClassifier create(ProviderContext context) {
          return wrap(super.create(context));
        }
      };
    }

    /** The broken classifier made of {@code honest}. */
    abstract ManagedServerClassifier wrap(ManagedServerClassifier honest);
  }

  /** Says "session-bound" every other call. */
  @FailsExactly({"answersArePure", "answersAreThreadSafe"})
  static class Impure extends Broken {
    @Override
    ManagedServerClassifier wrap(ManagedServerClassifier honest) {
      AtomicLong calls = new AtomicLong();
      return server -> calls.incrementAndGet() % 2 == 0 ? Optional.of("flip") : Optional.empty();
    }
  }

  /** Answers null for a server it does not know. */
  @FailsExactly({"answersAreNeverNull", "answersArePure", "answersAreThreadSafe", "classifyingNeverRunsTheServer"})
  static class ReturnsNull extends Broken {
    @Override
    ManagedServerClassifier wrap(ManagedServerClassifier honest) {
      return server -> honest.sessionBoundReason(server).orElse(null) == null ? null : honest.sessionBoundReason(server);
    }
  }

  /** Starts a stdio server and waits for it, to see what it does. */
  @FailsExactly("classifyingNeverRunsTheServer")
  static class RunsTheServer extends Broken {
    @Override
    ManagedServerClassifier wrap(ManagedServerClassifier honest) {
      return server -> {
        run(server);
        return honest.sessionBoundReason(server);
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
