package dev.cotenant.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.Collectors;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.Size;
import net.jqwik.api.statistics.Statistics;

/** The invariants of DESIGN §2 as properties over generated evidence. */
class AssessorPropertyTest {

  @Provide
  Arbitrary<Evidence> evidence() {
    return EvidenceArbitraries.evidence();
  }

  @Provide
  Arbitrary<List<Finding>> notes() {
    return EvidenceArbitraries.noteFinding().list().ofMinSize(1).ofMaxSize(4);
  }

  @Provide
  Arbitrary<List<String>> facets() {
    return EvidenceArbitraries.facet().list().ofMinSize(1).ofMaxSize(3);
  }

  @Provide
  Arbitrary<String> unknownCode() {
    return EvidenceArbitraries.unknownCode();
  }

  @Provide
  Arbitrary<String> sourceName() {
    return EvidenceArbitraries.sourceName();
  }

  @Provide
  Arbitrary<ReasonCode> coreCode() {
    return Arbitraries.of(EvidenceArbitraries.CORE_CODES);
  }

  // ---- an independent reading of the strength table ------------------------------------------

  /** DESIGN §2's strength table, strongest first, written out here rather than read from the enum. */
  private static final List<Strength> RANK =
      List.of(
          Strength.REFUTED,
          Strength.DISQUALIFIED,
          Strength.DECLARED,
          Strength.MEASURED,
          Strength.NO_OBJECTION,
          Strength.UNKNOWN);

  /** The source codes that ground a strength, per DESIGN §2's reason table. */
  private static final Map<String, Strength> SOURCE_GROUNDS =
      Map.of(
          "not_stdio", Strength.DISQUALIFIED,
          "session_bound_by_construction", Strength.DISQUALIFIED,
          "declares_caller_identity", Strength.DECLARED,
          "registered_shared", Strength.DECLARED);

  private static final Set<String> NOTE_CODES =
      Set.of("handshake_not_reproducible", "rotating_secret_env", "degrades_when_shared");

