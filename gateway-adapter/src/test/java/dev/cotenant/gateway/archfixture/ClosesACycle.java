package dev.cotenant.gateway.archfixture;

import dev.cotenant.gateway.archcycle.BackIntoTheFixtures;

/**
 * Breaks the package-cycle rules on purpose: it depends on {@code archcycle}, which depends back
 * on this package.
 */
public final class ClosesACycle {
  private ClosesACycle() {}

  /** What the other side says. */
  public static String other() {
    return BackIntoTheFixtures.NAME;
  }
}
