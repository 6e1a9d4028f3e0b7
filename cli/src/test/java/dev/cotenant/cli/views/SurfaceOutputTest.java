package dev.cotenant.cli.views;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.api.HazardCode;
import dev.cotenant.gateway.probe.SurfaceReport;
import dev.cotenant.gateway.probe.SurfaceReport.Finding;
import dev.cotenant.gateway.probe.SurfaceReport.FindingKind;
import dev.cotenant.gateway.probe.SurfaceReport.ListingResult;
import dev.cotenant.gateway.probe.SurfaceReport.Outcome;
import dev.cotenant.gateway.probe.SurfaceReport.ToolResult;
import dev.cotenant.gateway.probe.SurfaceReport.ToolStatus;
import dev.cotenant.gateway.probe.SurfaceReport.Traffic;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * What {@code probe-stateless} prints for a whole-surface report, line by line, for each outcome:
 * every tool status, listing, finding kind and traffic count has a line of its own, and what the
 * server chose is escaped.
 */
class SurfaceOutputTest {
  private static final SurfaceReport.Sandboxing SANDBOX = new SurfaceReport.Sandboxing(true, false, "bubblewrap 0.8.0");

  private static final ToolResult PASSED_TOOL = new ToolResult("read", ToolStatus.PASSED, "", "plan {}", List.of(), List.of());

  private static SurfaceReport report(String server, boolean callerBlocks, List<ToolResult> tools,
      List<ListingResult> listings, Traffic traffic, Map<HazardCode, String> hazards, Outcome outcome,
      Optional<String> notRunReason, List<String> planNotes, long elapsedMillis) {
    return new SurfaceReport(server, "identity", 3, callerBlocks, tools, listings, traffic, hazards, outcome,
        notRunReason, Optional.empty(), planNotes, elapsedMillis, SANDBOX);
  }

  private static SurfaceReport hazard() {
    return report("echo\nx", true,
        List.of(
            new ToolResult("write", ToolStatus.LEAKED, "", "schema {\"k\":\"<marker>\"}",
                List.of(new Finding(1, "B", FindingKind.MARKER, "$.result", "marker of A seen")), List.of("$.result.id")),
            new ToolResult("wipe", ToolStatus.SKIPPED_BY_PLAN, "destructive", "", List.of(), List.of()),
            new ToolResult("slow", ToolStatus.NOT_PROVEN, "no answer in 5 s", "schema {}",
                List.of(new Finding(2, "A", FindingKind.UNCONFIRMED, "$.x", "changed")), List.of()),
            PASSED_TOOL,
            new ToolResult("drop", ToolStatus.SKIPPED, "annotated destructive", "", List.of(), List.of())),
        List.of(
            new ListingResult("resources/list", true,
                List.of(new Finding(0, "A", FindingKind.CHANGED_ANSWER, "$.result", "B's resource")), List.of()),
            new ListingResult("prompts/list", false,
                List.of(new Finding(0, "B", FindingKind.UNCONFIRMED, "$.result", "differs")), List.of("$.result.nextCursor")),
            new ListingResult("tools/list", false, List.of(), List.of())),
        new Traffic(Map.of("notifications/progress", 1, "notifications/message", 2), Map.of("notifications/message", 2),
            Map.of(), Map.of()),
        Map.of(HazardCode.UNATTRIBUTABLE_NOTIFICATION, "notifications/message x2", HazardCode.CROSS_SESSION_LEAK,
            "write: marker\tof A"),
        Outcome.HAZARD, Optional.empty(), List.of("the plan names gone, which is not listed"), 1_234);
  }

  private static String text(SurfaceReport r) {
    StringWriter s = new StringWriter();
    try (PrintWriter out = new PrintWriter(s)) {
      SurfaceOutput.print(out, r);
    }
    return s.toString();
  }

  @Test
  void aHazardShowsEveryToolListingFindingAndCountAndWhatWasRecorded() {
    assertEquals("""
        whole-surface probe of echo\\nx: 5 tools listed, 3 rounds per caller
        sandbox: bubblewrap 0.8.0 (no network)
        the server declares caller identity: every request carried its caller's block
        plan: the plan names gone, which is not listed
        tool write: LEAKED
          arguments from schema {"k":"<marker>"}
          round 1, B: marker of A seen
          volatile (ignored): $.result.id
        tool wipe: skipped by plan: destructive
        tool slow: not proven: no answer in 5 s
          arguments from schema {}
          unconfirmed round 2, A: changed
        tool read: passed
          arguments from plan {}
        tool drop: skipped: annotated destructive
        listing resources/list: LEAKED
          round 0, A: B's resource
        listing prompts/list: not proven
          unconfirmed round 0, B: differs
          volatile (ignored): $.result.nextCursor
        listing tools/list: passed
        notifications on the shared backend: notifications/message x2 (2 unattributable), notifications/progress x1
        server requests on the shared backend: none
        coverage: 1 of 5 tools exercised (20 %), 1 skipped by plan
        hazard cross_session_leak: write: marker\\tof A
        hazard unattributable_notification: notifications/message x2
        HAZARD: recorded cross_session_leak, unattributable_notification for echo\\nx in the hazard ledger under its current identity
        took 1.2 s
        """, text(hazard()));
    assertEquals("""
        whole-surface probe of echo\\nx: 5 tools listed, 3 rounds per caller
        """.strip(), text(hazard().withNotRecorded("disk full")).lines().findFirst().orElseThrow());
    assertTrue(text(hazard().withNotRecorded("disk full")).contains("""
        HAZARD: recording cross_session_leak, unattributable_notification for echo\\nx failed (see standard error)
        took 1.2 s
        """), text(hazard().withNotRecorded("disk full")));
  }

