package dev.cotenant.api;

import static dev.cotenant.api.EvidenceGenerators.copy;
import static dev.cotenant.api.EvidenceGenerators.evidence;
import static dev.cotenant.api.EvidenceGenerators.shuffled;
import static dev.cotenant.api.EvidenceGenerators.withFindings;
import static dev.cotenant.api.EvidenceGenerators.withFindingsInserted;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.quicktheories.generators.SourceDSL.lists;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.quicktheories.QuickTheory;
import org.quicktheories.api.Pair;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;

/**
 * The invariants of docs/architecture.md as properties over generated evidence. Each property is a static
 * method taking the theory to run and the assessor it checks; its test passes
 * {@link Theories#qt()} and {@link Assessor#assess}, and {@link PropertiesBiteTest} passes
 * deliberately broken assessors to show the property fails on them.
 */
class AssessorPropertyTest {

  /** One to four note-role findings. */
  private static Gen<List<Finding>> notes() {
    return lists().of(EvidenceGenerators.noteFinding()).ofSizeBetween(1, 4);
  }

  private static Gen<ReasonCode> coreCode() {
    return Generate.pick(EvidenceGenerators.CORE_CODES);
  }

  /** Evidence, and the same evidence with one to four notes inserted anywhere among its findings. */
  private static Gen<Pair<Evidence, Evidence>> evidenceAndWithNotesAdded() {
    return evidence().flatMap(e -> notes().flatMap(n -> withFindingsInserted(e, n)).map(more -> Pair.of(e, more)));
  }

  /** Evidence, and the same evidence with its findings in any order. */
  private static Gen<Pair<Evidence, Evidence>> evidenceAndReordered() {
    return evidence().flatMap(e -> shuffled(e.findings()).map(s -> Pair.of(e, withFindings(e, s))));
  }

  /** A finding with an unknown code, and evidence holding it anywhere among its findings. */
  private static Gen<Pair<Finding, Evidence>> anUnknownCodeAmongEvidence() {
    Gen<Finding> unknown =
        EvidenceGenerators.sourceName().zip(EvidenceGenerators.unknownCode(), (s, c) -> new Finding(s, c, ""));
    return evidence()
        .zip(unknown, Pair::of)
        .flatMap(p -> withFindingsInserted(p._1, List.of(p._2)).map(e -> Pair.of(p._2, e)));
  }

  // ---- an independent reading of the strength table ------------------------------------------

  /** docs/architecture.md's strength table, strongest first, written out here rather than read from the enum. */
  private static final List<Strength> RANK =
      List.of(
          Strength.REFUTED,
          Strength.DISQUALIFIED,
          Strength.DECLARED,
          Strength.MEASURED,
          Strength.NO_OBJECTION,
          Strength.UNKNOWN);

  /** The source codes that ground a strength, per docs/architecture.md's reason table. */
  private static final Map<String, Strength> SOURCE_GROUNDS =
      Map.of(
          "not_stdio", Strength.DISQUALIFIED,
          "session_bound_by_construction", Strength.DISQUALIFIED,
          "declares_caller_identity", Strength.DECLARED,
          "registered_shared", Strength.DECLARED);

  private static final Set<String> NOTE_CODES =
      Set.of(
          "handshake_not_reproducible",
          "rotating_secret_env",
          "degrades_when_shared",
          "ledger_unreadable",
          "concurrency_records_unreadable",
          "deferred_answer_changed");

  private static Strength expectedStrength(Evidence e) {
    List<Strength> grounds = new ArrayList<>();
    grounds.add(Strength.UNKNOWN);
    if (e.observations().stream().anyMatch(HazardCode::refutesSharing)) {
      grounds.add(Strength.REFUTED);
    }
    for (Finding f : e.findings()) {
      Strength s = SOURCE_GROUNDS.get(f.code());
      if (s != null) {
        grounds.add(s);
      }
    }
    boolean ran = e.preflight() instanceof PreflightOutcome.Ran;
    if (ran && ((PreflightOutcome.Ran) e.preflight()).divergentFacets().isEmpty()) {
      grounds.add(Strength.MEASURED);
    }
    if (ran || e.handshakeObserved()) {
      grounds.add(Strength.NO_OBJECTION);
    }
    return grounds.stream().min((a, b) -> RANK.indexOf(a) - RANK.indexOf(b)).orElseThrow();
  }

