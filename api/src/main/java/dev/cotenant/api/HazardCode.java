package dev.cotenant.api;

import java.util.Locale;
import java.util.Optional;

/**
 * The closed vocabulary of the observed-hazard ledger (docs/records.md). An unknown code is refused
 * on write and dropped on read.
 */
public enum HazardCode {
  /** A server-initiated request that could not be routed to the session it belongs to. */
  UNROUTABLE_SERVER_REQUEST,
  /** A request-scoped notification whose owner could not be determined. */
  UNATTRIBUTABLE_NOTIFICATION,
  /**
   * The statelessness probe saw one caller's marker in another caller's answer, or an answer on
   * a shared backend that differed from the same call on a dedicated one.
   */
  CROSS_SESSION_LEAK;

  private final String wireName = name().toLowerCase(Locale.ROOT);

  /** The stable snake_case wire name. */
  public String wireName() {
    return wireName;
  }

  /** Looks a wire name up; empty when the vocabulary does not contain it. */
  public static Optional<HazardCode> fromWire(String wire) {
    for (HazardCode c : values()) {
      if (c.wireName.equals(wire)) {
        return Optional.of(c);
      }
    }
    return Optional.empty();
  }

  /**
   * Parses a wire name, refusing unknown codes.
   *
   * @throws IllegalArgumentException naming the value and the accepted ones
   */
  public static HazardCode parse(String wire) {
    return fromWire(wire)
        .orElseThrow(
            () ->
                new IllegalArgumentException(
                    "unknown hazard code '"
                        + wire
                        + "'; expected one of "
                        + WireNames.of(values(), HazardCode::wireName)));
  }
}