  @Test
  void aPassNamesWhatWasRememberedOrThatRecordingFailed() {
    SurfaceReport passed = report("echo", false, List.of(PASSED_TOOL), List.of(),
        new Traffic(Map.of(), Map.of(), Map.of("sampling/createMessage", 1, "roots/list", 3), Map.of("roots/list", 1)),
        Map.of(), Outcome.PASSED, Optional.empty(), List.of(), 40);
    assertEquals("""
        whole-surface probe of echo: 1 tool listed, 3 rounds per caller
        sandbox: bubblewrap 0.8.0 (no network)
        tool read: passed
          arguments from plan {}
        notifications on the shared backend: none
        server requests on the shared backend: roots/list x3 (1 unattributable), sampling/createMessage x1
        coverage: 1 of 1 tool exercised (100 %)
        clients declaring roots, sampling or elicitation: not covered, so they get backends of their own: no pass as \
        clients declaring roots, sampling or elicitation was run
        passed: echo kept every caller to itself across its whole surface; remembered as a whole-surface \
        statelessness_probe_passed under its current identity
        took 0.0 s
        """, text(passed));
    SurfaceReport covered = passed.withClients(
        new SurfaceReport.ClientCoverage(List.of("roots", "sampling", "elicitation"), true, ""), 1_000);
    assertTrue(text(covered).contains("""
        coverage: 1 of 1 tool exercised (100 %)
        clients declaring elicitation, roots, sampling: covered (they may share a backend)
        passed: echo"""), text(covered));
    assertTrue(text(covered).endsWith("took 1.0 s\n"), "the second pass's time is counted: " + text(covered));
    assertTrue(text(passed.withNotRecorded("disk full")).contains("""
        passed: echo kept every caller to itself across its whole surface; recording the pass failed (see standard \
        error), so it is not remembered
        """), text(passed.withNotRecorded("disk full")));
  }

  @Test
  void notProvenAndNotRunSayNothingWasRecordedAndWhy() {
    SurfaceReport notProven = report("echo", false,
        List.of(new ToolResult("add", ToolStatus.SKIPPED, "no arguments could be made", "", List.of(), List.of())),
        List.of(), Traffic.none(), Map.of(), Outcome.NOT_PROVEN, Optional.empty(), List.of(), 2_050);
    assertEquals("""
        whole-surface probe of echo: 1 tool listed, 3 rounds per caller
        sandbox: bubblewrap 0.8.0 (no network)
        tool add: skipped: no arguments could be made
        notifications on the shared backend: none
        server requests on the shared backend: none
        coverage: 0 of 1 tool exercised (0 %)
        not proven: nothing leaked, but not every tool was exercised; nothing recorded (give the others arguments in \
        a plan, or skip them there with a reason)
        took 2.1 s
        """, text(notProven));
    SurfaceReport notRun = report("echo", false, List.of(), List.of(), Traffic.none(), Map.of(), Outcome.NOT_RUN,
        Optional.of("the server exited\r\nwith 1"), List.of(), 0);
    assertEquals("""
        whole-surface probe of echo: 0 tools listed, 3 rounds per caller
        sandbox: bubblewrap 0.8.0 (no network)
        notifications on the shared backend: none
        server requests on the shared backend: none
        coverage: 0 of 0 tools exercised (100 %)
        stopped: the server exited\\r\\nwith 1
        not run: echo could not be probed to the end; nothing recorded
        took 0.0 s
        """, text(notRun));
  }

