package dev.cotenant.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/** How a declaration reads beside each pre-flight outcome, the ranking, and refused findings. */
class AssessorTest {

  private static final Finding DECLARATION =
      Finding.of("declares_caller_identity", ReasonCode.DECLARES_CALLER_IDENTITY, "cotenant.caller-identity");

  private static Verdict declaredWith(PreflightOutcome preflight) {
    return Assessor.assess(new Evidence(List.of(), List.of(DECLARATION), preflight, false));
  }

  /**
   * The verdict stays {@link Strength#DECLARED}, recommends a stub and sharing, and gives the
   * declaration's reason followed by exactly {@code after}.
   */
  private static void assertDeclaredThen(Verdict v, Reason... after) {
    assertEquals(Strength.DECLARED, v.strength());
    assertTrue(v.recommendStub());
    assertTrue(v.recommendShare());
    List<Reason> expected = new ArrayList<>();
    expected.add(new Reason(ReasonCode.DECLARES_CALLER_IDENTITY, "cotenant.caller-identity"));
    expected.addAll(List.of(after));
    assertEquals(expected, v.reasons());
  }

  /**
   * Assesses a declaration beside {@code other}, with {@code hazards} on the ledger and a passed
   * pre-flight, and checks that the verdict has {@code expected} strength and recommends neither
   * a stub nor sharing.
   */
  private static Verdict overruledDeclaration(Strength expected, List<HazardCode> hazards, Finding other) {
    Verdict v = Assessor.assess(new Evidence(hazards, List.of(DECLARATION, other), PreflightOutcome.passed(), true));
    assertEquals(expected, v.strength());
    assertFalse(v.recommendStub());
    assertFalse(v.recommendShare());
    return v;
  }

  @Test
  void aDeclarationBesideAPassedPreflight_saysTheDeclarationWasTested() {
    Verdict v = declaredWith(PreflightOutcome.passed());
    assertDeclaredThen(v, Reason.of(ReasonCode.PREFLIGHT_PASSED));
    assertFalse(v.has(ReasonCode.PREFLIGHT_NOT_RUN));
  }

  @Test
  void aDeclarationWithNoMeasurement_carriesPreflightNotRunWithoutDetail() {
    Verdict v = declaredWith(PreflightOutcome.NOT_MEASURED);
    assertEquals(Strength.DECLARED, v.strength());
    assertTrue(v.recommendShare());
    assertTrue(v.reasons().contains(Reason.of(ReasonCode.PREFLIGHT_NOT_RUN)), v.reasons()::toString);
    assertFalse(v.has(ReasonCode.PREFLIGHT_PASSED));
  }

  @Test
  void aDeclarationWhosePreflightCouldNotRun_carriesTheNotRunReasonAsDetail() {
    Verdict v = declaredWith(new PreflightOutcome.NotRun("executable not found: /opt/srv"));
    assertDeclaredThen(v, new Reason(ReasonCode.PREFLIGHT_NOT_RUN, "executable not found: /opt/srv"));
  }

  @Test
  void aDeclarationWhosePreflightDiverged_staysDeclared_withANoteAndNoPass() {
    Verdict v = declaredWith(PreflightOutcome.diverged("capabilities", "tools"));
    // A divergence is a note; it never overrules a declaration.
    assertDeclaredThen(
        v,
        new Reason(ReasonCode.HANDSHAKE_NOT_REPRODUCIBLE, "capabilities"),
        new Reason(ReasonCode.HANDSHAKE_NOT_REPRODUCIBLE, "tools"));
    assertFalse(v.has(ReasonCode.PREFLIGHT_PASSED));
    assertFalse(v.has(ReasonCode.PREFLIGHT_NOT_RUN), "the pre-flight ran");
  }

  @Test
  void withoutADeclaration_aNotRunPreflightSaysWhy_andChangesNothingElse() {
    Verdict v = Assessor.assess(new Evidence(List.of(), List.of(), new PreflightOutcome.NotRun("timed out"), true));
    assertEquals(Strength.NO_OBJECTION, v.strength());
    assertTrue(v.recommendStub());
    assertFalse(v.recommendShare());
    assertEquals(
        List.of(Reason.of(ReasonCode.NO_OBJECTION_FOUND), new Reason(ReasonCode.PREFLIGHT_NOT_RUN, "timed out")),
        v.reasons());
  }

  @Test
  void withoutADeclaration_noMeasurementAddsNothing() {
    Verdict v = Assessor.assess(new Evidence(List.of(), List.of(), PreflightOutcome.NOT_MEASURED, true));
    assertEquals(List.of(Reason.of(ReasonCode.NO_OBJECTION_FOUND)), v.reasons());
  }

  @Test
  void onlyALedgerEntryOverrulesADeclaration_andItOutranksADisqualifyingFactToo() {
    Verdict v =
        overruledDeclaration(
            Strength.REFUTED,
            List.of(HazardCode.UNROUTABLE_SERVER_REQUEST),
            Finding.of("not_stdio", ReasonCode.NOT_STDIO));
    assertEquals(new Reason(ReasonCode.OBSERVED_HAZARD, "unroutable_server_request"), v.reasons().get(0));
  }

  @Test
  void aDisqualifyingFactOverrulesADeclaration() {
    overruledDeclaration(
        Strength.DISQUALIFIED, List.of(), Finding.of("empty", ReasonCode.SESSION_BOUND_BY_CONSTRUCTION));
  }