  private static Strength expectedStrength(Evidence e) {
    List<Strength> grounds = new ArrayList<>();
    grounds.add(Strength.UNKNOWN);
    if (!e.observations().isEmpty()) {
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

  private static Evidence withFindings(Evidence e, List<Finding> findings) {
    return new Evidence(e.observations(), findings, e.preflight(), e.handshakeObserved());
  }

  private static void assertSameDecision(Verdict expected, Verdict actual) {
    assertEquals(expected.strength(), actual.strength(), "strength");
    assertEquals(expected.recommendStub(), actual.recommendStub(), "recommendStub");
    assertEquals(expected.recommendShare(), actual.recommendShare(), "recommendShare");
  }

  // ---- the invariants -----------------------------------------------------------------------

  @Property
  void anyObservationRefutes(
      @ForAll("evidence") Evidence e, @ForAll @Size(min = 1, max = 3) List<HazardCode> observed) {
    Evidence withLedger = new Evidence(observed, e.findings(), e.preflight(), e.handshakeObserved());
    Verdict v = Assessor.assess(withLedger);
    assertEquals(Strength.REFUTED, v.strength());
    assertFalse(v.recommendStub());
    assertFalse(v.recommendShare());
    Set<String> details =
        v.reasons().stream()
            .filter(r -> r.code() == ReasonCode.OBSERVED_HAZARD)
            .map(Reason::detail)
            .collect(Collectors.toSet());
    assertEquals(observed.stream().map(HazardCode::wireName).collect(Collectors.toSet()), details);
  }

  @Property
  void onlyTheLedgerRefutes(@ForAll("evidence") Evidence e) {
    Evidence noLedger = new Evidence(List.of(), e.findings(), e.preflight(), e.handshakeObserved());
    assertFalse(Assessor.assess(noLedger).strength() == Strength.REFUTED);
  }

  @Property
  void addingNotesAnywhereChangesNoDecision(
      @ForAll("evidence") Evidence e, @ForAll("notes") List<Finding> notes, @ForAll long seed) {
    List<Finding> mixed = new ArrayList<>(e.findings());
    Random random = new Random(seed);
    for (Finding n : notes) {
      mixed.add(random.nextInt(mixed.size() + 1), n);
    }
    Verdict before = Assessor.assess(e);
    Verdict after = Assessor.assess(withFindings(e, mixed));
    assertSameDecision(before, after);
    assertEquals(withoutNotes(before.reasons()), withoutNotes(after.reasons()));
  }

  @Property
  void removingNotesChangesNoDecision(@ForAll("evidence") Evidence e) {
    List<Finding> kept = e.findings().stream().filter(f -> !isNote(f)).collect(Collectors.toList());
    Verdict before = Assessor.assess(e);
    Verdict after = Assessor.assess(withFindings(e, kept));
    assertSameDecision(before, after);
    assertEquals(withoutNotes(before.reasons()), withoutNotes(after.reasons()));
  }

  @Property
  void moreOrFewerDivergentFacetsChangeNoDecision(
      @ForAll("evidence") Evidence e, @ForAll("facets") List<String> some, @ForAll("facets") List<String> more) {
    List<String> all = new ArrayList<>(some);
    all.addAll(more);
    Verdict fewer =
        Assessor.assess(new Evidence(e.observations(), e.findings(), new PreflightOutcome.Ran(some), e.handshakeObserved()));
    Verdict moreNotes =
        Assessor.assess(new Evidence(e.observations(), e.findings(), new PreflightOutcome.Ran(all), e.handshakeObserved()));
    assertSameDecision(fewer, moreNotes);
    assertFalse(moreNotes.has(ReasonCode.PREFLIGHT_PASSED), "never beside handshake_not_reproducible");
  }

  @Property
  void recommendShareIffDeclared_andStubAtDeclaredMeasuredOrNoObjection(@ForAll("evidence") Evidence e) {
    Verdict v = Assessor.assess(e);
    Statistics.label("strength").collect(v.strength());
    Statistics.label("strength")
        .coverage(
            c -> {
              for (Strength s : Strength.values()) {
                c.check(s).count((Integer n) -> n > 0);
              }
            });
    assertEquals(v.strength() == Strength.DECLARED, v.recommendShare());
    assertEquals(
        EnumSet.of(Strength.DECLARED, Strength.MEASURED, Strength.NO_OBJECTION).contains(v.strength()),
        v.recommendStub());
  }

  @Property
  void measuredNeverShares(@ForAll("evidence") Evidence e) {
    List<Finding> noDeclarations =
        e.findings().stream().filter(f -> SOURCE_GROUNDS.get(f.code()) != Strength.DECLARED).collect(Collectors.toList());
    Evidence measured = new Evidence(e.observations(), noDeclarations, PreflightOutcome.passed(), e.handshakeObserved());
    Verdict v = Assessor.assess(measured);
    assertFalse(v.recommendShare());
    if (v.strength() == Strength.MEASURED) {
      assertTrue(v.recommendStub());
      assertTrue(v.has(ReasonCode.PREFLIGHT_PASSED));
    }
    assertFalse(Assessor.assess(e).strength() == Strength.MEASURED && Assessor.assess(e).recommendShare());
  }

  @Property
  void theStrengthIsTheStrongestGroundPresent(@ForAll("evidence") Evidence e) {
    Verdict v = Assessor.assess(e);
    assertEquals(expectedStrength(e), v.strength());
    assertEquals(
        v.strength(),
        v.reasons().get(0).code().role().grounds().orElseThrow(),
        () -> "the first reason grounds the strength: " + v.reasons());
  }

  @Property
  void findingOrderChangesNoDecision(@ForAll("evidence") Evidence e, @ForAll long seed) {
    List<Finding> shuffled = new ArrayList<>(e.findings());
    Collections.shuffle(shuffled, new Random(seed));
    Verdict a = Assessor.assess(e);
    Verdict b = Assessor.assess(withFindings(e, shuffled));
    assertSameDecision(a, b);
    assertEquals(Set.copyOf(a.reasons()), Set.copyOf(b.reasons()));
  }

  @Property
  void assessIsDeterministicAndLeavesItsInputsUnchanged(@ForAll("evidence") Evidence e) {
    List<HazardCode> observations = new ArrayList<>(e.observations());
    List<Finding> findings = new ArrayList<>(e.findings());
    PreflightOutcome preflight =
        e.preflight() instanceof PreflightOutcome.Ran
            ? new PreflightOutcome.Ran(new ArrayList<>(((PreflightOutcome.Ran) e.preflight()).divergentFacets()))
            : e.preflight();
    Evidence input = new Evidence(observations, findings, preflight, e.handshakeObserved());
    Evidence snapshot =
        new Evidence(List.copyOf(observations), List.copyOf(findings), preflight, e.handshakeObserved());
    List<HazardCode> observationsBefore = List.copyOf(observations);
    List<Finding> findingsBefore = List.copyOf(findings);

    Verdict first = Assessor.assess(input);
    Verdict second = Assessor.assess(input);
    Verdict fromCopy = Assessor.assess(snapshot);

    assertEquals(first, second);
    assertEquals(first, fromCopy);
    assertNotSame(first, second);
    assertEquals(snapshot, input);
    assertEquals(observationsBefore, observations);
    assertEquals(findingsBefore, findings);
    assertEquals(e, input);
  }

  @Property
  void anUnknownCodeFromASourceIsRefusedNamingTheSource(
      @ForAll("evidence") Evidence e,
      @ForAll("sourceName") String source,
      @ForAll("unknownCode") String code,
      @ForAll long seed) {
    List<Finding> findings = new ArrayList<>(e.findings());
    findings.add(new Random(seed).nextInt(findings.size() + 1), new Finding(source, code, ""));
    EvidenceRejectedException ex =
        assertThrows(EvidenceRejectedException.class, () -> Assessor.assess(withFindings(e, findings)));
    assertEquals(source, ex.source());
    assertEquals(code, ex.code());
    assertTrue(
        ex.getMessage().startsWith("evidence source '" + LogSafe.escape(source) + "'"), ex::getMessage);
    assertTrue(ex.getMessage().contains("unknown reason code '" + LogSafe.escape(code) + "'"), ex::getMessage);
    assertFalse(ex.getMessage().contains("\n"), "one log line");
  }

  @Property
  void aCoreOnlyCodeFromASourceIsRefusedNamingTheSource(
      @ForAll("evidence") Evidence e, @ForAll("sourceName") String source, @ForAll("coreCode") ReasonCode code) {
    List<Finding> findings = new ArrayList<>(e.findings());
    findings.add(Finding.of(source, code, "forged"));
    EvidenceRejectedException ex =
        assertThrows(EvidenceRejectedException.class, () -> Assessor.assess(withFindings(e, findings)));
    assertEquals(source, ex.source());
    assertTrue(
        ex.getMessage().startsWith("evidence source '" + LogSafe.escape(source) + "'"), ex::getMessage);
  }
}
