package dev.cotenant.api;

import static dev.cotenant.api.EvidenceGenerators.copy;
import static dev.cotenant.api.EvidenceGenerators.withFindings;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.quicktheories.QuickTheory;

/**
 * Every property fails on a deliberately broken implementation, so a green property run means
 * something. Each test runs one property's body, unchanged and over as many examples as its own
 * test, against a function that breaks the invariant the property guards, and expects
 * QuickTheories to report a falsifying example. A property that was removed, made vacuous, or
 * fed generators that never reach the broken case fails here.
 */
class PropertiesBiteTest {

  /** Shrink cycles per bite: the failure is what matters here, not its smallest example. */
  private static final int SHRINK_CYCLES = 200;

  /**
   * The theory a bite runs: as many examples as the property's own test, so the broken case is
   * shown to be reached within a real run, and a short shrink.
   */
  private static QuickTheory qt() {
    return qt(Theories.EXAMPLES);
  }

  private static QuickTheory qt(int examples) {
    return Theories.qt(examples).withShrinkCycles(SHRINK_CYCLES);
  }

  /** Fails unless {@code property} is falsified and QuickTheories reports a falsifying example. */
  private static void assertFalsified(Executable property) {
    AssertionError failure =
        assertThrows(AssertionError.class, property, "the property held for a broken implementation");
    String report = String.valueOf(failure.getMessage());
    assertTrue(report.startsWith("Property falsified after "), report);
    assertTrue(report.contains("Smallest found falsifying value(s) :-"), report);
    assertTrue(report.contains("Seed was "), report);
  }

  private static boolean hasRole(Finding f, ReasonRole role) {
    return ReasonCode.fromWire(f.code()).map(c -> c.role() == role).orElse(false);
  }

  private static boolean grounds(Finding f) {
    return ReasonCode.fromWire(f.code()).flatMap(c -> c.role().grounds()).isPresent();
  }

  private static Evidence keepingFindings(Evidence e, Predicate<Finding> keep) {
    return withFindings(e, e.findings().stream().filter(keep).collect(Collectors.toList()));
  }

  private static Verdict withRecommendations(Verdict v, boolean stub, boolean share) {
    return new Verdict(v.strength(), v.reasons(), stub, share);
  }

  // ---- broken assessors ---------------------------------------------------------------------

  /** Never looks at the ledger. */
  private static Verdict ignoresObservations(Evidence e) {
    return Assessor.assess(copy(e, List.of(), e.findings(), e.preflight(), e.handshakeObserved()));
  }

  /** Refutes on a disqualifying fact, as if it were an observation. */
  private static Verdict refutesOnADisqualifyingFact(Evidence e) {
    Verdict v = Assessor.assess(e);
    return v.strength() == Strength.DISQUALIFIED ? new Verdict(Strength.REFUTED, v.reasons(), false, false) : v;
  }

  /** Lets any note demote a declaration to {@code no_objection}: a note that gates sharing. */
  private static Verdict aNoteDemotesADeclaration(Evidence e) {
    Verdict v = Assessor.assess(e);
    boolean noted = e.findings().stream().anyMatch(f -> hasRole(f, ReasonRole.NOTE));
    return noted && v.strength() == Strength.DECLARED
        ? new Verdict(Strength.NO_OBJECTION, v.reasons(), true, false)
        : v;
  }

  /** Counts a pre-flight that diverged on a single facet as passed. */
  private static Verdict passesAPreflightWithOneDivergentFacet(Evidence e) {
    boolean oneFacet =
        e.preflight() instanceof PreflightOutcome.Ran
            && ((PreflightOutcome.Ran) e.preflight()).divergentFacets().size() == 1;
    return Assessor.assess(
        oneFacet ? copy(e, e.observations(), e.findings(), PreflightOutcome.passed(), e.handshakeObserved()) : e);
  }

  /** Counts a pre-flight that could not run as a seen handshake. */
  private static Verdict countsAPreflightThatCouldNotRunAsAHandshake(Evidence e) {
    return Assessor.assess(
        e.preflight() instanceof PreflightOutcome.NotRun
            ? copy(e, e.observations(), e.findings(), e.preflight(), true)
            : e);
  }