  private static boolean isNote(Finding f) {
    return NOTE_CODES.contains(f.code());
  }

  private static List<Reason> withoutNotes(List<Reason> reasons) {
    return reasons.stream().filter(r -> !NOTE_CODES.contains(r.code().wireName())).collect(Collectors.toList());
  }

  private static void assertSameDecision(Verdict expected, Verdict actual) {
    assertEquals(expected.strength(), actual.strength(), "strength");
    assertEquals(expected.recommendStub(), actual.recommendStub(), "recommendStub");
    assertEquals(expected.recommendShare(), actual.recommendShare(), "recommendShare");
  }

  // ---- the invariants -----------------------------------------------------------------------

  @Test
  void anyObservationRefutes() {
    anyObservationRefutes(Theories.qt(), Assessor::assess);
  }

  static void anyObservationRefutes(QuickTheory qt, Function<Evidence, Verdict> assess) {
    qt.forAll(evidence(), EvidenceGenerators.observed())
        .checkAssert(
            (e, observed) -> {
              Evidence withLedger = copy(e, observed, e.findings(), e.preflight(), e.handshakeObserved());
              Verdict v = assess.apply(withLedger);
              assertEquals(Strength.REFUTED, v.strength());
              assertFalse(v.recommendStub());
              assertFalse(v.recommendShare());
              Set<String> details =
                  v.reasons().stream()
                      .filter(r -> r.code() == ReasonCode.OBSERVED_HAZARD)
                      .map(Reason::detail)
                      .collect(Collectors.toSet());
              assertEquals(observed.stream().map(HazardCode::wireName).collect(Collectors.toSet()), details);
            });
  }

  @Test
  void anObservationThatDoesNotRefuteSharingIsANote() {
    anObservationThatDoesNotRefuteSharingIsANote(Theories.qt(), Assessor::assess);
  }

  static void anObservationThatDoesNotRefuteSharingIsANote(QuickTheory qt, Function<Evidence, Verdict> assess) {
    qt.forAll(evidence(), EvidenceGenerators.observedNotRefuting())
        .checkAssert(
            (e, observed) -> {
              List<HazardCode> more = new ArrayList<>(e.observations());
              more.addAll(observed);
              Verdict before = assess.apply(e);
              Verdict after = assess.apply(copy(e, more, e.findings(), e.preflight(), e.handshakeObserved()));
              assertSameDecision(before, after);
              assertTrue(after.reasons().contains(Reason.of(ReasonCode.DEFERRED_ANSWER_CHANGED)), after.reasons()::toString);
              assertEquals(withoutNotes(before.reasons()), withoutNotes(after.reasons()));
            });
  }

  @Test
  void onlyTheLedgerRefutes() {
    onlyTheLedgerRefutes(Theories.qt(), Assessor::assess);
  }

  static void onlyTheLedgerRefutes(QuickTheory qt, Function<Evidence, Verdict> assess) {
    qt.forAll(evidence())
        .checkAssert(
            e -> {
              Evidence noLedger = copy(e, List.of(), e.findings(), e.preflight(), e.handshakeObserved());
              assertFalse(assess.apply(noLedger).strength() == Strength.REFUTED);
            });
  }

  @Test
  void addingNotesAnywhereChangesNoDecision() {
    addingNotesAnywhereChangesNoDecision(Theories.qt(), Assessor::assess);
  }

  static void addingNotesAnywhereChangesNoDecision(QuickTheory qt, Function<Evidence, Verdict> assess) {
    qt.forAll(evidenceAndWithNotesAdded())
        .checkAssert(
            p -> {
              Verdict before = assess.apply(p._1);
              Verdict after = assess.apply(p._2);
              assertSameDecision(before, after);
              assertEquals(withoutNotes(before.reasons()), withoutNotes(after.reasons()));
            });
  }

  @Test
  void removingNotesChangesNoDecision() {
    removingNotesChangesNoDecision(Theories.qt(), Assessor::assess);
  }

