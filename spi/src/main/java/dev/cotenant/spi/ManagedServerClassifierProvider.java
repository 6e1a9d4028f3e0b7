package dev.cotenant.spi;

/**
 * An extension point for {@link ManagedServerClassifier}s.
 *
 * <p><b>Discovery:</b> {@code META-INF/services/dev.cotenant.spi.ManagedServerClassifierProvider},
 * or instances passed to the builder or module. <b>Selection:</b> a chain: every classifier
 * runs, ordered by {@link #order()} then {@link #name()}; any one saying "session-bound" is
 * enough. The default ({@code empty}) knows no server: nothing about which servers a machine
 * runs ships with Cotenant. <b>Thread-safety:</b> classifiers are called concurrently.
 * <b>Construction</b> must stay trivial: a public no-arg constructor, no IO.
 */
public interface ManagedServerClassifierProvider extends NamedProvider {
  /** Creates the classifier. Called once per runtime. */
  ManagedServerClassifier create(ProviderContext context);
}