  /** Says why a pre-flight could not run only beside a declaration (the rule before it was said everywhere). */
  private static Verdict saysWhyAPreflightCouldNotRunOnlyBesideADeclaration(Evidence e) {
    Verdict v = Assessor.assess(e);
    if (v.strength() == Strength.DECLARED) {
      return v;
    }
    List<Reason> kept =
        v.reasons().stream().filter(r -> r.code() != ReasonCode.PREFLIGHT_NOT_RUN).collect(Collectors.toList());
    return new Verdict(v.strength(), kept, v.recommendStub(), v.recommendShare());
  }

  /** Recommends sharing at {@code declared} even while the records could not be read completely. */
  private static Verdict ignoresIncompleteRecords(Evidence e) {
    return Assessor.assess(e.withRecords(true, e.recordsNotes()));
  }

  /** Demotes a declaration to {@code unknown} while the records could not be read completely. */
  private static Verdict demotesADeclarationWhenRecordsAreIncomplete(Evidence e) {
    Verdict v = Assessor.assess(e);
    return !e.recordsComplete() && v.strength() == Strength.DECLARED
        ? new Verdict(Strength.UNKNOWN, v.reasons(), false, false)
        : v;
  }

  /** Lets a records note, rather than the completeness flag, withhold sharing. */
  private static Verdict aRecordsNoteWithholdsSharing(Evidence e) {
    Verdict v = Assessor.assess(e);
    return e.recordsNotes().isEmpty() ? v : withRecommendations(v, v.recommendStub(), false);
  }

  /** Withholds the stub at {@code no_objection}. */
  private static Verdict withholdsTheStubAtNoObjection(Evidence e) {
    Verdict v = Assessor.assess(e);
    return v.strength() == Strength.NO_OBJECTION ? withRecommendations(v, false, v.recommendShare()) : v;
  }

  /**
   * Concludes {@code no_objection} where it should say {@code unknown}, with recommendations
   * consistent with that, so only the coverage check can notice.
   */
  private static Verdict neverConcludesUnknown(Evidence e) {
    Verdict v = Assessor.assess(e);
    return v.strength() == Strength.UNKNOWN
        ? new Verdict(Strength.NO_OBJECTION, List.of(Reason.of(ReasonCode.NO_OBJECTION_FOUND)), true, false)
        : v;
  }

  /** Recommends sharing at {@code measured}. */
  private static Verdict recommendsSharingAtMeasured(Evidence e) {
    Verdict v = Assessor.assess(e);
    return v.strength() == Strength.MEASURED ? withRecommendations(v, true, true) : v;
  }

  /** Ranks a declaration above a disqualifying fact. */
  private static Verdict aDeclarationOutranksADisqualifyingFact(Evidence e) {
    boolean declared = e.findings().stream().anyMatch(f -> hasRole(f, ReasonRole.DECLARATION));
    return Assessor.assess(
        e.observations().isEmpty() && declared
            ? keepingFindings(e, f -> !hasRole(f, ReasonRole.DISQUALIFYING_FACT))
            : e);
  }

  /** Weighs only the first finding that grounds a strength, as if it stopped looking there. */
  private static Verdict weighsOnlyTheFirstGroundingFinding(Evidence e) {
    List<Finding> kept = new ArrayList<>();
    boolean grounded = false;
    for (Finding f : e.findings()) {
      if (!grounded || !grounds(f)) {
        kept.add(f);
      }
      grounded |= grounds(f);
    }
    return Assessor.assess(withFindings(e, kept));
  }

  /** An assessor with hidden state: every other call flips the stub recommendation. */
  private static Function<Evidence, Verdict> answersDifferentlyEveryOtherCall() {
    AtomicInteger calls = new AtomicInteger();
    return e -> {
      Verdict v = Assessor.assess(e);
      return calls.getAndIncrement() % 2 == 0 ? v : withRecommendations(v, !v.recommendStub(), v.recommendShare());
    };
  }

  /** An assessor that remembers its verdicts and hands out the same instance for equal evidence. */
  private static Function<Evidence, Verdict> handsOutOneVerdictInstancePerEvidence() {
    Map<Evidence, Verdict> remembered = new HashMap<>();
    return e -> remembered.computeIfAbsent(e, Assessor::assess);
  }

