package dev.cotenant.providers.contract;

import dev.cotenant.providers.preflight.PreflightSettings;
import dev.cotenant.providers.preflight.StdioPreflightTransport;
import dev.cotenant.providers.session.StdioSessionTransport;
import dev.cotenant.spi.PreflightTransport;
import dev.cotenant.spi.ProviderConfig;
import dev.cotenant.spi.SessionTransport;
import dev.cotenant.testkit.contract.PreflightTransportContract;
import dev.cotenant.testkit.contract.SessionTransportContract;
import java.util.Map;
import org.junit.jupiter.api.Nested;

/** The {@code stdio} session transport and the pre-flight over it pass the kit's contract suites. */
class StdioContractTest {
  /** The defaults, with the teardown waits shrunk so a server that ignores SIGTERM costs a second, not two. */
  static PreflightSettings settings() {
    return PreflightSettings.from(ProviderConfig.of(Map.of(
        PreflightSettings.STDIN_CLOSE_WAIT_MS, "500", PreflightSettings.TERM_WAIT_MS, "1000",
        PreflightSettings.TIMEOUT_MS, "20000")));
  }

  @Nested
  class Sessions extends SessionTransportContract {
    @Override
    protected SessionTransport transport() {
      return new StdioSessionTransport(settings().sessionSettings());
    }
  }

  @Nested
  class Preflight extends PreflightTransportContract {
    @Override
    protected PreflightTransport preflight() {
      return StdioPreflightTransport.stdio(settings());
    }
  }
}
