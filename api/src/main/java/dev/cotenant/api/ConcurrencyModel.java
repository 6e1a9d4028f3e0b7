package dev.cotenant.api;

import java.util.Locale;
import java.util.Optional;

/** How a server's backend may be used by sessions (docs/statelessness.md). */
public enum ConcurrencyModel {
  /** One backend per session (the default): the topology of no gateway. */
  SIDECAR,
  /** One backend serves several sessions at once; needs a passed statelessness probe and a positive {@code maxConcurrent}. */
  SHARED,
  /** Pre-spawned backends, each still serving one session at a time. */
  WARM_POOL;

  private final String wireName = name().toLowerCase(Locale.ROOT);

  /** The stable snake_case wire name. */
  public String wireName() {
    return wireName;
  }

  /** Looks a wire name up. */
  public static Optional<ConcurrencyModel> fromWire(String wire) {
    for (ConcurrencyModel m : values()) {
      if (m.wireName.equals(wire)) {
        return Optional.of(m);
      }
    }
    return Optional.empty();
  }
}
