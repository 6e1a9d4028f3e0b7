package dev.cotenant.spi;

/**
 * Where {@code maxConcurrent} is enforced: in-process by default, or a distributed limiter a
 * fleet plugs in.
 *
 * <p><b>Discovery:</b> {@code META-INF/services/dev.cotenant.spi.ConcurrencyLimiterProvider}, or
 * an instance passed to the builder or module. <b>Selection:</b> exactly one is used: explicit
 * configuration ({@code cotenant.limiter.provider}) wins, else a single discovered provider.
 * <b>Thread-safety:</b> the limiter is shared by every call. <b>Construction</b> must stay
 * trivial: a public no-arg constructor, no IO.
 */
public interface ConcurrencyLimiterProvider extends NamedProvider {
  /** Creates the limiter. */
  ConcurrencyLimiter create(ProviderContext context);
}
