package dev.cotenant.spi;

/**
 * Where the hazard ledger, the pre-flight cache and the concurrency records live.
 *
 * <p><b>Discovery:</b> {@code META-INF/services/dev.cotenant.spi.RecordStoreProvider}, or an
 * instance passed to the builder or module. <b>Selection:</b> exactly one is used: explicit
 * configuration ({@code cotenant.records.provider}) wins, else a single discovered provider,
 * else the default {@code file}. <b>Thread-safety:</b> the stores are shared by every request
 * and must be thread-safe. <b>Construction</b> must stay trivial: a public no-arg constructor,
 * no IO; open files in {@link #create}.
 */
public interface RecordStoreProvider extends NamedProvider {
  /** Opens the stores under {@code context.recordsDirectory()}. */
  RecordStores create(ProviderContext context);
}
