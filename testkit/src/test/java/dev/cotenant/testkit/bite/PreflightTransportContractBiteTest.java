package dev.cotenant.testkit.bite;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.api.ServerDescription;
import dev.cotenant.api.Transport;
import dev.cotenant.spi.PreflightResult;
import dev.cotenant.spi.PreflightTransport;
import dev.cotenant.spi.ServerSession;
import dev.cotenant.testkit.contract.PreflightTransportContract;
import dev.cotenant.testkit.process.ChecksProcessLeaks;
import dev.cotenant.testkit.reference.ReferencePreflight;
import dev.cotenant.testkit.reference.ReferenceStdioTransport;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Each rule of {@link PreflightTransportContract} fails a pre-flight that breaks it. Every test of
 * this suite starts JVMs, so each broken pre-flight runs the tests its defect concerns plus one
 * that shows it otherwise works; {@code ReferencePreflightTest} runs the whole suite against the
 * honest pre-flight.
 */
class PreflightTransportContractBiteTest {
  private static final String WORKS = "aDeterministicServerRanWithNoDivergentFacets";

  @Test
  void aPreflightThatThrowsInsteadOfResolvingToNotRun() {
    SuiteRun.of(ThrowsInsteadOfNotRun.class, "aCommandThatDoesNotStartIsNotRun", "aServerThatExitsDuringTheHandshakeIsNotRun",
            "aServerThatIsNotStdioIsNotRun", WORKS)
        .assertFailedExactly("aCommandThatDoesNotStartIsNotRun", "aServerThatExitsDuringTheHandshakeIsNotRun");
  }

  @Test
  void aPreflightThatProvokesADisabledServer() {
    SuiteRun.of(ProvokesDisabledServers.class, "aDisabledServerIsNotRunAndNeverStarted", WORKS)
        .assertFailedExactly("aDisabledServerIsNotRunAndNeverStarted");
  }

  @Test
  void aPreflightThatAsksAsTheSameCallerTwice() {
    SuiteRun.of(OneCallerTwice.class, "aServerWhoseToolsDependOnTheCallerDiverges", WORKS)
        .assertFailedExactly("aServerWhoseToolsDependOnTheCallerDiverges");
  }

  @Test
  void aPreflightThatLeavesItsServersRunning() {
    SuiteRun run = SuiteRun.of(LeavesServersRunning.class, "noProcessIsLeftAfterwards", WORKS, "aCommandThatDoesNotStartIsNotRun")
        .assertFailedExactly("noProcessIsLeftAfterwards", WORKS);
    // The deterministic server's pre-flight itself is right; the leak check fails it and names the processes.
    assertTrue(run.why(WORKS).contains("process(es) running"), run.why(WORKS));
  }

  @ChecksProcessLeaks(waitMillis = 1_000)
  abstract static class Broken extends PreflightTransportContract {
    @Override
    protected Duration bound() {
      return Duration.ofSeconds(20);
    }
  }

  /** Any failure to measure escapes as an exception. */
  static class ThrowsInsteadOfNotRun extends Broken {
    @Override
    protected PreflightTransport preflight() {
      PreflightTransport honest = new ReferencePreflight(new ReferenceStdioTransport(), Duration.ofSeconds(10));
      return server -> {
        PreflightResult r = honest.preflight(server);
        if (!r.ran() && server.transport() == Transport.STDIO && server.enabled()) {
          throw new IllegalStateException("could not measure " + server.name() + ": " + r.notRunReason());
        }
        return r;
      };
    }
  }

  /** Forgets that the operator disabled the server. */
  static class ProvokesDisabledServers extends Broken {
    @Override
    protected PreflightTransport preflight() {
      PreflightTransport honest = new ReferencePreflight(new ReferenceStdioTransport(), Duration.ofSeconds(10));
      return server -> honest.preflight(server.enabled() ? server : enabled(server));
    }

    private static ServerDescription enabled(ServerDescription server) {
      return server.withEnabled(true);
    }
  }

  /** Presents the first caller's identity on both sessions: nothing caller-sensitive can show. */
  static class OneCallerTwice extends Broken {
    @Override
    protected PreflightTransport preflight() {
      return new ReferencePreflight(new ReferenceStdioTransport(), Duration.ofSeconds(10)) {
        @Override
        protected Caller second() {
          return FIRST;
        }
      };
    }
  }

  /** Never closes its sessions. */
  static class LeavesServersRunning extends Broken {
    @Override
    protected PreflightTransport preflight() {
      return new ReferencePreflight(new ReferenceStdioTransport(), Duration.ofSeconds(10)) {
        @Override
        protected void finish(ServerSession session) {}
      };
    }
  }
}
