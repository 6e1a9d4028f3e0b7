package dev.cotenant.spi;

/**
 * How verdicts become configuration at start.
 *
 * <p><b>Discovery:</b> {@code META-INF/services/dev.cotenant.spi.SeedingPolicyProvider}, or an
 * instance passed to the builder or module. <b>Selection:</b> exactly one is used: explicit
 * configuration ({@code cotenant.seeding.provider}) wins, else a single discovered provider,
 * else the default. <b>Thread-safety:</b> the policy must be thread-safe and {@code plan} pure.
 * <b>Construction</b> must stay trivial: a public no-arg constructor, no IO.
 */
public interface SeedingPolicyProvider extends NamedProvider {
  /** Creates the policy. */
  SeedingPolicy create(ProviderContext context);
}
