package dev.cotenant.providers.classifier;

import dev.cotenant.spi.ManagedServerClassifier;
import dev.cotenant.spi.ManagedServerClassifierProvider;
import dev.cotenant.spi.ProviderContext;

/**
 * The classifier named {@value #NAME}: it knows no server and never says "session-bound".
 * Registered so that the classifier chain is never empty by accident; it contributes nothing.
 */
public final class EmptyClassifierProvider implements ManagedServerClassifierProvider {
  /** This classifier's name. */
  public static final String NAME = "empty";

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public ManagedServerClassifier create(ProviderContext context) {
    return ManagedServerClassifier.empty();
  }
}
