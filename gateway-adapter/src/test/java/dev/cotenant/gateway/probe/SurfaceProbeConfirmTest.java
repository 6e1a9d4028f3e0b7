package dev.cotenant.gateway.probe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.api.HazardCode;
import dev.cotenant.gateway.probe.SurfaceReport.Finding;
import dev.cotenant.gateway.probe.SurfaceReport.FindingKind;
import dev.cotenant.gateway.probe.SurfaceReport.Outcome;
import dev.cotenant.gateway.probe.SurfaceReport.Sandboxing;
import dev.cotenant.gateway.probe.SurfaceReport.ToolResult;
import dev.cotenant.gateway.probe.SurfaceReport.ToolStatus;
import dev.cotenant.gateway.probe.SurfaceReport.Traffic;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * How a replay confirms the first run of a whole-surface probe ({@link SurfaceConfirmation#confirm}): a
 * changed answer counts only where both runs changed the same tool; a marker always counts; a
 * traffic hazard of either run stands.
 */
class SurfaceProbeConfirmTest {
  private static final Finding CHANGED = new Finding(1, "B", FindingKind.CHANGED_ANSWER, "$.result.n",
      "B's answer to gen on the shared backend differs from a dedicated backend's at $.result.n: expected 4852, got 3205");
  private static final Finding MARKER = new Finding(2, "A", FindingKind.MARKER, "$.result.text",
      "B's marker bravo-2-00 appeared in A's answer to remember at $.result.text");

  private static ToolResult tool(String name, ToolStatus status, Finding... findings) {
    return new ToolResult(name, status, "", "schema {}", List.of(findings), List.of());
  }

  private static SurfaceReport report(List<ToolResult> tools, Map<HazardCode, String> hazards) {
    Outcome outcome = !hazards.isEmpty() ? Outcome.HAZARD
        : tools.stream().allMatch(t -> t.status() == ToolStatus.PASSED) ? Outcome.PASSED : Outcome.NOT_PROVEN;
    return new SurfaceReport("s", "id", 3, false, tools, List.of(), Traffic.none(), hazards, outcome, Optional.empty(),
        Optional.empty(), List.of(), 100, new Sandboxing(true, false, "bubblewrap"));
  }

  private static Map<HazardCode, String> leak(Finding f) {
    Map<HazardCode, String> m = new EnumMap<>(HazardCode.class);
    m.put(HazardCode.CROSS_SESSION_LEAK, f.detail());
    return m;
  }

  @Test
  void aChangedAnswerThatDoesNotComeBackOnReplayIsVolatileAndTheServerPasses() {
    SurfaceReport first = report(List.of(tool("gen", ToolStatus.LEAKED, CHANGED)), leak(CHANGED));
    assertTrue(SurfaceConfirmation.needsReplay(first));
    SurfaceReport r = SurfaceConfirmation.confirm(first, report(List.of(tool("gen", ToolStatus.PASSED)), Map.of()));
    assertEquals(Outcome.PASSED, r.outcome(), r.toString());
    assertEquals(Map.of(), r.hazards());
    assertEquals(ToolStatus.PASSED, r.tools().get(0).status());
    assertEquals(List.of("$.result.n: differed once on the shared backend (round 1, B), not on replay"),
        r.tools().get(0).volatileParts());
    assertEquals(200, r.elapsedMillis(), "both runs' time");
  }

  @Test
  void aChangedAnswerOnTheSameToolInBothRunsIsConfirmed() {
    SurfaceReport first = report(List.of(tool("next", ToolStatus.LEAKED, CHANGED)), leak(CHANGED));
    SurfaceReport r = SurfaceConfirmation.confirm(first, report(List.of(tool("next", ToolStatus.LEAKED, CHANGED)), leak(CHANGED)));
    assertEquals(Outcome.HAZARD, r.outcome());
    assertEquals(CHANGED.detail(), r.hazards().get(HazardCode.CROSS_SESSION_LEAK));
    assertEquals(ToolStatus.LEAKED, r.tools().get(0).status());
  }

  @Test
  void aMarkerCountsInEitherRunAndAnotherToolsChangeStillNeedsItsReplay() {
    SurfaceReport first = report(List.of(tool("remember", ToolStatus.LEAKED, MARKER), tool("gen", ToolStatus.LEAKED, CHANGED)),
        leak(MARKER));
    assertTrue(SurfaceConfirmation.needsReplay(first), "gen's change is not confirmed by remember's marker");
    assertFalse(SurfaceConfirmation.needsReplay(report(List.of(tool("remember", ToolStatus.LEAKED, MARKER)), leak(MARKER))));
    SurfaceReport r = SurfaceConfirmation.confirm(first,
        report(List.of(tool("remember", ToolStatus.PASSED), tool("gen", ToolStatus.PASSED)), Map.of()));
    assertEquals(Outcome.HAZARD, r.outcome());
    assertEquals(ToolStatus.LEAKED, r.tools().get(0).status(), "the marker of the first run is an observation");
    assertEquals(ToolStatus.PASSED, r.tools().get(1).status());
  }

  @Test
  void changesInBothRunsAtDifferentToolsConfirmNothingAndATrafficHazardStands() {
    Map<HazardCode, String> first = leak(CHANGED);
    first.put(HazardCode.UNATTRIBUTABLE_NOTIFICATION, "notifications/message x1");
    SurfaceReport r = SurfaceConfirmation.confirm(
        report(List.of(tool("a", ToolStatus.LEAKED, CHANGED), tool("b", ToolStatus.PASSED)), first),
        report(List.of(tool("a", ToolStatus.PASSED), tool("b", ToolStatus.LEAKED, CHANGED)), leak(CHANGED)));
    assertEquals(Map.of(HazardCode.UNATTRIBUTABLE_NOTIFICATION, "notifications/message x1"), r.hazards());
    assertEquals(ToolStatus.PASSED, r.tools().get(0).status());
    assertEquals(ToolStatus.PASSED, r.tools().get(1).status());
    assertEquals(Outcome.HAZARD, r.outcome());
  }

  @Test
  void aChangeAtAnotherPlaceOfTheSameToolIsNotAConfirmation() {
    Finding elsewhere = new Finding(1, "A", FindingKind.CHANGED_ANSWER, "$.result.records[17].score", "changed at 17");
    SurfaceReport r = SurfaceConfirmation.confirm(report(List.of(tool("records", ToolStatus.LEAKED, CHANGED)), leak(CHANGED)),
        report(List.of(tool("records", ToolStatus.LEAKED, elsewhere)), leak(elsewhere)));
    assertEquals(Map.of(), r.hazards(), r.toString());
    assertEquals(ToolStatus.NOT_PROVEN, r.tools().get(0).status(), "changed in both runs, at different places");
    assertEquals(Outcome.NOT_PROVEN, r.outcome());
  }

  @Test
  void withinOneTextTheTokenIsThePlace() {
    Finding at3 = new Finding(1, "A", FindingKind.CHANGED_ANSWER, "$.result.content[0].text",
        "A's answer to memory_use ... at $.result.content[0].text (token 3 of 9): expected 7, got 8");
    Finding at5 = new Finding(2, "B", FindingKind.CHANGED_ANSWER, "$.result.content[0].text",
        "B's answer to memory_use ... at $.result.content[0].text (token 5 of 9): expected 1, got 2");
    Finding again3 = new Finding(3, "B", FindingKind.CHANGED_ANSWER, "$.result.content[0].text",
        "B's answer to memory_use ... at $.result.content[0].text (token 3 of 9): expected 4, got 5");
    assertEquals(Map.of(), SurfaceConfirmation.confirm(report(List.of(tool("memory_use", ToolStatus.LEAKED, at3)), leak(at3)),
        report(List.of(tool("memory_use", ToolStatus.LEAKED, at5)), leak(at5))).hazards());
    assertEquals(Outcome.HAZARD, SurfaceConfirmation.confirm(report(List.of(tool("tick", ToolStatus.LEAKED, at3)), leak(at3)),
        report(List.of(tool("tick", ToolStatus.LEAKED, again3)), leak(again3))).outcome());
  }

  @Test
  void aToolNotProvenInEitherRunStaysNotProven() {
    ToolResult err = new ToolResult("gen", ToolStatus.NOT_PROVEN, "answered isError", "schema {}", List.of(), List.of());
    SurfaceReport r = SurfaceConfirmation.confirm(
        report(List.of(tool("x", ToolStatus.LEAKED, CHANGED), err), leak(CHANGED)),
        report(List.of(tool("x", ToolStatus.PASSED), tool("gen", ToolStatus.PASSED)), Map.of()));
    assertEquals(Outcome.NOT_PROVEN, r.outcome());
    assertEquals("answered isError", r.tools().get(1).why());
  }

  /**
   * A value drawn at random agrees in two dedicated answers by chance, then differs on the shared
   * backend, and can do so twice at the same place: it is not confirmed where any dedicated
   * backend of either run disagreed, in any round.
   */
  @Test
  void aChangeWhereDedicatedBackendsDisagreeInEitherRunIsNotConfirmedAndTheToolPasses() {
    String text = "$.result.content[0].text";
    Finding at3 = new Finding(1, "A", FindingKind.CHANGED_ANSWER, text,
        "A's answer to heatmap ... at " + text + " (token 3 of 9): expected 41, got 47");
    Finding again3 = new Finding(3, "B", FindingKind.CHANGED_ANSWER, text,
        "B's answer to heatmap ... at " + text + " (token 3 of 9): expected 44, got 42");
    SurfaceReport first = report(List.of(tool("heatmap", ToolStatus.LEAKED, at3)), leak(at3));
    SurfaceReport replay = report(List.of(tool("heatmap", ToolStatus.LEAKED, again3)), leak(again3));
    String channel = "tools/call heatmap";

    // Tokens 2-3 varied between the replay's dedicated backends (another round, say).
    SurfaceReport r = SurfaceConfirmation.confirm(first, replay, new SurfaceConfirmation.Volatility(Map.of(),
        Map.of(channel, java.util.Set.of(new AnswerDiff.Place(text, 1, 3)))));
    assertEquals(Map.of(), r.hazards(), r.toString());
    assertEquals(Outcome.PASSED, r.outcome(), r.toString());
    assertEquals(ToolStatus.PASSED, r.tools().get(0).status());
    assertEquals(List.of(
        text + " (token 3 of 9): differed once on the shared backend (round 1, A), where dedicated backends disagree too",
        text + " (token 3 of 9): differed once on the shared backend (round 3, B), where dedicated backends disagree too"),
        r.tools().get(0).volatileParts());

    // The first run's own dedicated backends count as much; so does a whole value above the text.
    assertEquals(Outcome.PASSED, SurfaceConfirmation.confirm(first, replay, new SurfaceConfirmation.Volatility(
        Map.of(channel, java.util.Set.of(AnswerDiff.Place.whole("$.result"))), Map.of())).outcome());

    // Elsewhere (token 5, another tool, another path) it explains nothing: confirmed.
    for (SurfaceConfirmation.Volatility v : List.of(
        new SurfaceConfirmation.Volatility(Map.of(), Map.of(channel, java.util.Set.of(new AnswerDiff.Place(text, 4, 5)))),
        new SurfaceConfirmation.Volatility(Map.of(), Map.of("tools/call other", java.util.Set.of(AnswerDiff.Place.whole("$")))),
        new SurfaceConfirmation.Volatility(Map.of(), Map.of(channel, java.util.Set.of(AnswerDiff.Place.whole("$.result.content[0].te")))))) {
      SurfaceReport c = SurfaceConfirmation.confirm(first, replay, v);
      assertEquals(Outcome.HAZARD, c.outcome(), v.toString());
      assertEquals(ToolStatus.LEAKED, c.tools().get(0).status());
    }
  }

  /** One run's change explained by volatility, the other's not: the same place is not confirmed twice. */
  @Test
  void aChangeExplainedInOneRunDoesNotConfirmTheOther() {
    String text = "$.result.content[0].text";
    Finding at3 = new Finding(1, "A", FindingKind.CHANGED_ANSWER, text, "... at " + text + " (token 3 of 9): x");
    Finding at7 = new Finding(1, "A", FindingKind.CHANGED_ANSWER, text, "... at " + text + " (token 7 of 9): y");
    SurfaceReport r = SurfaceConfirmation.confirm(
        report(List.of(tool("t", ToolStatus.LEAKED, at3, at7)), leak(at3)),
        report(List.of(tool("t", ToolStatus.LEAKED, at3)), leak(at3)),
        new SurfaceConfirmation.Volatility(Map.of(), Map.of("tools/call t", java.util.Set.of(new AnswerDiff.Place(text, 2, 3)))));
    assertEquals(Map.of(), r.hazards(), r.toString());
    assertEquals(ToolStatus.NOT_PROVEN, r.tools().get(0).status(),
        "token 7 changed in the first run only, and is not explained: not proven, never passed");
  }
}
