package dev.cotenant.api;

import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * Everything the core weighs for one server. The core reads nothing else.
 *
 * @param observations hazard codes the ledger holds under the server's current identity; the
 *     only ground of {@link Strength#REFUTED}
 * @param findings inferred evidence from evidence sources and classifiers, in chain order
 * @param preflight the pre-flight outcome under the server's current identity
 * @param handshakeObserved true when a handshake was observed (a pre-flight ran, or the host
 *     supplied its own snapshot); a pre-flight that {@link PreflightOutcome.Ran ran} counts
 *     whatever this flag says
 * @param recordsComplete true when the records behind this evidence (the hazard ledger and the
 *     concurrency records) were read completely. While they were not, an observation or a
 *     withdrawal they hold may be missing from this evidence, so the verdict never recommends
 *     sharing (docs/statelessness.md, fail closed); the strength is still what the evidence says. This flag
 *     is the gate; the notes only explain it
 * @param recordsNotes why the records could not be read completely: reasons whose code is
 *     {@link ReasonCode#LEDGER_UNREADABLE} or {@link ReasonCode#CONCURRENCY_RECORDS_UNREADABLE},
 *     with the record and the problem as detail; emitted as notes, and like every note they gate
 *     nothing. A caller that clears {@code recordsComplete} says why here
 */
public record Evidence(
    List<HazardCode> observations,
    List<Finding> findings,
    PreflightOutcome preflight,
    boolean handshakeObserved,
    boolean recordsComplete,
    List<Reason> recordsNotes) {

  /** The codes {@link #recordsNotes} may carry. */
  static final Set<ReasonCode> RECORDS_NOTE_CODES =
      Set.of(ReasonCode.LEDGER_UNREADABLE, ReasonCode.CONCURRENCY_RECORDS_UNREADABLE);

  /**
   * @throws IllegalArgumentException when a records note carries a code other than
   *     {@code ledger_unreadable} or {@code concurrency_records_unreadable}
   */
  public Evidence {
    observations = List.copyOf(observations);
    findings = List.copyOf(findings);
    Objects.requireNonNull(preflight, "preflight");
    recordsNotes = List.copyOf(recordsNotes);
    for (Reason r : recordsNotes) {
      if (!RECORDS_NOTE_CODES.contains(r.code())) {
        throw new IllegalArgumentException(
            "a records note carries " + LEDGER + " or " + CONCURRENCY + ", not " + r.code().wireName());
      }
    }
  }

  private static final String LEDGER = ReasonCode.LEDGER_UNREADABLE.wireName();
  private static final String CONCURRENCY = ReasonCode.CONCURRENCY_RECORDS_UNREADABLE.wireName();

  /** Evidence read from complete records. */
  public Evidence(
      List<HazardCode> observations, List<Finding> findings, PreflightOutcome preflight, boolean handshakeObserved) {
    this(observations, findings, preflight, handshakeObserved, true, List.of());
  }

  /** No evidence at all: assesses to {@link Strength#UNKNOWN}. */
  public static Evidence none() {
    return new Evidence(List.of(), List.of(), PreflightOutcome.NOT_MEASURED, false);
  }

  /** A copy with {@code more} findings appended. */
  public Evidence withFindings(List<Finding> more) {
    List<Finding> all = new java.util.ArrayList<>(findings);
    all.addAll(more);
    return new Evidence(observations, all, preflight, handshakeObserved, recordsComplete, recordsNotes);
  }

  /** A copy saying whether the records were read completely, and if not, why. */
  public Evidence withRecords(boolean complete, List<Reason> notes) {
    return new Evidence(observations, findings, preflight, handshakeObserved, complete, notes);
  }

  /** True when a handshake was observed, directly or through a pre-flight that ran. */
  public boolean sawHandshake() {
    return handshakeObserved || preflight instanceof PreflightOutcome.Ran;
  }
}
