package dev.cotenant.api;

import java.util.Locale;
import java.util.Optional;

/** Who may share a {@link ConcurrencyModel#SHARED} backend. Meaningful only for {@code shared}. */
public enum ShareScope {
  /** Sessions of one tenant share a backend (the default). */
  TENANT,
  /** Every session shares one backend: a deliberate opt-in. */
  GLOBAL;

  private final String wireName = name().toLowerCase(Locale.ROOT);

  /** The stable wire name. */
  public String wireName() {
    return wireName;
  }

  /** Looks a wire name up. */
  public static Optional<ShareScope> fromWire(String wire) {
    for (ShareScope s : values()) {
      if (s.wireName.equals(wire)) {
        return Optional.of(s);
      }
    }
    return Optional.empty();
  }
}
