package dev.cotenant.spi;

/**
 * An extension point contributing {@link EvidenceSource}s.
 *
 * <p><b>Discovery:</b> {@code META-INF/services/dev.cotenant.spi.EvidenceSourceProvider}, or
 * instances passed to {@code Cotenant.builder().evidenceSource(...)} / {@code CotenantModule}.
 * <b>Selection:</b> a chain: every discovered provider runs, ordered by {@link #order()} then
 * {@link #name()}; {@code cotenant.evidence.disabled} (comma-separated names) removes some.
 * <b>Thread-safety:</b> the created source is called concurrently and must be thread-safe.
 * <b>Construction</b> must stay trivial: a public no-arg constructor that does no IO; work
 * belongs in {@link #create}.
 */
public interface EvidenceSourceProvider extends NamedProvider {
  /** Creates the source. Called once per runtime. */
  EvidenceSource create(ProviderContext context);
}
