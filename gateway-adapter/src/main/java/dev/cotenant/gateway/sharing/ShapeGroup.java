package dev.cotenant.gateway.sharing;

import dev.cotenant.api.HazardCode;
import dev.cotenant.api.LogSafe;
import dev.cotenant.api.ProbePass;
import dev.cotenant.spi.PreflightRecord;
import dev.cotenant.spi.StartRecording;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * Which clients of a shared server one backend serves (docs/pool.md, "Who shares a backend"): the
 * clients its evidence covers, whatever protocol version they ask and capabilities they declare,
 * or otherwise only clients of exactly one shape ({@link ClientShape}).
 *
 * <p>A client is covered when the pre-flight on record under the server's current launch identity
 * recorded one start for every caller ({@link StartRecording}: callers asking different protocol
 * versions, declaring different capabilities and naming themselves differently were answered
 * exactly alike), that recording covers the client's version and capabilities, no start answered
 * from it was contradicted by the live server ({@link HazardCode#DEFERRED_ANSWER_CHANGED}), and,
 * when the server shares on a whole-surface probe, that probe ran as clients of the client's
 * version ({@link ProbePass.Surface#protocolVersions()}). The capabilities a server asks its
 * client about are covered by the probe as before ({@link PlacementDecision#forClient}). Covered
 * clients share one backend, started with the first one's {@code initialize}; each is answered the
 * version the server negotiates for the version it asked for, as a server of its own would answer
 * it. Uncovered clients share a backend with clients of their exact shape only, and the reason
 * says why.
 *
 * @param key the part of the pool key naming the clients the backend serves
 * @param why why this client is in that group, for the placement's reason
 * @param answeredVersion the version the client is answered in {@code initialize}, when covered;
 *     empty for a backend of its own shape (answered what that backend negotiated)
 */
public record ShapeGroup(String key, String why, Optional<String> answeredVersion) {
  /** The key of the backend serving every covered client. */
  public static final String COVERED = "clients its evidence covers";

  public ShapeGroup {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(why, "why");
    Objects.requireNonNull(answeredVersion, "answeredVersion");
  }

  /** The group of clients of exactly {@code shape}, and why the client is not in the covered one. */
  public static ShapeGroup own(ClientShape shape, String why) {
    return new ShapeGroup(shape.key(), why, Optional.empty());
  }

  /**
   * The group of a client of {@code shape}.
   *
   * @param row the pre-flight row under the server's current launch identity, if any
   * @param observed the hazard codes the ledger holds under that identity
   * @param probe the whole-surface probe on record under that identity, when the server shares on
   *     one (empty for a server that declares its own isolation)
   */
  public static ShapeGroup of(ClientShape shape, Optional<PreflightRecord> row, Set<HazardCode> observed,
      Optional<ProbePass> probe) {
    String version = shape.protocolVersion();
    Optional<StartRecording> start = row.flatMap(PreflightRecord::start);
    if (start.isEmpty()) {
      return own(shape, "a backend per protocol version and capabilities: its pre-flight on record recorded no start"
          + " that covers other versions and shapes");
    }
    if (observed.contains(HazardCode.DEFERRED_ANSWER_CHANGED)) {
      return own(shape, "a backend per protocol version and capabilities: a start answered from its records differed"
          + " from the live server (" + HazardCode.DEFERRED_ANSWER_CHANGED.wireName() + ")");
    }
    Optional<String> answered = start.get().negotiated(version);
    if (answered.isEmpty()) {
      return own(shape, "a backend of its own version: the client asks protocol version " + LogSafe.escape(version, 40)
          + ", and its pre-flight covers " + String.join(", ", start.get().versions().keySet()));
    }
    List<String> uncovered = start.get().uncovered(shape.capabilities());
    if (!uncovered.isEmpty()) {
      return own(shape, "a backend of its own shape: the client declares " + LogSafe.escape(String.join(", ", uncovered),
          200) + ", which its pre-flight's callers did not vary");
    }
    if (probe.isPresent()) {
      List<String> versions = probe.get().surface().map(ProbePass.Surface::protocolVersions).orElse(List.of());
      if (!versions.contains(version)) {
        return own(shape, "a backend of its own version: its whole-surface probe ran as clients of "
            + (versions.isEmpty() ? "a version it did not record" : String.join(", ", versions))
            + ", not " + LogSafe.escape(version, 40));
      }
    }
    return new ShapeGroup(COVERED, "one backend for every client its evidence covers (protocol versions "
        + String.join(", ", start.get().versions().keySet()) + ")", answered);
  }
}