  static void removingNotesChangesNoDecision(QuickTheory qt, Function<Evidence, Verdict> assess) {
    qt.forAll(evidence())
        .checkAssert(
            e -> {
              List<Finding> kept = e.findings().stream().filter(f -> !isNote(f)).collect(Collectors.toList());
              Verdict before = assess.apply(e);
              Verdict after = assess.apply(withFindings(e, kept).withRecords(e.recordsComplete(), List.of()));
              assertSameDecision(before, after);
              assertEquals(withoutNotes(before.reasons()), withoutNotes(after.reasons()));
            });
  }

  @Test
  void moreOrFewerDivergentFacetsChangeNoDecision() {
    moreOrFewerDivergentFacetsChangeNoDecision(Theories.qt(), Assessor::assess);
  }

  static void moreOrFewerDivergentFacetsChangeNoDecision(QuickTheory qt, Function<Evidence, Verdict> assess) {
    qt.forAll(evidence(), EvidenceGenerators.facets(), EvidenceGenerators.facets())
        .checkAssert(
            (e, some, more) -> {
              List<String> all = new ArrayList<>(some);
              all.addAll(more);
              Verdict fewer =
                  assess.apply(
                      copy(e, e.observations(), e.findings(), new PreflightOutcome.Ran(some), e.handshakeObserved()));
              Verdict moreNotes =
                  assess.apply(
                      copy(e, e.observations(), e.findings(), new PreflightOutcome.Ran(all), e.handshakeObserved()));
              assertSameDecision(fewer, moreNotes);
              assertFalse(moreNotes.has(ReasonCode.PREFLIGHT_PASSED), "never beside handshake_not_reproducible");
            });
  }

  @Test
  void aPreflightThatCouldNotRunSaysWhyAndChangesNoDecision() {
    aPreflightThatCouldNotRunSaysWhyAndChangesNoDecision(Theories.qt(), Assessor::assess);
  }

  static void aPreflightThatCouldNotRunSaysWhyAndChangesNoDecision(QuickTheory qt, Function<Evidence, Verdict> assess) {
    qt.forAll(evidence(), EvidenceGenerators.text())
        .checkAssert(
            (e, why) -> {
              Verdict notMeasured =
                  assess.apply(
                      copy(e, e.observations(), e.findings(), PreflightOutcome.NOT_MEASURED, e.handshakeObserved()));
              Verdict notRun =
                  assess.apply(
                      copy(e, e.observations(), e.findings(), new PreflightOutcome.NotRun(why), e.handshakeObserved()));
              assertSameDecision(notMeasured, notRun);
              assertTrue(
                  notRun.reasons().contains(new Reason(ReasonCode.PREFLIGHT_NOT_RUN, why)),
                  () -> "a pre-flight that could not run says why, at " + notRun.strength() + ": " + notRun.reasons());
              assertEquals(
                  without(notMeasured.reasons(), ReasonCode.PREFLIGHT_NOT_RUN),
                  without(notRun.reasons(), ReasonCode.PREFLIGHT_NOT_RUN));
            });
  }

  private static List<Reason> without(List<Reason> reasons, ReasonCode code) {
    return reasons.stream().filter(r -> r.code() != code).collect(Collectors.toList());
  }

  @Test
  void recommendShareIffDeclared_andStubAtDeclaredMeasuredOrNoObjection() {
    recommendShareIffDeclared_andStubAtDeclaredMeasuredOrNoObjection(Theories.qt(), Assessor::assess);
  }

  static void recommendShareIffDeclared_andStubAtDeclaredMeasuredOrNoObjection(
      QuickTheory qt, Function<Evidence, Verdict> assess) {
    Set<Strength> seen = EnumSet.noneOf(Strength.class);
    qt.forAll(evidence())
        .checkAssert(
            e -> {
              Verdict v = assess.apply(e);
              seen.add(v.strength());
              assertEquals(v.strength() == Strength.DECLARED && e.recordsComplete(), v.recommendShare());
              assertEquals(
                  EnumSet.of(Strength.DECLARED, Strength.MEASURED, Strength.NO_OBJECTION).contains(v.strength()),
                  v.recommendStub());
            });
    assertEquals(EnumSet.allOf(Strength.class), seen, "coverage: every strength is generated");
  }

