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
 * @param start what the server answered at start, when every caller was answered exactly alike
 *     and the server sent nothing of its own before its listings ended ({@link StartRecording})
 * @param startNotRecorded why there is no {@code start} although it ran (for example the facet
 *     whose answers differed, or the first message the server sent of its own); {@code ""} when
 *     there is one or when it did not run
 */
public record PreflightResult(
    boolean ran, String notRunReason, List<String> divergentFacets, Optional<HandshakeFacts> handshake,
    Optional<StartRecording> start, String startNotRecorded) {
  public PreflightResult {
    Objects.requireNonNull(notRunReason, "notRunReason");
    divergentFacets = List.copyOf(divergentFacets);
    Objects.requireNonNull(handshake, "handshake");
    Objects.requireNonNull(start, "start");
    Objects.requireNonNull(startNotRecorded, "startNotRecorded");
    if (start.isPresent() && !ran) {
      throw new IllegalArgumentException("a pre-flight that did not run recorded no start");
    }
  }

  /** A result without a start recording (a pre-flight that records none). */
  public PreflightResult(
      boolean ran, String notRunReason, List<String> divergentFacets, Optional<HandshakeFacts> handshake) {
    this(ran, notRunReason, divergentFacets, handshake, Optional.empty(),
        ran ? "the pre-flight recorded no start" : "");
  }

  /** A pre-flight that could not ask the server. */
  public static PreflightResult notRun(String reason) {
    return new PreflightResult(false, reason, List.of(), Optional.empty());
  }

  /** A pre-flight that ran and recorded no start. */
  public static PreflightResult ran(List<String> divergentFacets, HandshakeFacts handshake) {
    return new PreflightResult(true, "", divergentFacets, Optional.of(handshake));
  }

  /** A pre-flight that ran, with its start recorded or why not ({@code start} empty). */
  public static PreflightResult ran(List<String> divergentFacets, HandshakeFacts handshake,
      Optional<StartRecording> start, String startNotRecorded) {
    return new PreflightResult(true, "", divergentFacets, Optional.of(handshake), start,
        start.isPresent() ? "" : startNotRecorded);
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
