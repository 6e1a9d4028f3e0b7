package dev.cotenant.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * One test per row of the reason table in docs/architecture.md. Each builds the smallest evidence that
 * exhibits the row and asserts the reason code (with its detail), the strength and both
 * recommendations of the verdict.
 */
class ReasonTableTest {

  private static final String SRC = "test-source";

  private static Evidence findings(boolean handshakeObserved, Finding... fs) {
    return new Evidence(List.of(), List.of(fs), PreflightOutcome.NOT_MEASURED, handshakeObserved);
  }

  private static void assertVerdict(
      Verdict v, ReasonCode code, String detail, Strength strength, boolean stub, boolean share) {
    assertTrue(
        v.reasons().contains(new Reason(code, detail)),
        () -> "expected " + code.wireName() + "(" + detail + ") in " + v.reasons());
    assertEquals(strength, v.strength(), "strength");
    assertEquals(stub, v.recommendStub(), "recommendStub");
    assertEquals(share, v.recommendShare(), "recommendShare");
  }

  /**
   * The table as docs/architecture.md writes it, wire name to role, with the two notes of docs/statelessness.md's
   * fail-closed rule (records that cannot be read completely).
   */
  private static final Map<String, ReasonRole> DESIGN_TABLE = new LinkedHashMap<>();

  static {
    DESIGN_TABLE.put("observed_hazard", ReasonRole.OBSERVATION);
    DESIGN_TABLE.put("not_stdio", ReasonRole.DISQUALIFYING_FACT);
    DESIGN_TABLE.put("session_bound_by_construction", ReasonRole.DISQUALIFYING_FACT);
    DESIGN_TABLE.put("declares_caller_identity", ReasonRole.DECLARATION);
    DESIGN_TABLE.put("registered_shared", ReasonRole.DECLARATION);
    DESIGN_TABLE.put("preflight_passed", ReasonRole.MEASUREMENT);
    DESIGN_TABLE.put("preflight_not_run", ReasonRole.SUPPORTING);
    DESIGN_TABLE.put("handshake_not_reproducible", ReasonRole.NOTE);
    DESIGN_TABLE.put("deferred_answer_changed", ReasonRole.NOTE);
    DESIGN_TABLE.put("rotating_secret_env", ReasonRole.NOTE);
    DESIGN_TABLE.put("degrades_when_shared", ReasonRole.NOTE);
    DESIGN_TABLE.put("ledger_unreadable", ReasonRole.NOTE);
    DESIGN_TABLE.put("concurrency_records_unreadable", ReasonRole.NOTE);
    DESIGN_TABLE.put("all_tools_read_only", ReasonRole.SUPPORTING);
    DESIGN_TABLE.put("no_tool_annotations", ReasonRole.SUPPORTING);
    DESIGN_TABLE.put("no_tools_listed", ReasonRole.SUPPORTING);
    DESIGN_TABLE.put("statelessness_probe_passed", ReasonRole.SUPPORTING);
    DESIGN_TABLE.put("no_objection_found", ReasonRole.NO_OBJECTION);
    DESIGN_TABLE.put("not_probed", ReasonRole.UNKNOWN);
  }

  @Test
  void theVocabularyIsExactlyTheDesignTableWithItsRoles() {
    Map<String, ReasonRole> actual =
        Arrays.stream(ReasonCode.values())
            .collect(
                Collectors.toMap(
                    ReasonCode::wireName, ReasonCode::role, (a, b) -> a, LinkedHashMap::new));
    assertEquals(DESIGN_TABLE, actual);
  }

  @Test
  void onlyTheRecordsAndThePreflightOutcomeProduceCoreCodes() {
    List<String> core =
        Arrays.stream(ReasonCode.values())
            .filter(c -> c.origin() == ReasonCode.Origin.CORE)
            .map(ReasonCode::wireName)
            .collect(Collectors.toList());
    assertEquals(
        List.of(
            "observed_hazard",
            "preflight_passed",
            "preflight_not_run",
            "handshake_not_reproducible",
            "deferred_answer_changed",
            "ledger_unreadable",
            "concurrency_records_unreadable",
            "no_objection_found",
            "not_probed"),
        core);
  }

