package dev.cotenant.testkit.reference;

import dev.cotenant.spi.PreflightTransport;
import dev.cotenant.testkit.contract.PreflightTransportContract;
import java.time.Duration;

class ReferencePreflightTest extends PreflightTransportContract {
  @Override
  protected PreflightTransport preflight() {
    return new ReferencePreflight(new ReferenceStdioTransport(), Duration.ofSeconds(30));
  }
}
