package dev.cotenant.spi;

/**
 * How a server is started and spoken to.
 *
 * <p><b>Discovery:</b> {@code META-INF/services/dev.cotenant.spi.SessionTransportProvider}, or an
 * instance passed to the builder or module. <b>Selection:</b> exactly one is used: explicit
 * configuration ({@code cotenant.sessions.provider}) wins, else a single discovered provider,
 * else the default {@code stdio}. Other providers reach the selected transport through
 * {@link ProviderContext#sessions()}. <b>Thread-safety:</b> the transport is called
 * concurrently. <b>Construction</b> must stay trivial: a public no-arg constructor, no IO.
 */
public interface SessionTransportProvider extends NamedProvider {
  /** Creates the transport; its own bounds come from {@code context.config()}. */
  SessionTransport create(ProviderContext context);
}