  /** Drops findings whose code it does not know instead of refusing them. */
  private static Verdict skipsUnknownCodes(Evidence e) {
    return Assessor.assess(keepingFindings(e, f -> ReasonCode.fromWire(f.code()).isPresent()));
  }

  /** Refuses an unknown code but names the source verbatim, control characters and all. */
  private static Verdict namesTheSourceUnescaped(Evidence e) {
    for (Finding f : e.findings()) {
      if (ReasonCode.fromWire(f.code()).isEmpty()) {
        throw new EvidenceRejectedException(
            f.source(),
            f.code(),
            "evidence source '"
                + f.source()
                + "' contributed unknown reason code '"
                + LogSafe.escape(f.code())
                + "'; the vocabulary is closed: "
                + ReasonCode.allWireNames());
      }
    }
    return Assessor.assess(e);
  }

  /** Drops findings with a code only the core derives instead of refusing them. */
  private static Verdict admitsCoreOnlyCodes(Evidence e) {
    return Assessor.assess(
        keepingFindings(
            e, f -> ReasonCode.fromWire(f.code()).map(c -> c.origin() != ReasonCode.Origin.CORE).orElse(true)));
  }

  /** Emits the notes before the supporting reasons; both come last. */
  private static Verdict putsNotesBeforeSupportingReasons(Evidence e) {
    Verdict v = Assessor.assess(e);
    List<Reason> reasons = new ArrayList<>();
    List<Reason> supporting = new ArrayList<>();
    for (Reason r : v.reasons()) {
      (r.code().role() == ReasonRole.SUPPORTING ? supporting : reasons).add(r);
    }
    reasons.addAll(supporting);
    return new Verdict(v.strength(), reasons, v.recommendStub(), v.recommendShare());
  }

  /** Lists a finding's reason once for every copy of the finding instead of once. */
  private static Verdict keepsDuplicatedReasons(Evidence e) {
    Verdict v = Assessor.assess(e);
    List<Reason> reasons = new ArrayList<>();
    for (Reason r : v.reasons()) {
      long copies =
          e.findings().stream()
              .filter(f -> f.code().equals(r.code().wireName()) && f.detail().equals(r.detail()))
              .count();
      for (long i = 0; i < Math.max(1, copies); i++) {
        reasons.add(r);
      }
    }
    return new Verdict(v.strength(), reasons, v.recommendStub(), v.recommendShare());
  }

  /** Refuses the last offending finding instead of the first. */
  private static Verdict refusesTheLastBadFinding(Evidence e) {
    List<Finding> reversed = new ArrayList<>(e.findings());
    Collections.reverse(reversed);
    return Assessor.assess(withFindings(e, reversed));
  }

  // ---- AssessorPropertyTest -----------------------------------------------------------------

  @Test
  void anyObservationRefutes_failsOnAnAssessorThatIgnoresObservations() {
    assertFalsified(() -> AssessorPropertyTest.anyObservationRefutes(qt(), PropertiesBiteTest::ignoresObservations));
  }

  @Test
  void anObservationThatDoesNotRefuteSharingIsANote_failsOnAnAssessorThatRefutesOnEveryObservation() {
    assertFalsified(() -> AssessorPropertyTest.anObservationThatDoesNotRefuteSharingIsANote(qt(),
        PropertiesBiteTest::refutesOnEveryObservation));
  }

  /** Refutes on every ledger code, as the core did before a code could be about deferral only. */
  private static Verdict refutesOnEveryObservation(Evidence e) {
    Verdict v = Assessor.assess(e);
    if (e.observations().isEmpty() || v.strength() == Strength.REFUTED) {
      return v;
    }
    return new Verdict(Strength.REFUTED, v.reasons(), false, false);
  }

  @Test
  void onlyTheLedgerRefutes_failsOnAnAssessorThatRefutesOnADisqualifyingFact() {
    assertFalsified(
        () -> AssessorPropertyTest.onlyTheLedgerRefutes(qt(), PropertiesBiteTest::refutesOnADisqualifyingFact));
  }

  @Test
  void addingNotesAnywhereChangesNoDecision_failsOnAnAssessorWhereANoteDemotesADeclaration() {
    assertFalsified(
        () ->
            AssessorPropertyTest.addingNotesAnywhereChangesNoDecision(
                qt(), PropertiesBiteTest::aNoteDemotesADeclaration));
  }