  @Test
  void deferredAnswerChanged_isANoteThatRefutesNothing() {
    Evidence e = new Evidence(List.of(HazardCode.DEFERRED_ANSWER_CHANGED), List.of(), PreflightOutcome.passed(), true);
    Verdict v = Assessor.assess(e);
    assertEquals(Strength.MEASURED, v.strength());
    assertEquals(List.of(Reason.of(ReasonCode.PREFLIGHT_PASSED), Reason.of(ReasonCode.DEFERRED_ANSWER_CHANGED)),
        v.reasons());
    Verdict both = Assessor.assess(new Evidence(List.of(HazardCode.DEFERRED_ANSWER_CHANGED,
        HazardCode.CROSS_SESSION_LEAK), List.of(), PreflightOutcome.passed(), true));
    assertEquals(Strength.REFUTED, both.strength());
    assertEquals(List.of(new Reason(ReasonCode.OBSERVED_HAZARD, "cross_session_leak"),
        Reason.of(ReasonCode.PREFLIGHT_PASSED), Reason.of(ReasonCode.DEFERRED_ANSWER_CHANGED)), both.reasons());
  }

  @Test
  void observedHazard_refutes_andRecommendsNothing() {
    Evidence e =
        new Evidence(List.of(HazardCode.CROSS_SESSION_LEAK), List.of(), PreflightOutcome.NOT_MEASURED, false);
    Verdict v = Assessor.assess(e);
    assertVerdict(v, ReasonCode.OBSERVED_HAZARD, "cross_session_leak", Strength.REFUTED, false, false);
  }

  @Test
  void notStdio_disqualifies_andRecommendsNothing() {
    Verdict v = Assessor.assess(findings(false, Finding.of(SRC, ReasonCode.NOT_STDIO, "http")));
    assertVerdict(v, ReasonCode.NOT_STDIO, "http", Strength.DISQUALIFIED, false, false);
  }

  @Test
  void sessionBoundByConstruction_disqualifies_andRecommendsNothing() {
    Verdict v =
        Assessor.assess(findings(true, Finding.of("empty", ReasonCode.SESSION_BOUND_BY_CONSTRUCTION, "withheld")));
    assertVerdict(v, ReasonCode.SESSION_BOUND_BY_CONSTRUCTION, "withheld", Strength.DISQUALIFIED, false, false);
  }

  @Test
  void declaresCallerIdentity_declares_andRecommendsStubAndShare() {
    Verdict v =
        Assessor.assess(
            findings(true, Finding.of(SRC, ReasonCode.DECLARES_CALLER_IDENTITY, "cotenant.caller-identity")));
    assertVerdict(
        v, ReasonCode.DECLARES_CALLER_IDENTITY, "cotenant.caller-identity", Strength.DECLARED, true, true);
  }

  @Test
  void registeredShared_declares_andRecommendsStubAndShare() {
    Verdict v = Assessor.assess(findings(false, Finding.of(SRC, ReasonCode.REGISTERED_SHARED, "global")));
    assertVerdict(v, ReasonCode.REGISTERED_SHARED, "global", Strength.DECLARED, true, true);
  }

  @Test
  void preflightPassed_measures_andRecommendsStubOnly() {
    Verdict v = Assessor.assess(new Evidence(List.of(), List.of(), PreflightOutcome.passed(), false));
    assertVerdict(v, ReasonCode.PREFLIGHT_PASSED, "", Strength.MEASURED, true, false);
  }

  @Test
  void preflightNotRun_besideADeclaration_carriesTheNotRunReason() {
    Evidence e =
        new Evidence(
            List.of(),
            List.of(Finding.of(SRC, ReasonCode.DECLARES_CALLER_IDENTITY, "cotenant.caller-identity")),
            new PreflightOutcome.NotRun("needs a credential the host lacks"),
            false);
    Verdict v = Assessor.assess(e);
    assertVerdict(
        v, ReasonCode.PREFLIGHT_NOT_RUN, "needs a credential the host lacks", Strength.DECLARED, true, true);
  }

  @Test
  void preflightNotRun_withNothingElse_saysWhy_besideNotProbed_andGroundsNothing() {
    Evidence e =
        new Evidence(List.of(), List.of(), new PreflightOutcome.NotRun("command not found: acme-mcp"), false);
    Verdict v = Assessor.assess(e);
    assertVerdict(v, ReasonCode.PREFLIGHT_NOT_RUN, "command not found: acme-mcp", Strength.UNKNOWN, false, false);
    assertEquals(
        List.of(Reason.of(ReasonCode.NOT_PROBED), new Reason(ReasonCode.PREFLIGHT_NOT_RUN, "command not found: acme-mcp")),
        v.reasons());
  }