  @Test
  void incompleteRecordsNeverRecommendSharing_andCompleteRecordsChangeNothing() {
    incompleteRecordsNeverRecommendSharing_andCompleteRecordsChangeNothing(Theories.qt(), Assessor::assess);
  }

  static void incompleteRecordsNeverRecommendSharing_andCompleteRecordsChangeNothing(
      QuickTheory qt, Function<Evidence, Verdict> assess) {
    Set<Strength> seenIncomplete = EnumSet.noneOf(Strength.class);
    qt.forAll(evidence())
        .checkAssert(
            e -> {
              Verdict incomplete = assess.apply(e.withRecords(false, e.recordsNotes()));
              Verdict complete = assess.apply(e.withRecords(true, e.recordsNotes()));
              Verdict plain = assess.apply(copy(e, e.observations(), e.findings(), e.preflight(), e.handshakeObserved())
                  .withRecords(true, List.of()));
              seenIncomplete.add(incomplete.strength());

              assertFalse(incomplete.recommendShare(), () -> "records read incompletely, yet sharing: " + incomplete);
              assertEquals(complete.strength(), incomplete.strength(), "the strength is what the evidence says");
              assertEquals(complete.recommendStub(), incomplete.recommendStub(), "recommendStub");
              assertEquals(complete.reasons(), incomplete.reasons(), "the flag adds and removes no reason");

              assertSameDecision(plain, complete);
              assertEquals(plain.reasons(), withoutNotesOf(complete.reasons(), e.recordsNotes()));
              for (Reason note : e.recordsNotes()) {
                assertTrue(complete.reasons().contains(note), () -> note + " missing from " + complete.reasons());
                assertTrue(incomplete.reasons().contains(note), () -> note + " missing from " + incomplete.reasons());
              }
            });
    assertTrue(seenIncomplete.contains(Strength.DECLARED), "coverage: a declaration read from incomplete records");
  }

  private static List<Reason> withoutNotesOf(List<Reason> reasons, List<Reason> notes) {
    return reasons.stream().filter(r -> !notes.contains(r)).collect(Collectors.toList());
  }

  @Test
  void measuredNeverShares() {
    measuredNeverShares(Theories.qt(), Assessor::assess);
  }

  static void measuredNeverShares(QuickTheory qt, Function<Evidence, Verdict> assess) {
    qt.forAll(evidence())
        .checkAssert(
            e -> {
              List<Finding> noDeclarations =
                  e.findings().stream()
                      .filter(f -> SOURCE_GROUNDS.get(f.code()) != Strength.DECLARED)
                      .collect(Collectors.toList());
              Evidence measured =
                  copy(e, e.observations(), noDeclarations, PreflightOutcome.passed(), e.handshakeObserved());
              Verdict v = assess.apply(measured);
              assertFalse(v.recommendShare());
              if (v.strength() == Strength.MEASURED) {
                assertTrue(v.recommendStub());
                assertTrue(v.has(ReasonCode.PREFLIGHT_PASSED));
              }
              assertFalse(assess.apply(e).strength() == Strength.MEASURED && assess.apply(e).recommendShare());
            });
  }

  @Test
  void theStrengthIsTheStrongestGroundPresent() {
    theStrengthIsTheStrongestGroundPresent(Theories.qt(), Assessor::assess);
  }

  static void theStrengthIsTheStrongestGroundPresent(QuickTheory qt, Function<Evidence, Verdict> assess) {
    qt.forAll(evidence())
        .checkAssert(
            e -> {
              Verdict v = assess.apply(e);
              assertEquals(expectedStrength(e), v.strength());
              assertEquals(
                  v.strength(),
                  v.reasons().get(0).code().role().grounds().orElseThrow(),
                  () -> "the first reason grounds the strength: " + v.reasons());
            });
  }

  @Test
  void findingOrderChangesNoDecision() {
    findingOrderChangesNoDecision(Theories.qt(), Assessor::assess);
  }

