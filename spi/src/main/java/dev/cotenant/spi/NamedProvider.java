package dev.cotenant.spi;

/**
 * What every Cotenant provider interface has in common: a stable name and a position.
 *
 * <p>Each extension point is an {@code XxxProvider} interface extending this one with a single
 * factory method taking a {@link ProviderContext}. The runtime discovers providers through
 * {@code META-INF/services/<interface name>} (or takes instances from the host), names them in
 * messages and configuration by {@link #name()}, and orders chains by {@link #order()} then name.
 * For an SPI where exactly one provider is used, {@link #order()} is ignored.
 *
 * <p>Construction of every provider must stay trivial: a public no-arg constructor that does no
 * IO; work belongs in the factory method.
 */
public interface NamedProvider {
  /** A stable, lowercase name, unique among the providers of one SPI. */
  String name();

  /** Position in a chain; lower runs first, ties broken by name. Ignored for a single provider. */
  default int order() {
    return 0;
  }
}