  @Test
  void preflightNotRun_atEveryStrength_leavesTheStrengthAndBothRecommendationsAsTheyWere() {
    List<Evidence> bases =
        List.of(
            new Evidence(List.of(HazardCode.CROSS_SESSION_LEAK), List.of(), PreflightOutcome.NOT_MEASURED, true),
            findings(false, Finding.of(SRC, ReasonCode.NOT_STDIO, "http")),
            findings(false, Finding.of(SRC, ReasonCode.REGISTERED_SHARED, "tenant")),
            findings(true),
            findings(false));
    for (Evidence base : bases) {
      Verdict without = Assessor.assess(base);
      Verdict with =
          Assessor.assess(
              new Evidence(
                  base.observations(), base.findings(), new PreflightOutcome.NotRun("no answer in 15 s"),
                  base.handshakeObserved()));
      assertVerdict(
          with, ReasonCode.PREFLIGHT_NOT_RUN, "no answer in 15 s", without.strength(), without.recommendStub(),
          without.recommendShare());
    }
  }

  @Test
  void preflightNotRun_withoutDetail_onlyBesideADeclaration_whenNoMeasurementExists() {
    assertFalse(Assessor.assess(findings(true)).has(ReasonCode.PREFLIGHT_NOT_RUN));
    Verdict declared = Assessor.assess(findings(false, Finding.of(SRC, ReasonCode.REGISTERED_SHARED, "tenant")));
    assertVerdict(declared, ReasonCode.PREFLIGHT_NOT_RUN, "", Strength.DECLARED, true, true);
  }

  @Test
  void handshakeNotReproducible_isANote_theRanPreflightStillCountsAsAHandshake() {
    Verdict v =
        Assessor.assess(new Evidence(List.of(), List.of(), PreflightOutcome.diverged("serverInfo"), false));
    assertVerdict(v, ReasonCode.HANDSHAKE_NOT_REPRODUCIBLE, "serverInfo", Strength.NO_OBJECTION, true, false);
    assertFalse(v.has(ReasonCode.PREFLIGHT_PASSED), "a divergent pre-flight never passes");
  }

  @Test
  void rotatingSecretEnv_isANote_andGroundsNothing() {
    Verdict v = Assessor.assess(findings(false, Finding.of(SRC, ReasonCode.ROTATING_SECRET_ENV, "GITHUB_TOKEN")));
    assertVerdict(v, ReasonCode.ROTATING_SECRET_ENV, "GITHUB_TOKEN", Strength.UNKNOWN, false, false);
  }

  @Test
  void degradesWhenShared_isANote_beside_noObjection() {
    Verdict v =
        Assessor.assess(findings(true, Finding.of(SRC, ReasonCode.DEGRADES_WHEN_SHARED, "logging_level")));
    assertVerdict(v, ReasonCode.DEGRADES_WHEN_SHARED, "logging_level", Strength.NO_OBJECTION, true, false);
  }

  private static final Finding REGISTERED = Finding.of(SRC, ReasonCode.REGISTERED_SHARED, "tenant");

  @Test
  void ledgerUnreadable_isANote_theDeclarationStands_butNothingRecommendsSharing() {
    Evidence e =
        findings(false, REGISTERED)
            .withRecords(
                false,
                List.of(new Reason(ReasonCode.LEDGER_UNREADABLE, "/r/observed-hazards.json is not valid JSON: cut off")));
    Verdict v = Assessor.assess(e);
    assertVerdict(
        v, ReasonCode.LEDGER_UNREADABLE, "/r/observed-hazards.json is not valid JSON: cut off", Strength.DECLARED,
        true, false);
    assertEquals(ReasonCode.LEDGER_UNREADABLE, v.reasons().get(v.reasons().size() - 1).code(), "a note comes last");
  }

  @Test
  void concurrencyRecordsUnreadable_isANote_theDeclarationStands_butNothingRecommendsSharing() {
    Evidence e =
        findings(true, Finding.of(SRC, ReasonCode.DECLARES_CALLER_IDENTITY, "cotenant.caller-identity"))
            .withRecords(
                false,
                List.of(new Reason(ReasonCode.CONCURRENCY_RECORDS_UNREADABLE, "/r/concurrency-records.json has schema 2")));
    Verdict v = Assessor.assess(e);
    assertVerdict(
        v, ReasonCode.CONCURRENCY_RECORDS_UNREADABLE, "/r/concurrency-records.json has schema 2", Strength.DECLARED,
        true, false);
  }

  @Test
  void recordsNotes_gateNothing_theCompletenessFlagDoes() {
    Reason note = new Reason(ReasonCode.LEDGER_UNREADABLE, "x");
    Verdict noteOnly = Assessor.assess(findings(false, REGISTERED).withRecords(true, List.of(note)));
    assertVerdict(noteOnly, ReasonCode.LEDGER_UNREADABLE, "x", Strength.DECLARED, true, true);
    Verdict flagOnly = Assessor.assess(findings(false, REGISTERED).withRecords(false, List.of()));
    assertEquals(Strength.DECLARED, flagOnly.strength());
    assertFalse(flagOnly.recommendShare());
    assertTrue(flagOnly.recommendStub());
  }

