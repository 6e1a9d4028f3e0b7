package dev.cotenant.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.gateway.probe.ArgumentTemplate;
import dev.cotenant.gateway.probe.ProbeReport;
import dev.cotenant.gateway.probe.ProbeReport.Assertion;
import dev.cotenant.gateway.probe.ProbeReport.Outcome;
import dev.cotenant.gateway.probe.ProbeReport.Round;
import dev.cotenant.gateway.probe.ProbeSpec;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/** What {@code probe-stateless --tool} prints for a one-tool report, as text and as JSON, for each outcome. */
class ProbeOutputTest {
  private static final ProbeSpec SPEC = ProbeSpec.of("remember", ArgumentTemplate.of(Map.of("target", "{marker}")));

  private static Round round(int n, boolean crossed, boolean own) {
    return new Round(n, "mA" + n, "mB" + n, "wA", "wB",
        new Assertion(Assertion.A_NEVER_SEES_B, !crossed, crossed ? "mB" + n + " in A's answer\n" : ""),
        new Assertion(Assertion.B_NEVER_SEES_A, true, ""),
        new Assertion(Assertion.EACH_GETS_OWN, own, own ? "" : "B's answer lacks mB" + n));
  }

  private static ProbeReport report(ProbeSpec spec, boolean callerBlocks, List<Round> rounds, Outcome outcome,
      Optional<String> notRun) {
    return new ProbeReport("echo", "identity", spec, callerBlocks, rounds, outcome, notRun);
  }

  private static String text(ProbeReport r) {
    StringWriter s = new StringWriter();
    try (PrintWriter out = new PrintWriter(s)) {
      ProbeStatelessCommand.print(out, r);
    }
    return s.toString();
  }

  @Test
  void aLeakShowsEachRoundsAssertionsAndWhatWasRecorded() {
    ProbeReport leak = report(SPEC, true, List.of(round(1, false, true), round(2, true, true)), Outcome.LEAKED,
        Optional.empty());
    assertEquals("""
        the server declares caller identity: every call carried its caller's block
        round 1: A mA1, B mB1
          A never sees B's marker: held
          B never sees A's marker: held
          each caller gets its own marker back: held
        round 2: A mA2, B mB2
          A never sees B's marker: FAILED: mB2 in A's answer\\n
          B never sees A's marker: held
          each caller gets its own marker back: held
        LEAKED: one caller saw the other's marker; recorded cross_session_leak for echo in the hazard ledger under its \
        current identity
        """, text(leak));
    assertTrue(text(leak.withNotRecorded("disk full")).endsWith(
        "LEAKED: one caller saw the other's marker; recording it for echo failed (see standard error)\n"));
    assertEquals("cross_session_leak", ProbeStatelessCommand.recorded(leak).orElseThrow());
    assertEquals(Optional.empty(), ProbeStatelessCommand.recorded(leak.withNotRecorded("disk full")));
  }

  @Test
  void notProvenAndNotRunSayNothingWasRecorded() {
    ProbeReport noOwn = report(SPEC, false, List.of(round(1, false, false)), Outcome.NO_OWN_MARKER, Optional.empty());
    assertEquals("""
        round 1: A mA1, B mB1
          A never sees B's marker: held
          B never sees A's marker: held
          each caller gets its own marker back: FAILED: B's answer lacks mB1
        not proven: no marker crossed, but a caller did not get its own marker back; nothing recorded
        """, text(noOwn));
    assertEquals(Optional.empty(), ProbeStatelessCommand.recorded(noOwn));
    ProbeReport notRun = report(SPEC, false, List.of(), Outcome.NOT_RUN, Optional.of("the server exited"));
    assertEquals("stopped: the server exited\nnot run: echo could not be probed; nothing recorded\n", text(notRun));
    assertEquals(Optional.empty(), ProbeStatelessCommand.recorded(notRun));
  }

  @Test
  void theJsonNamesTheReadBackToolWhatWasRecordedAndWhatWasNot() {
    ProbeReport passed = report(SPEC.withReadBack("recall", ArgumentTemplate.empty()), false,
        List.of(round(1, false, true)), Outcome.PASSED, Optional.empty());
    JsonNode json = ProbeStatelessCommand.json(passed);
    assertEquals("recall", json.path("readBackTool").stringValue());
    assertEquals("statelessness_probe_passed", json.path("recorded").stringValue());
    assertFalse(json.has("notRecorded"), json.toString());
    JsonNode unrecorded = ProbeStatelessCommand.json(passed.withNotRecorded("disk full"));
    assertTrue(unrecorded.path("recorded").isNull(), unrecorded.toString());
    assertEquals("disk full", unrecorded.path("notRecorded").stringValue());
    JsonNode notRun = ProbeStatelessCommand.json(report(SPEC, false, List.of(), Outcome.NOT_RUN, Optional.of("it exited")));
    assertFalse(notRun.has("readBackTool"), notRun.toString());
    assertEquals("it exited", notRun.path("notRunReason").stringValue());
    assertFalse(json.has("notRunReason"), json.toString());
  }
}
