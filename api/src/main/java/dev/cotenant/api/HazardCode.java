package dev.cotenant.api;

import java.util.Locale;
import java.util.Optional;

/**
 * The closed vocabulary of the observed-hazard ledger (docs/records.md). An unknown code is refused
 * on write and dropped on read.
 *
 * <p>Most codes are observations about co-tenancy and refute sharing ({@link #refutesSharing()}).
 * {@link #DEFERRED_ANSWER_CHANGED} is an observation about answering a session's start from the
 * records: it ends that for the identity it was observed under and says nothing about whether two
 * sessions may share a process.
 */
public enum HazardCode {
  /** A server-initiated request that could not be routed to the session it belongs to. */
  UNROUTABLE_SERVER_REQUEST(true),
  /** A request-scoped notification whose owner could not be determined. */
  UNATTRIBUTABLE_NOTIFICATION(true),
  /**
   * The statelessness probe saw one caller's marker in another caller's answer, or an answer on
   * a shared backend that differed from the same call on a dedicated one.
   */
  CROSS_SESSION_LEAK(true),
  /**
   * A session was answered its handshake or a listing from the start the pre-flight recorded, and
   * the server, once started for it, answered otherwise (docs/pool.md, "Deferred backends"). The
   * daemon no longer answers a start of that identity from the records.
   */
  DEFERRED_ANSWER_CHANGED(false);

  private final String wireName = name().toLowerCase(Locale.ROOT);
  private final boolean refutesSharing;

  HazardCode(boolean refutesSharing) {
    this.refutesSharing = refutesSharing;
  }

  /**
   * True when the observation is about co-tenancy, so a ledger entry of it under the current
   * identity makes the verdict {@code refuted}; false for {@link #DEFERRED_ANSWER_CHANGED}, which
   * only ends answering a start from the records.
   */
  public boolean refutesSharing() {
    return refutesSharing;
  }

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
