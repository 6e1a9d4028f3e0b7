package dev.cotenant.spi.archfixture;

/** Deliberately depends on a library outside the JDK and api, so the spi rule can be shown to reject it. */
public final class UsesALibrary {
  private UsesALibrary() {}

  /** Reaches for a test library. */
  public static Object library() {
    return org.quicktheories.generators.Generate.constant(dev.cotenant.api.Strength.UNKNOWN);
  }

  /** Uses the api, which is allowed. */
  public static String allowed() {
    return dev.cotenant.api.Strength.UNKNOWN.wireName();
  }
}
