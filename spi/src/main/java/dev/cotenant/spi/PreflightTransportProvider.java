package dev.cotenant.spi;

/**
 * How a server is spawned and asked for a pre-flight.
 *
 * <p><b>Discovery:</b> {@code META-INF/services/dev.cotenant.spi.PreflightTransportProvider}, or
 * an instance passed to the builder or module. <b>Selection:</b> exactly one is used: explicit
 * configuration ({@code cotenant.preflight.provider}) wins, else a single discovered provider,
 * else the default {@code stdio}. <b>Thread-safety:</b> the transport is called concurrently.
 * <b>Construction</b> must stay trivial: a public no-arg constructor, no IO.
 */
public interface PreflightTransportProvider extends NamedProvider {
  /** Creates the transport. */
  PreflightTransport create(ProviderContext context);
}
