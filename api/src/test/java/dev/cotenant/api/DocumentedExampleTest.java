package dev.cotenant.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The worked example in docs/architecture.md, so the document cannot drift from the core. */
class DocumentedExampleTest {

  @Test
  void theTypicalDeclaredServer() {
    Evidence evidence =
        new Evidence(
            List.of(), // nothing in the hazard ledger under this identity
            List.of(
                Finding.of("declares_caller_identity", ReasonCode.DECLARES_CALLER_IDENTITY, "cotenant.caller-identity"),
                Finding.of("rotating_secret_env", ReasonCode.ROTATING_SECRET_ENV, "GITHUB_TOKEN"),
                Finding.of("degrades_when_shared", ReasonCode.DEGRADES_WHEN_SHARED, "logging_level"),
                Finding.of("all_tools_read_only", ReasonCode.ALL_TOOLS_READ_ONLY),
                Finding.of("no_tool_annotations", ReasonCode.NO_TOOL_ANNOTATIONS, "2024-11-05")),
            PreflightOutcome.passed(),
            true);
    Verdict v = Assessor.assess(evidence);
    assertEquals(Strength.DECLARED, v.strength());
    assertTrue(v.recommendStub());
    assertTrue(v.recommendShare());
    assertEquals(
        "[declares_caller_identity(cotenant.caller-identity), preflight_passed, all_tools_read_only,"
            + " no_tool_annotations(2024-11-05), rotating_secret_env(GITHUB_TOKEN),"
            + " degrades_when_shared(logging_level)]",
        v.reasons().toString());

    Verdict refuted =
        Assessor.assess(
            new Evidence(
                List.of(HazardCode.UNROUTABLE_SERVER_REQUEST),
                evidence.findings(),
                evidence.preflight(),
                evidence.handshakeObserved()));
    assertEquals(Strength.REFUTED, refuted.strength());
    assertFalse(refuted.recommendStub());
    assertFalse(refuted.recommendShare());
    assertEquals(
        "observed_hazard(unroutable_server_request)", refuted.reasons().get(0).toString());
  }
}