  @Test
  void reasonsComeStrongestRoleFirst_andExactDuplicatesCollapse() {
    Evidence e =
        new Evidence(
            List.of(HazardCode.CROSS_SESSION_LEAK, HazardCode.CROSS_SESSION_LEAK),
            List.of(
                Finding.of("a", ReasonCode.DEGRADES_WHEN_SHARED, "logging_level"),
                Finding.of("b", ReasonCode.ALL_TOOLS_READ_ONLY),
                Finding.of("c", ReasonCode.NOT_STDIO),
                DECLARATION,
                DECLARATION),
            PreflightOutcome.passed(),
            true);
    Verdict v = Assessor.assess(e);
    assertEquals(
        List.of(
            new Reason(ReasonCode.OBSERVED_HAZARD, "cross_session_leak"),
            Reason.of(ReasonCode.NOT_STDIO),
            new Reason(ReasonCode.DECLARES_CALLER_IDENTITY, "cotenant.caller-identity"),
            Reason.of(ReasonCode.PREFLIGHT_PASSED),
            Reason.of(ReasonCode.ALL_TOOLS_READ_ONLY),
            new Reason(ReasonCode.DEGRADES_WHEN_SHARED, "logging_level")),
        v.reasons());
  }

  @Test
  void anUnknownCodeIsRefused_withAMessageNamingTheSourceAndTheVocabulary() {
    Evidence e =
        new Evidence(
            List.of(),
            List.of(DECLARATION, new Finding("acme-scanner", "looks_fine", "")),
            PreflightOutcome.NOT_MEASURED,
            true);
    EvidenceRejectedException ex = assertThrows(EvidenceRejectedException.class, () -> Assessor.assess(e));
    assertEquals("acme-scanner", ex.source());
    assertEquals("looks_fine", ex.code());
    assertTrue(ex.getMessage().contains("evidence source 'acme-scanner'"), ex.getMessage());
    assertTrue(ex.getMessage().contains("unknown reason code 'looks_fine'"), ex.getMessage());
    assertTrue(ex.getMessage().contains(ReasonCode.allWireNames()), ex.getMessage());
  }

  @Test
  void aWireNameIsMatchedExactly_notIgnoringCase() {
    Evidence e =
        new Evidence(List.of(), List.of(new Finding("s", "NOT_STDIO", "")), PreflightOutcome.NOT_MEASURED, false);
    EvidenceRejectedException ex = assertThrows(EvidenceRejectedException.class, () -> Assessor.assess(e));
    assertTrue(ex.getMessage().contains("unknown reason code 'NOT_STDIO'"), ex.getMessage());
  }

  static Stream<ReasonCode> coreCodes() {
    return Stream.of(ReasonCode.values()).filter(c -> c.origin() == ReasonCode.Origin.CORE);
  }

  @ParameterizedTest
  @MethodSource("coreCodes")
  void aCoreOnlyCodeFromASourceIsRefused_namingTheSource(ReasonCode code) {
    Evidence e =
        new Evidence(
            List.of(), List.of(Finding.of("sneaky", code, "x")), PreflightOutcome.NOT_MEASURED, true);
    EvidenceRejectedException ex = assertThrows(EvidenceRejectedException.class, () -> Assessor.assess(e));
    assertEquals("sneaky", ex.source());
    assertEquals(code.wireName(), ex.code());
    assertTrue(ex.getMessage().contains("evidence source 'sneaky'"), ex.getMessage());
    assertTrue(ex.getMessage().contains("'" + code.wireName() + "', which only the core derives"), ex.getMessage());
  }

  @ParameterizedTest
  @EnumSource(ReasonCode.class)
  void everySourceCodeIsAdmitted(ReasonCode code) {
    Evidence e =
        new Evidence(List.of(), List.of(Finding.of("s", code, "d")), PreflightOutcome.NOT_MEASURED, true);
    if (code.origin() == ReasonCode.Origin.SOURCE) {
      assertTrue(Assessor.assess(e).reasons().contains(new Reason(code, "d")));
    } else {
      assertThrows(EvidenceRejectedException.class, () -> Assessor.assess(e));
    }
  }

  @Test
  void aHostileSourceNameIsEscapedInTheMessage() {
    String source = "evil\nINFO forged line\u001b[31m";
    Evidence e =
        new Evidence(List.of(), List.of(new Finding(source, "nope", "")), PreflightOutcome.NOT_MEASURED, false);
    EvidenceRejectedException ex = assertThrows(EvidenceRejectedException.class, () -> Assessor.assess(e));
    assertEquals(source, ex.source(), "the accessor keeps the verbatim name");
    assertFalse(ex.getMessage().contains("\n"), ex.getMessage());
    assertFalse(ex.getMessage().contains("\u001b"), ex.getMessage());
    assertTrue(ex.getMessage().contains("evil\\nINFO forged line\\u001b[31m"), ex.getMessage());
  }

  @Test
  void theVerdictsReasonsCannotBeModified() {
    Verdict v = Assessor.assess(Evidence.none());
    assertThrows(UnsupportedOperationException.class, () -> v.reasons().add(Reason.of(ReasonCode.NOT_STDIO)));
  }

  @Test
  void evidenceDetachesFromTheListsItWasBuiltFrom() {
    List<Finding> fs = new ArrayList<>(List.of(DECLARATION));
    Evidence e = new Evidence(new ArrayList<>(), fs, PreflightOutcome.NOT_MEASURED, false);
    fs.add(Finding.of("x", ReasonCode.NOT_STDIO));
    assertEquals(Strength.DECLARED, Assessor.assess(e).strength());
  }
}
