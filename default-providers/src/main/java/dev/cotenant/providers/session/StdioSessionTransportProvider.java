package dev.cotenant.providers.session;

import dev.cotenant.spi.ProviderContext;
import dev.cotenant.spi.SessionTransport;
import dev.cotenant.spi.SessionTransportProvider;

/**
 * The {@value #NAME} session transport: {@link StdioSessionTransport}, its bounds read from
 * {@code cotenant.session.*} (see {@link SessionSettings}). The runtime's default when
 * {@code cotenant.sessions.provider} is unset. Registered in
 * {@code META-INF/services/dev.cotenant.spi.SessionTransportProvider}; construction does nothing.
 */
public final class StdioSessionTransportProvider implements SessionTransportProvider {
  /** The provider name. */
  public static final String NAME = "stdio";

  /** The no-arg constructor {@link java.util.ServiceLoader} calls. */
  public StdioSessionTransportProvider() {}

  @Override
  public String name() {
    return NAME;
  }

  /**
   * Reads only {@code context.config()}; never {@link ProviderContext#sessions()}.
   *
   * @throws IllegalArgumentException naming the configuration key whose value is malformed
   */
  @Override
  public SessionTransport create(ProviderContext context) {
    return new StdioSessionTransport(SessionSettings.from(context.config()));
  }
}
