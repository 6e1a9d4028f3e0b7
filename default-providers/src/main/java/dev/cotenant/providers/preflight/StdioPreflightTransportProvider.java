package dev.cotenant.providers.preflight;

import dev.cotenant.spi.PreflightTransport;
import dev.cotenant.spi.PreflightTransportProvider;
import dev.cotenant.spi.ProviderContext;

/**
 * The {@value #NAME} pre-flight transport: {@link StdioPreflightTransport} over the session
 * transport the runtime selected ({@link ProviderContext#sessions()}, {@code stdio} unless
 * {@code cotenant.sessions.provider} names another), with the conversation bounds of
 * {@code cotenant.preflight.*} (see {@link PreflightSettings}), its sessions opened within the
 * pre-flight's process bounds when that transport is {@code stdio}. Registered in
 * {@code META-INF/services/dev.cotenant.spi.PreflightTransportProvider}; construction does
 * nothing.
 */
public final class StdioPreflightTransportProvider implements PreflightTransportProvider {
  /** The provider name. */
  public static final String NAME = "stdio";

  /** The no-arg constructor {@link java.util.ServiceLoader} calls. */
  public StdioPreflightTransportProvider() {}

  @Override
  public String name() {
    return NAME;
  }

  /**
   * @throws IllegalArgumentException naming the configuration key whose value is malformed
   * @throws IllegalStateException when the context offers no session transport
   */
  @Override
  public PreflightTransport create(ProviderContext context) {
    PreflightSettings settings = PreflightSettings.from(context.config());
    return new StdioPreflightTransport(context.sessions(), settings);
  }
}