  @Test
  void recordsNotes_atEveryOtherStrength_changeNothingButTheReasons() {
    Reason note = new Reason(ReasonCode.CONCURRENCY_RECORDS_UNREADABLE, "y");
    List<Evidence> bases =
        List.of(
            new Evidence(List.of(HazardCode.CROSS_SESSION_LEAK), List.of(REGISTERED), PreflightOutcome.NOT_MEASURED, true),
            findings(false, Finding.of(SRC, ReasonCode.NOT_STDIO, "http")),
            new Evidence(List.of(), List.of(), PreflightOutcome.passed(), false),
            findings(true),
            findings(false));
    for (Evidence base : bases) {
      Verdict complete = Assessor.assess(base);
      Verdict incomplete = Assessor.assess(base.withRecords(false, List.of(note)));
      assertVerdict(
          incomplete, ReasonCode.CONCURRENCY_RECORDS_UNREADABLE, "y", complete.strength(), complete.recommendStub(),
          complete.recommendShare());
    }
  }

  @Test
  void aRecordsNoteCarriesOnlyARecordsCode() {
    org.junit.jupiter.api.Assertions.assertThrows(
        IllegalArgumentException.class,
        () -> Evidence.none().withRecords(false, List.of(Reason.of(ReasonCode.REGISTERED_SHARED))));
  }

  @Test
  void aSourceMayNotContributeARecordsNote() {
    for (ReasonCode code : List.of(ReasonCode.LEDGER_UNREADABLE, ReasonCode.CONCURRENCY_RECORDS_UNREADABLE)) {
      EvidenceRejectedException ex =
          org.junit.jupiter.api.Assertions.assertThrows(
              EvidenceRejectedException.class, () -> Assessor.assess(findings(false, Finding.of("forger", code, ""))));
      assertTrue(ex.getMessage().contains("which only the core derives"), ex.getMessage());
    }
  }

  @Test
  void allToolsReadOnly_supports_butNeverGrounds() {
    Verdict v = Assessor.assess(findings(true, Finding.of(SRC, ReasonCode.ALL_TOOLS_READ_ONLY)));
    assertVerdict(v, ReasonCode.ALL_TOOLS_READ_ONLY, "", Strength.NO_OBJECTION, true, false);
  }

  @Test
  void noToolAnnotations_supports_withTheProtocolVersionAsDetail() {
    Verdict v = Assessor.assess(findings(true, Finding.of(SRC, ReasonCode.NO_TOOL_ANNOTATIONS, "2024-11-05")));
    assertVerdict(v, ReasonCode.NO_TOOL_ANNOTATIONS, "2024-11-05", Strength.NO_OBJECTION, true, false);
  }

  @Test
  void noToolsListed_supports_butNeverGrounds() {
    Verdict v = Assessor.assess(findings(true, Finding.of(SRC, ReasonCode.NO_TOOLS_LISTED)));
    assertVerdict(v, ReasonCode.NO_TOOLS_LISTED, "", Strength.NO_OBJECTION, true, false);
  }

  @Test
  void statelessnessProbePassed_alone_isNotARegistration() {
    Verdict v =
        Assessor.assess(
            findings(false, Finding.of(SRC, ReasonCode.STATELESSNESS_PROBE_PASSED, "echo x 8 rounds")));
    assertVerdict(v, ReasonCode.STATELESSNESS_PROBE_PASSED, "echo x 8 rounds", Strength.UNKNOWN, false, false);
  }

  @Test
  void noObjectionFound_whenAHandshakeWasObservedAndNothingElseApplies() {
    Verdict v = Assessor.assess(new Evidence(List.of(), List.of(), PreflightOutcome.NOT_MEASURED, true));
    assertVerdict(v, ReasonCode.NO_OBJECTION_FOUND, "", Strength.NO_OBJECTION, true, false);
    assertEquals(List.of(Reason.of(ReasonCode.NO_OBJECTION_FOUND)), v.reasons());
  }

  @Test
  void notProbed_whenNothingWasObserved() {
    Verdict v = Assessor.assess(Evidence.none());
    assertVerdict(v, ReasonCode.NOT_PROBED, "", Strength.UNKNOWN, false, false);
    assertEquals(List.of(Reason.of(ReasonCode.NOT_PROBED)), v.reasons());
  }
}
