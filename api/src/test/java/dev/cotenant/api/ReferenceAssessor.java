package dev.cotenant.api;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The first, plainest implementation of docs/architecture.md's ranking: one ordered set per role, filled
 * and then emitted strongest role first. Kept as an executable reference that
 * {@link AssessorReferencePropertyTest} compares {@link Assessor} against, so a change made to
 * {@link Assessor} for speed is shown not to change a single verdict or refusal.
 */
final class ReferenceAssessor {
  private ReferenceAssessor() {}

  /**
   * Assesses one server.
   *
   * @throws EvidenceRejectedException when a finding's code is not in the vocabulary, or is one
   *     only the core derives; the message names the source
   */
  static Verdict assess(Evidence evidence) {
    // Grounds, notes and supporting reasons are collected separately, then emitted strongest
    // role first. LinkedHashSet keeps first-seen order and drops exact duplicates.
    Set<Reason> observation = new LinkedHashSet<>();
    Set<Reason> disqualifying = new LinkedHashSet<>();
    Set<Reason> declaration = new LinkedHashSet<>();
    Set<Reason> measurement = new LinkedHashSet<>();
    Set<Reason> supporting = new LinkedHashSet<>();
    Set<Reason> notes = new LinkedHashSet<>();

    EnumSet<HazardCode> hazards = EnumSet.noneOf(HazardCode.class);
    hazards.addAll(evidence.observations());
    for (HazardCode h : hazards) {
      if (h.refutesSharing()) {
        observation.add(new Reason(ReasonCode.OBSERVED_HAZARD, h.wireName()));
      }
    }

    for (Finding f : evidence.findings()) {
      ReasonCode code = admit(f);
      Reason r = new Reason(code, f.detail());
      switch (code.role()) {
        case DISQUALIFYING_FACT:
          disqualifying.add(r);
          break;
        case DECLARATION:
          declaration.add(r);
          break;
        case NOTE:
          notes.add(r);
          break;
        case SUPPORTING:
          supporting.add(r);
          break;
        default:
          // admit() refuses every other role; kept exhaustive for the compiler.
          throw new AssertionError(code);
      }
    }

    PreflightOutcome preflight = evidence.preflight();
    if (preflight instanceof PreflightOutcome.Ran) {
      PreflightOutcome.Ran ran = (PreflightOutcome.Ran) preflight;
      if (ran.passed()) {
        measurement.add(Reason.of(ReasonCode.PREFLIGHT_PASSED));
      } else {
        for (String facet : ran.divergentFacets()) {
          notes.add(new Reason(ReasonCode.HANDSHAKE_NOT_REPRODUCIBLE, facet));
        }
      }
    } else if (preflight instanceof PreflightOutcome.NotRun) {
      supporting.add(new Reason(ReasonCode.PREFLIGHT_NOT_RUN, ((PreflightOutcome.NotRun) preflight).reason()));
    } else if (!declaration.isEmpty()) {
      supporting.add(Reason.of(ReasonCode.PREFLIGHT_NOT_RUN));
    }

    notes.addAll(evidence.recordsNotes());
    if (hazards.stream().anyMatch(h -> !h.refutesSharing())) {
      notes.add(Reason.of(ReasonCode.DEFERRED_ANSWER_CHANGED));
    }

    Strength strength;
    if (!observation.isEmpty()) {
      strength = Strength.REFUTED;
    } else if (!disqualifying.isEmpty()) {
      strength = Strength.DISQUALIFIED;
    } else if (!declaration.isEmpty()) {
      strength = Strength.DECLARED;
    } else if (!measurement.isEmpty()) {
      strength = Strength.MEASURED;
    } else if (evidence.sawHandshake()) {
      strength = Strength.NO_OBJECTION;
    } else {
      strength = Strength.UNKNOWN;
    }

    List<Reason> reasons = new ArrayList<>();
    reasons.addAll(observation);
    reasons.addAll(disqualifying);
    reasons.addAll(declaration);
    reasons.addAll(measurement);
    if (strength == Strength.NO_OBJECTION) {
      reasons.add(Reason.of(ReasonCode.NO_OBJECTION_FOUND));
    } else if (strength == Strength.UNKNOWN) {
      reasons.add(Reason.of(ReasonCode.NOT_PROBED));
    }
    reasons.addAll(supporting);
    reasons.addAll(notes);

    boolean share = strength == Strength.DECLARED && evidence.recordsComplete();
    boolean stub =
        strength == Strength.DECLARED || strength == Strength.MEASURED || strength == Strength.NO_OBJECTION;
    return new Verdict(strength, reasons, stub, share);
  }

  private static ReasonCode admit(Finding f) {
    ReasonCode code =
        ReasonCode.fromWire(f.code())
            .orElseThrow(
                () ->
                    new EvidenceRejectedException(
                        f.source(),
                        f.code(),
                        "evidence source '"
                            + LogSafe.escape(f.source())
                            + "' contributed unknown reason code '"
                            + LogSafe.escape(f.code())
                            + "'; the vocabulary is closed: "
                            + ReasonCode.allWireNames()));
    if (code.origin() == ReasonCode.Origin.CORE) {
      throw new EvidenceRejectedException(
          f.source(),
          f.code(),
          "evidence source '"
              + LogSafe.escape(f.source())
              + "' contributed reason code '"
              + code.wireName()
              + "', which only the core derives (from the records or the pre-flight outcome)");
    }
    return code;
  }
}