  static void findingOrderChangesNoDecision(QuickTheory qt, Function<Evidence, Verdict> assess) {
    qt.forAll(evidenceAndReordered())
        .checkAssert(
            p -> {
              Verdict a = assess.apply(p._1);
              Verdict b = assess.apply(p._2);
              assertSameDecision(a, b);
              assertEquals(Set.copyOf(a.reasons()), Set.copyOf(b.reasons()));
            });
  }

  @Test
  void assessIsDeterministicAndLeavesItsInputsUnchanged() {
    assessIsDeterministicAndLeavesItsInputsUnchanged(Theories.qt(), Assessor::assess);
  }

  static void assessIsDeterministicAndLeavesItsInputsUnchanged(QuickTheory qt, Function<Evidence, Verdict> assess) {
    qt.forAll(evidence())
        .checkAssert(
            e -> {
              List<HazardCode> observations = new ArrayList<>(e.observations());
              List<Finding> findings = new ArrayList<>(e.findings());
              PreflightOutcome preflight =
                  e.preflight() instanceof PreflightOutcome.Ran
                      ? new PreflightOutcome.Ran(new ArrayList<>(((PreflightOutcome.Ran) e.preflight()).divergentFacets()))
                      : e.preflight();
              List<Reason> notes = new ArrayList<>(e.recordsNotes());
              Evidence input =
                  new Evidence(observations, findings, preflight, e.handshakeObserved(), e.recordsComplete(), notes);
              Evidence snapshot =
                  new Evidence(
                      List.copyOf(observations), List.copyOf(findings), preflight, e.handshakeObserved(),
                      e.recordsComplete(), List.copyOf(notes));
              List<Reason> notesBefore = List.copyOf(notes);
              List<HazardCode> observationsBefore = List.copyOf(observations);
              List<Finding> findingsBefore = List.copyOf(findings);

              Verdict first = assess.apply(input);
              Verdict second = assess.apply(input);
              Verdict fromCopy = assess.apply(snapshot);

              assertEquals(first, second);
              assertEquals(first, fromCopy);
              assertNotSame(first, second);
              assertEquals(snapshot, input);
              assertEquals(observationsBefore, observations);
              assertEquals(findingsBefore, findings);
              assertEquals(notesBefore, notes);
              assertEquals(e, input);
            });
  }

  @Test
  void anUnknownCodeFromASourceIsRefusedNamingTheSource() {
    anUnknownCodeFromASourceIsRefusedNamingTheSource(Theories.qt(), Assessor::assess);
  }

  static void anUnknownCodeFromASourceIsRefusedNamingTheSource(QuickTheory qt, Function<Evidence, Verdict> assess) {
    qt.forAll(anUnknownCodeAmongEvidence())
        .checkAssert(
            p -> {
              String source = p._1.source();
              String code = p._1.code();
              EvidenceRejectedException ex = assertThrows(EvidenceRejectedException.class, () -> assess.apply(p._2));
              assertEquals(source, ex.source());
              assertEquals(code, ex.code());
              assertTrue(
                  ex.getMessage().startsWith("evidence source '" + LogSafe.escape(source) + "'"), ex::getMessage);
              assertTrue(
                  ex.getMessage().contains("unknown reason code '" + LogSafe.escape(code) + "'"), ex::getMessage);
              assertFalse(ex.getMessage().contains("\n"), "one log line");
            });
  }

  @Test
  void aCoreOnlyCodeFromASourceIsRefusedNamingTheSource() {
    aCoreOnlyCodeFromASourceIsRefusedNamingTheSource(Theories.qt(), Assessor::assess);
  }

  static void aCoreOnlyCodeFromASourceIsRefusedNamingTheSource(QuickTheory qt, Function<Evidence, Verdict> assess) {
    qt.forAll(evidence(), EvidenceGenerators.sourceName(), coreCode())
        .checkAssert(
            (e, source, code) -> {
              List<Finding> findings = new ArrayList<>(e.findings());
              findings.add(Finding.of(source, code, "forged"));
              EvidenceRejectedException ex =
                  assertThrows(EvidenceRejectedException.class, () -> assess.apply(withFindings(e, findings)));
              assertEquals(source, ex.source());
              assertTrue(
                  ex.getMessage().startsWith("evidence source '" + LogSafe.escape(source) + "'"), ex::getMessage);
            });
  }
}
