package dev.cotenant.api;

import java.util.ArrayList;
import java.util.List;

/**
 * The fixed core: turns {@link Evidence} into a {@link Verdict} exactly as docs/architecture.md ranks it.
 *
 * <p>The ranking, strongest first: an observation about co-tenancy ({@code refuted}; an
 * observation that does not refute sharing, {@link HazardCode#refutesSharing()}, is a note), a disqualifying fact
 * ({@code disqualified}), a declaration ({@code declared}), a pre-flight that ran and replayed
 * identically ({@code measured}), an observed handshake ({@code no_objection}), nothing
 * ({@code unknown}). The strength is the strongest ground present. Notes and supporting reasons
 * ground nothing and gate nothing. {@code recommendShare} holds only at {@code declared}, and only
 * while the records were read completely ({@link Evidence#recordsComplete()}: fail closed);
 * {@code recommendStub} at {@code declared}, {@code measured} and {@code no_objection}.
 *
 * <p>Pure: no IO, clock, environment or configuration; the same evidence gives the same verdict
 * and the evidence is never mutated. Thread-safe.
 */
public final class Assessor {
  private static final Reason PREFLIGHT_PASSED = Reason.of(ReasonCode.PREFLIGHT_PASSED);
  private static final Reason PREFLIGHT_NOT_MEASURED = Reason.of(ReasonCode.PREFLIGHT_NOT_RUN);
  private static final Reason NO_OBJECTION_FOUND = Reason.of(ReasonCode.NO_OBJECTION_FOUND);
  private static final Reason NOT_PROBED = Reason.of(ReasonCode.NOT_PROBED);
  private static final Reason DEFERRED_ANSWER_CHANGED = Reason.of(ReasonCode.DEFERRED_ANSWER_CHANGED);
  private static final HazardCode[] HAZARDS = HazardCode.values();
  private static final Reason[] OBSERVED = new Reason[HAZARDS.length];

  static {
    for (HazardCode h : HAZARDS) {
      OBSERVED[h.ordinal()] = new Reason(ReasonCode.OBSERVED_HAZARD, h.wireName());
    }
  }

  private Assessor() {}

  /**
   * Assesses one server.
   *
   * @throws EvidenceRejectedException when a finding's code is not in the vocabulary, or is one
   *     only the core derives; the message names the source
   */
  public static Verdict assess(Evidence evidence) {
    // Every inferred reason is collected once, in arrival order (findings, then what the
    // pre-flight outcome adds); the verdict then emits them grouped strongest role first,
    // keeping first-seen order within a role and dropping exact duplicates.
    List<Finding> findings = evidence.findings();
    PreflightOutcome preflight = evidence.preflight();
    List<String> facets =
        preflight instanceof PreflightOutcome.Ran ? ((PreflightOutcome.Ran) preflight).divergentFacets() : List.of();
    List<Reason> recordsNotes = evidence.recordsNotes();
    List<HazardCode> observations = evidence.observations();
    Reason[] inferred = new Reason[findings.size() + facets.size() + 1 + recordsNotes.size() + observations.size()];
    int n = 0;
    boolean disqualifying = false;
    boolean declaration = false;
    for (int i = 0, size = findings.size(); i < size; i++) {
      Finding f = findings.get(i);
      ReasonCode code = admit(f);
      switch (code.role()) {
        case DISQUALIFYING_FACT:
          disqualifying = true;
          break;
        case DECLARATION:
          declaration = true;
          break;
        case NOTE:
        case SUPPORTING:
          break;
        default:
          // admit() refuses every other role; kept exhaustive for the compiler.
          throw new AssertionError(code);
      }
      inferred[n++] = new Reason(code, f.detail());
    }

    boolean measured = false;
    if (preflight instanceof PreflightOutcome.Ran) {
      if (facets.isEmpty()) {
        measured = true;
      } else {
        for (int i = 0, size = facets.size(); i < size; i++) {
          inferred[n++] = new Reason(ReasonCode.HANDSHAKE_NOT_REPRODUCIBLE, facets.get(i));
        }
      }
    } else if (preflight instanceof PreflightOutcome.NotRun) {
      // Could not ask: said at every strength, with why, as a supporting reason that grounds
      // nothing and gates nothing.
      inferred[n++] = new Reason(ReasonCode.PREFLIGHT_NOT_RUN, ((PreflightOutcome.NotRun) preflight).reason());
    } else if (declaration) {
      inferred[n++] = PREFLIGHT_NOT_MEASURED;
    }

    for (int i = 0, size = recordsNotes.size(); i < size; i++) {
      inferred[n++] = recordsNotes.get(i);
    }

    boolean refuted = false;
    for (int i = 0, size = observations.size(); i < size; i++) {
      if (observations.get(i).refutesSharing()) {
        refuted = true;
      } else {
        inferred[n++] = DEFERRED_ANSWER_CHANGED;
      }
    }
    Strength strength;
    if (refuted) {
      strength = Strength.REFUTED;
    } else if (disqualifying) {
      strength = Strength.DISQUALIFIED;
    } else if (declaration) {
      strength = Strength.DECLARED;
    } else if (measured) {
      strength = Strength.MEASURED;
    } else if (evidence.sawHandshake()) {
      strength = Strength.NO_OBJECTION;
    } else {
      strength = Strength.UNKNOWN;
    }

    List<Reason> reasons = new ArrayList<>(n + HAZARDS.length + 2);
    if (refuted) {
      for (HazardCode h : HAZARDS) {
        if (h.refutesSharing() && observations.contains(h)) {
          reasons.add(OBSERVED[h.ordinal()]);
        }
      }
    }
    addRole(reasons, inferred, n, ReasonRole.DISQUALIFYING_FACT);
    addRole(reasons, inferred, n, ReasonRole.DECLARATION);
    if (measured) {
      reasons.add(PREFLIGHT_PASSED);
    }
    if (strength == Strength.NO_OBJECTION) {
      reasons.add(NO_OBJECTION_FOUND);
    } else if (strength == Strength.UNKNOWN) {
      reasons.add(NOT_PROBED);
    }
    addRole(reasons, inferred, n, ReasonRole.SUPPORTING);
    addRole(reasons, inferred, n, ReasonRole.NOTE);

    // Fail closed: records that could not be read completely may hide an observation or a
    // withdrawn registration, so nothing recommends sharing; the strength stays what the
    // evidence says.
    boolean share = strength == Strength.DECLARED && evidence.recordsComplete();
    boolean stub =
        strength == Strength.DECLARED || strength == Strength.MEASURED || strength == Strength.NO_OBJECTION;
    return new Verdict(strength, reasons, stub, share);
  }

  /** Appends the reasons of one role in arrival order, skipping exact duplicates. */
  private static void addRole(List<Reason> out, Reason[] inferred, int n, ReasonRole role) {
    for (int i = 0; i < n; i++) {
      Reason r = inferred[i];
      if (r.code().role() == role && !out.contains(r)) {
        out.add(r);
      }
    }
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
