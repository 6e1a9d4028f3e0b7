package dev.cotenant.api;

import java.util.Locale;

/**
 * How strong the evidence behind a verdict is, strongest first. The declaration order IS the
 * ranking: {@link #compareTo} orders a stronger strength before a weaker one.
 */
public enum Strength {
  /** An observation: the gateway or the statelessness probe watched the server behave per caller. */
  REFUTED,
  /** A configuration or transport fact rules the server out before any user is served. */
  DISQUALIFIED,
  /** The server declares it was written for a pooled backend, or an operator registered it after a passed probe. */
  DECLARED,
  /** A pre-flight ran and found no divergence: a fact about determinism, never about isolation. */
  MEASURED,
  /** A handshake was observed and nothing above applies. */
  NO_OBJECTION,
  /** Nothing was observed. */
  UNKNOWN;

  private final String wireName = name().toLowerCase(Locale.ROOT);

  /** The stable snake_case name used in JSON and on the command line. */
  public String wireName() {
    return wireName;
  }

  /** True when this strength ranks strictly above {@code other}. */
  public boolean outranks(Strength other) {
    return compareTo(other) < 0;
  }

  /**
   * Parses a wire name.
   *
   * @throws IllegalArgumentException naming the value and the accepted ones
   */
  public static Strength fromWire(String wire) {
    for (Strength s : values()) {
      if (s.wireName.equals(wire)) {
        return s;
      }
    }
    throw new IllegalArgumentException(
        "unknown strength '" + wire + "'; expected one of " + WireNames.of(values(), Strength::wireName));
  }
}