  @Test
  void theJsonNamesWhatWasRecordedOnlyWhenItWas() {
    JsonNode hazard = SurfaceOutput.json(hazard());
    assertEquals("cross_session_leak, unattributable_notification", hazard.path("recorded").stringValue());
    assertEquals("hazard", hazard.path("outcome").stringValue());
    assertEquals(2, hazard.path("traffic").path("notifications").path("notifications/message").intValue());
    assertEquals(2, hazard.path("traffic").path("unattributable").path("notifications/message").intValue());
    assertEquals("marker", hazard.path("tools").path(0).path("findings").path(0).path("kind").stringValue());
    assertEquals("$.result.id", hazard.path("tools").path(0).path("volatile").path(0).stringValue());
    assertEquals("$.result.nextCursor", hazard.path("listings").path(1).path("volatile").path(0).stringValue());
    assertEquals("the plan names gone, which is not listed", hazard.path("planNotes").path(0).stringValue());
    SurfaceReport passed = report("echo", false, List.of(PASSED_TOOL), List.of(),
        new Traffic(Map.of(), Map.of(), Map.of("roots/list", 3), Map.of("roots/list", 1)), Map.of(), Outcome.PASSED,
        Optional.empty(), List.of(), 40);
    JsonNode pass = SurfaceOutput.json(passed);
    assertEquals("statelessness_probe_passed", pass.path("recorded").stringValue());
    assertEquals(3, pass.path("traffic").path("serverRequests").path("roots/list").intValue(), pass.toString());
    assertEquals(1, pass.path("traffic").path("unroutable").path("roots/list").intValue(), pass.toString());
    assertTrue(SurfaceOutput.json(passed.withNotRecorded("disk full")).path("recorded").isNull());
    JsonNode unrecorded = SurfaceOutput.json(hazard().withNotRecorded("disk full"));
    assertTrue(unrecorded.path("recorded").isNull(), unrecorded.toString());
    assertEquals("disk full", unrecorded.path("notRecorded").stringValue());
    JsonNode notRun = SurfaceOutput.json(report("echo", false, List.of(), List.of(), Traffic.none(), Map.of(),
        Outcome.NOT_RUN, Optional.of("the server exited"), List.of(), 0));
    assertTrue(notRun.path("recorded").isNull(), notRun.toString());
    assertEquals("the server exited", notRun.path("notRunReason").stringValue());
    assertEquals("sandbox", pass.path("sandbox").path("mode").stringValue(), pass.toString());
    assertEquals("bubblewrap 0.8.0", pass.path("sandbox").path("why").stringValue(), pass.toString());
    assertFalse(pass.path("sandbox").path("network").booleanValue(), pass.toString());
  }

  @Test
  void theReportSaysWhichModeRanAndWhyThereWasNoSandbox() {
    SurfaceReport fallback = new SurfaceReport("echo", "identity", 3, false, List.of(PASSED_TOOL), List.of(),
        Traffic.none(), Map.of(), Outcome.PASSED, Optional.empty(), Optional.empty(), List.of(), 0,
        new SurfaceReport.Sandboxing(false, false, "no bwrap on PATH"));
    assertEquals("sandbox: none (no bwrap on PATH); destructive tools are not called",
        text(fallback).lines().skip(1).findFirst().orElseThrow());
    JsonNode json = SurfaceOutput.json(fallback);
    assertEquals("fallback", json.path("sandbox").path("mode").stringValue(), json.toString());
    assertEquals("no bwrap on PATH", json.path("sandbox").path("why").stringValue(), json.toString());
    SurfaceReport network = new SurfaceReport("echo", "identity", 3, false, List.of(PASSED_TOOL), List.of(),
        Traffic.none(), Map.of(), Outcome.PASSED, Optional.empty(), Optional.empty(), List.of(), 0,
        new SurfaceReport.Sandboxing(true, true, "bubblewrap 0.8.0"));
    assertEquals("sandbox: bubblewrap 0.8.0 (network allowed by the plan)",
        text(network).lines().skip(1).findFirst().orElseThrow());
    assertTrue(SurfaceOutput.json(network).path("sandbox").path("network").booleanValue());
  }

  @Test
  void aContradictedReadOnlyAnnotationHasALineOfItsOwnAndIsInTheJson() {
    SurfaceReport r = new SurfaceReport("thinker", "identity", 3, false, List.of(PASSED_TOOL), List.of(),
        Traffic.none(), Map.of(), Outcome.PASSED, Optional.empty(), Optional.empty(), List.of("the plan names gone"), 0,
        SANDBOX, List.of("think is annotated readOnlyHint: true, but\nkept it"));
    List<String> lines = text(r).lines().toList();
    int plan = lines.indexOf("plan: the plan names gone");
    assertEquals("annotation: think is annotated readOnlyHint: true, but\\nkept it", lines.get(plan + 1),
        "after the plan's notes, before the tools, escaped: " + lines);
    JsonNode json = SurfaceOutput.json(r);
    assertEquals(1, json.path("annotationNotes").size(), json.toString());
    assertEquals("think is annotated readOnlyHint: true, but\nkept it", json.path("annotationNotes").get(0).stringValue());
    assertEquals(0, SurfaceOutput.json(passedReport()).path("annotationNotes").size());
  }

  private static SurfaceReport passedReport() {
    return new SurfaceReport("echo", "identity", 3, false, List.of(PASSED_TOOL), List.of(), Traffic.none(), Map.of(),
        Outcome.PASSED, Optional.empty(), Optional.empty(), List.of(), 0, SANDBOX);
  }
}
