package dev.cotenant.gateway.archcycle;

import dev.cotenant.gateway.archfixture.ClosesACycle;

/** The other half of {@link ClosesACycle}'s package cycle. */
public final class BackIntoTheFixtures {
  /** A value {@link ClosesACycle} reads. */
  public static final String NAME = new String("back");

  private BackIntoTheFixtures() {}

  /** The class that closes the cycle. */
  public static Class<?> closer() {
    return ClosesACycle.class;
  }
}
