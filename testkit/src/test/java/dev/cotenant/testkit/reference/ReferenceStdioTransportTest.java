package dev.cotenant.testkit.reference;

import dev.cotenant.spi.SessionTransport;
import dev.cotenant.testkit.contract.SessionTransportContract;

class ReferenceStdioTransportTest extends SessionTransportContract {
  @Override
  protected SessionTransport transport() {
    return new ReferenceStdioTransport();
  }
}