  @Test
  void removingNotesChangesNoDecision_failsOnAnAssessorWhereANoteDemotesADeclaration() {
    assertFalsified(
        () -> AssessorPropertyTest.removingNotesChangesNoDecision(qt(), PropertiesBiteTest::aNoteDemotesADeclaration));
  }

  @Test
  void moreOrFewerDivergentFacetsChangeNoDecision_failsOnAnAssessorThatPassesAPreflightWithOneDivergentFacet() {
    assertFalsified(
        () ->
            AssessorPropertyTest.moreOrFewerDivergentFacetsChangeNoDecision(
                qt(), PropertiesBiteTest::passesAPreflightWithOneDivergentFacet));
  }

  @Test
  void aPreflightThatCouldNotRun_failsOnAnAssessorThatCountsItAsAHandshake() {
    assertFalsified(
        () ->
            AssessorPropertyTest.aPreflightThatCouldNotRunSaysWhyAndChangesNoDecision(
                qt(), PropertiesBiteTest::countsAPreflightThatCouldNotRunAsAHandshake));
  }

  @Test
  void aPreflightThatCouldNotRun_failsOnAnAssessorThatSaysWhyOnlyBesideADeclaration() {
    assertFalsified(
        () ->
            AssessorPropertyTest.aPreflightThatCouldNotRunSaysWhyAndChangesNoDecision(
                qt(), PropertiesBiteTest::saysWhyAPreflightCouldNotRunOnlyBesideADeclaration));
  }

  @Test
  void recommendShareIffDeclared_failsOnAnAssessorThatWithholdsTheStubAtNoObjection() {
    assertFalsified(
        () ->
            AssessorPropertyTest.recommendShareIffDeclared_andStubAtDeclaredMeasuredOrNoObjection(
                qt(), PropertiesBiteTest::withholdsTheStubAtNoObjection));
  }

  @Test
  void recommendShareIffDeclared_failsItsCoverageCheckOnAnAssessorThatNeverConcludesUnknown() {
    AssertionError failure =
        assertThrows(
            AssertionError.class,
            () ->
                AssessorPropertyTest.recommendShareIffDeclared_andStubAtDeclaredMeasuredOrNoObjection(
                    qt(), PropertiesBiteTest::neverConcludesUnknown));
    assertTrue(failure.getMessage().contains("coverage: every strength is generated"), failure::getMessage);
    assertFalse(failure.getMessage().contains("Property falsified"), failure::getMessage);
  }

  @Test
  void incompleteRecordsNeverRecommendSharing_failsOnAnAssessorThatIgnoresTheFlag() {
    assertFalsified(
        () ->
            AssessorPropertyTest.incompleteRecordsNeverRecommendSharing_andCompleteRecordsChangeNothing(
                qt(), PropertiesBiteTest::ignoresIncompleteRecords));
  }

  @Test
  void incompleteRecordsNeverRecommendSharing_failsOnAnAssessorThatDemotesTheStrength() {
    assertFalsified(
        () ->
            AssessorPropertyTest.incompleteRecordsNeverRecommendSharing_andCompleteRecordsChangeNothing(
                qt(), PropertiesBiteTest::demotesADeclarationWhenRecordsAreIncomplete));
  }

  @Test
  void recommendShareIffDeclared_failsOnAnAssessorThatIgnoresIncompleteRecords() {
    assertFalsified(
        () ->
            AssessorPropertyTest.recommendShareIffDeclared_andStubAtDeclaredMeasuredOrNoObjection(
                qt(), PropertiesBiteTest::ignoresIncompleteRecords));
  }

  @Test
  void removingNotesChangesNoDecision_failsOnAnAssessorWhereARecordsNoteWithholdsSharing() {
    assertFalsified(
        () -> AssessorPropertyTest.removingNotesChangesNoDecision(qt(), PropertiesBiteTest::aRecordsNoteWithholdsSharing));
  }

  @Test
  void measuredNeverShares_failsOnAnAssessorThatRecommendsSharingAtMeasured() {
    assertFalsified(
        () -> AssessorPropertyTest.measuredNeverShares(qt(), PropertiesBiteTest::recommendsSharingAtMeasured));
  }

