package dev.cotenant.api;

import java.util.List;
import java.util.Objects;

/**
 * Everything the core weighs for one server. The core reads nothing else.
 *
 * @param observations hazard codes the ledger holds under the server's current identity; the
 *     only ground of {@link Strength#REFUTED}
 * @param findings inferred evidence from evidence sources and classifiers, in chain order
 * @param preflight the pre-flight outcome under the current identity
 * @param handshakeObserved true when a handshake was observed (a pre-flight ran, or the host
 *     supplied its own snapshot); a pre-flight that {@link PreflightOutcome.Ran ran} counts
 *     whatever this flag says
 */
public record Evidence(
    List<HazardCode> observations, List<Finding> findings, PreflightOutcome preflight, boolean handshakeObserved) {

  public Evidence {
    observations = List.copyOf(observations);
    findings = List.copyOf(findings);
    Objects.requireNonNull(preflight, "preflight");
  }

  /** No evidence at all: assesses to {@link Strength#UNKNOWN}. */
  public static Evidence none() {
    return new Evidence(List.of(), List.of(), PreflightOutcome.NOT_MEASURED, false);
  }

  /** A copy with {@code more} findings appended. */
  public Evidence withFindings(List<Finding> more) {
    List<Finding> all = new java.util.ArrayList<>(findings);
    all.addAll(more);
    return new Evidence(observations, all, preflight, handshakeObserved);
  }

  /** True when a handshake was observed, directly or through a pre-flight that ran. */
  public boolean sawHandshake() {
    return handshakeObserved || preflight instanceof PreflightOutcome.Ran;
  }
}
