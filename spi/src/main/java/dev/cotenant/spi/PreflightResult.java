package dev.cotenant.spi;

import dev.cotenant.api.HandshakeFacts;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What one pre-flight found. Callers branch on {@link #ran()} first: a server that could not
 * be asked did not fail.
 *
 * @param ran true when both callers completed the handshake
 * @param notRunReason a short reason when {@code !ran}, {@code ""} otherwise
 * @param divergentFacets the facets whose replayed surface differed; empty when none did
 * @param handshake the first caller's handshake facts, when it ran
 */
public record PreflightResult(
    boolean ran, String notRunReason, List<String> divergentFacets, Optional<HandshakeFacts> handshake) {
  public PreflightResult {
    Objects.requireNonNull(notRunReason, "notRunReason");
    divergentFacets = List.copyOf(divergentFacets);
    Objects.requireNonNull(handshake, "handshake");
  }

  /** A pre-flight that could not ask the server. */
  public static PreflightResult notRun(String reason) {
    return new PreflightResult(false, reason, List.of(), Optional.empty());
  }

  /** A pre-flight that ran. */
  public static PreflightResult ran(List<String> divergentFacets, HandshakeFacts handshake) {
    return new PreflightResult(true, "", divergentFacets, Optional.of(handshake));
  }

  /**
   * What the server called its own version ({@code serverInfo.version} of the first caller's
   * answer), when it ran and said; verbatim, so escape it before it reaches a log line.
   */
  public Optional<String> reportedVersion() {
    return handshake.flatMap(HandshakeFacts::reportedVersion);
  }

  /** True when it ran and some facet diverged. */
  public boolean callerSensitive() {
    return ran && !divergentFacets.isEmpty();
  }
}