  @Test
  void theStrengthIsTheStrongestGroundPresent_failsOnAnAssessorWhereADeclarationOutranksADisqualifyingFact() {
    assertFalsified(
        () ->
            AssessorPropertyTest.theStrengthIsTheStrongestGroundPresent(
                qt(), PropertiesBiteTest::aDeclarationOutranksADisqualifyingFact));
  }

  @Test
  void findingOrderChangesNoDecision_failsOnAnAssessorThatWeighsOnlyTheFirstGroundingFinding() {
    assertFalsified(
        () ->
            AssessorPropertyTest.findingOrderChangesNoDecision(
                qt(), PropertiesBiteTest::weighsOnlyTheFirstGroundingFinding));
  }

  @Test
  void assessIsDeterministic_failsOnAnAssessorWhoseAnswerDependsOnHowOftenItWasCalled() {
    assertFalsified(
        () ->
            AssessorPropertyTest.assessIsDeterministicAndLeavesItsInputsUnchanged(
                qt(), answersDifferentlyEveryOtherCall()));
  }

  @Test
  void assessIsDeterministic_failsOnAnAssessorThatHandsOutOneVerdictInstancePerEvidence() {
    assertFalsified(
        () ->
            AssessorPropertyTest.assessIsDeterministicAndLeavesItsInputsUnchanged(
                qt(), handsOutOneVerdictInstancePerEvidence()));
  }

  @Test
  void anUnknownCodeIsRefused_failsOnAnAssessorThatSkipsUnknownCodes() {
    assertFalsified(
        () ->
            AssessorPropertyTest.anUnknownCodeFromASourceIsRefusedNamingTheSource(
                qt(), PropertiesBiteTest::skipsUnknownCodes));
  }

  @Test
  void anUnknownCodeIsRefused_failsOnAnAssessorThatNamesTheSourceUnescaped() {
    assertFalsified(
        () ->
            AssessorPropertyTest.anUnknownCodeFromASourceIsRefusedNamingTheSource(
                qt(), PropertiesBiteTest::namesTheSourceUnescaped));
  }

  @Test
  void aCoreOnlyCodeIsRefused_failsOnAnAssessorThatAdmitsCoreOnlyCodes() {
    assertFalsified(
        () ->
            AssessorPropertyTest.aCoreOnlyCodeFromASourceIsRefusedNamingTheSource(
                qt(), PropertiesBiteTest::admitsCoreOnlyCodes));
  }

  // ---- AssessorReferencePropertyTest --------------------------------------------------------

  @Test
  void sameVerdictAsTheReference_failsOnAnAssessorThatPutsNotesBeforeSupportingReasons() {
    assertFalsified(
        () ->
            AssessorReferencePropertyTest.sameVerdictAsTheReference(
                qt(), PropertiesBiteTest::putsNotesBeforeSupportingReasons));
  }

  @Test
  void sameVerdictAsTheReference_withDuplicatedEvidence_failsOnAnAssessorThatKeepsDuplicatedReasons() {
    assertFalsified(
        () ->
            AssessorReferencePropertyTest.sameVerdictAsTheReference_withDuplicatedEvidence(
                qt(), PropertiesBiteTest::keepsDuplicatedReasons));
  }

  @Test
  void sameRefusalAsTheReference_failsOnAnAssessorThatRefusesTheLastBadFindingInsteadOfTheFirst() {
    assertFalsified(
        () ->
            AssessorReferencePropertyTest.sameRefusalAsTheReference(
                qt(), PropertiesBiteTest::refusesTheLastBadFinding));
  }

  // ---- LogSafePropertyTest ------------------------------------------------------------------

  @Test
  void outputIsOneLineAndBounded_failsOnAnOffByOneBound() {
    assertFalsified(
        () ->
            LogSafePropertyTest.outputIsOneLineBoundedAndFreeOfControlCharacters(
                qt(), (text, max) -> LogSafe.escape(text, max + 1)));
  }

  @Test
  void uncutOutputDecodesBackToTheInput_failsOnEscapingThatCutsAtTheDefaultBound() {
    assertFalsified(() -> LogSafePropertyTest.uncutOutputDecodesBackToTheInput(qt(), LogSafe::escape));
  }

  // ---- ExecutionIdentityPropertyTest --------------------------------------------------------

  @Test
  void everyCacheKeyRoundTrips_failsOnAParserThatDropsTrailingEmptyFields() {
    assertFalsified(
        () ->
            ExecutionIdentityPropertyTest.everyCacheKeyRoundTrips(
                qt(),
                id -> {
                  String[] f = id.cacheKey().split(String.valueOf('\0'));
                  if (f.length != 5) {
                    throw new IllegalArgumentException("an identity key has 5 fields; this one has " + f.length);
                  }
                  return new ExecutionIdentity(f[0], f[1], f[2], f[3], f[4]);
                }));
  }

  @Test
  void aSeparatorInsideAFieldNeverMergesTwoIdentities_failsOnAnUnescapedJoin() {
    assertFalsified(
        () ->
            ExecutionIdentityPropertyTest.aSeparatorInsideAFieldNeverMergesTwoIdentities(
                qt(),
                id -> String.join("\0", id.serverName(), id.commandArgsHash(), id.envHash(), id.binaryVersion())));
  }

  @Test
  void envInsertionOrderNeverMatters_failsOnAHashOfTheEntriesInIterationOrder() {
    assertFalsified(
        () ->
            ExecutionIdentityPropertyTest.envInsertionOrderNeverMatters(
                qt(),
                env ->
                    Integer.toHexString(
                        env.entrySet().stream().map(String::valueOf).collect(Collectors.joining("\0")).hashCode())));
  }

  // ---- HandshakeComparatorTest --------------------------------------------------------------

  @Test
  void anyPermutationOfToolsReplaysIdentically_failsOnAComparisonOfTheSnapshotsAsTheyAre() {
    assertFalsified(
        () ->
            HandshakeComparatorTest.anyPermutationOfToolsReplaysIdentically(
                qt(HandshakeComparatorTest.EXAMPLES),
                (a, b) -> a.equals(b) ? List.of() : List.of(HandshakeComparator.TOOLS)));
  }

  @Test
  void everyFacetIsSymmetric_failsOnAComparisonThatIgnoresPromptsTheSecondSnapshotLacks() {
    assertFalsified(
        () ->
            HandshakeComparatorTest.everyFacetIsSymmetric(
                qt(HandshakeComparatorTest.EXAMPLES),
                (a, b) -> {
                  Map<String, Object> first = new LinkedHashMap<>(a);
                  if (!b.containsKey("prompts")) {
                    first.remove("prompts");
                  }
                  return HandshakeComparator.compare(first, b);
                }));
  }

  @Test
  void anyPermutationOfToolsReplaysIdentically_failsOnAComparisonThatOnlyForgivesAReversal() {
    assertFalsified(
        () ->
            HandshakeComparatorTest.anyPermutationOfToolsReplaysIdentically(
                qt(HandshakeComparatorTest.EXAMPLES),
                (a, b) -> {
                  List<Object> reversed = new ArrayList<>((List<?>) a.get("tools"));
                  Collections.reverse(reversed);
                  return a.get("tools").equals(b.get("tools")) || reversed.equals(b.get("tools"))
                      ? List.of()
                      : List.of(HandshakeComparator.TOOLS);
                }));
  }

  @Test
  void theComparatorIsSymmetric_failsOnAComparisonThatIgnoresCapabilitiesOnlyTheSecondSnapshotHas() {
    assertFalsified(
        () ->
            HandshakeComparatorTest.theComparatorIsSymmetric(
                qt(HandshakeComparatorTest.EXAMPLES),
                (a, b) -> {
                  Map<?, ?> firstCapabilities = (Map<?, ?>) a.get("capabilities");
                  Map<String, Object> secondCapabilities = new HashMap<>();
                  for (Map.Entry<?, ?> c : ((Map<?, ?>) b.get("capabilities")).entrySet()) {
                    if (firstCapabilities.containsKey(c.getKey())) {
                      secondCapabilities.put((String) c.getKey(), c.getValue());
                    }
                  }
                  Map<String, Object> second = new LinkedHashMap<>(b);
                  second.put("capabilities", secondCapabilities);
                  return HandshakeComparator.compare(a, second);
                }));
  }
}
