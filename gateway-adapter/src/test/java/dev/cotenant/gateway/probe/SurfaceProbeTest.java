package dev.cotenant.gateway.probe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.api.HazardCode;
import dev.cotenant.api.ServerDescription;
import dev.cotenant.api.Transport;
import dev.cotenant.gateway.probe.SurfaceReport.FindingKind;
import dev.cotenant.gateway.probe.SurfaceReport.ListingResult;
import dev.cotenant.gateway.probe.SurfaceReport.Outcome;
import dev.cotenant.gateway.probe.SurfaceReport.ToolResult;
import dev.cotenant.gateway.probe.SurfaceReport.ToolStatus;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The whole-surface probe against scripted servers ({@link SurfaceTestServer}): what it calls,
 * what it sees, and what it concludes. Every test checks that no process it started is left.
 */
@ExtendWith(ProbeHarness.NoneLeft.class)
class SurfaceProbeTest {
  private SurfaceProbe probe;

  @BeforeEach
  void setUp() {
    probe = ProbeHarness.surface();
  }

  private static ServerDescription server(String scenario) {
    List<String> args = new ArrayList<>(ProbeHarness.javaArgs());
    // javaArgs names ProbeTestServer last; run SurfaceTestServer instead.
    args.set(args.size() - 1, SurfaceTestServer.class.getName());
    args.add(scenario);
    return new ServerDescription(scenario, Transport.STDIO, ProbeHarness.JAVA, args, Optional.empty(),
        Map.of(ProbeHarness.MARKER_NAME, ProbeHarness.MARKER_VALUE), Optional.empty(), true);
  }

  private SurfaceReport run(String scenario) throws InterruptedException {
    return probe.run(server(scenario), "id-" + scenario, ProbePlan.empty(), 3);
  }

  private static ToolResult tool(SurfaceReport r, String name) {
    return r.tools().stream().filter(t -> t.name().equals(name)).findFirst().orElseThrow(() -> new AssertionError(r));
  }

  /** The report's tool {@code name} has {@code status}, and its reason starts with {@code why}. */
  private static void assertTool(SurfaceReport r, String name, ToolStatus status, String why) {
    ToolResult t = tool(r, name);
    assertEquals(status, t.status());
    assertTrue(t.why().startsWith(why), t.why());
  }

  private static ListingResult listing(SurfaceReport r, String method) {
    return r.listings().stream().filter(l -> l.method().equals(method)).findFirst().orElseThrow(() -> new AssertionError(r));
  }

  @Test
  void aStatelessServerPassesWithEveryToolExercised() throws Exception {
    SurfaceReport r = run("plain");
    assertEquals(Outcome.PASSED, r.outcome(), r.toString());
    assertEquals(List.of("echo", "add"), r.exercised());
    assertEquals("2 of 2 tools exercised (100 %)", r.coverage());
    assertEquals("schema {\"a\":1,\"b\":1}", tool(r, "add").arguments());
    assertEquals(Map.of(), r.hazards());
    assertEquals(3, r.rounds());
    assertFalse(listing(r, "tools/list").leaked());
  }

  @Test
  void aCounterThatNeverEchoesAMarkerIsCaughtAsAChangedAnswer() throws Exception {
    SurfaceReport r = run("counter");
    assertEquals(Outcome.HAZARD, r.outcome(), r.toString());
    assertEquals(Set.of(HazardCode.CROSS_SESSION_LEAK), r.hazardCodes());
    ToolResult next = tool(r, "next");
    assertEquals(ToolStatus.LEAKED, next.status());
    assertEquals(FindingKind.CHANGED_ANSWER, next.findings().get(0).kind());
    assertTrue(next.findings().get(0).detail().contains("expected"), next.findings().toString());
    assertEquals("$.result.content[0].text", next.findings().get(0).path());
    assertEquals(ToolStatus.PASSED, tool(r, "echo").status(), "the stateless tool beside it is not blamed");
  }

  @Test
  void aSecretEnvValueInAnAnswerNeverReachesTheReport() throws Exception {
    String secret = "s3cr3t-" + java.util.UUID.randomUUID();
    ServerDescription leaky = server("secret").withEnv(Map.of(ProbeHarness.MARKER_NAME, ProbeHarness.MARKER_VALUE,
        "API_TOKEN", secret));
    SurfaceReport r = probe.run(leaky, "id", ProbePlan.empty(), 3);
    assertEquals(Outcome.HAZARD, r.outcome(), r.toString());
    assertTrue(r.toString().contains("redacted> calls="), r.toString());
    for (int i = 0; i + 6 <= secret.length(); i++) {
      String part = secret.substring(i, i + 6);
      assertFalse(r.toString().contains(part), "part of the value of API_TOKEN appeared in the report: " + part);
    }
  }

  @Test
  void aClockInEveryAnswerIsVolatileAndStillPasses() throws Exception {
    SurfaceReport r = run("clock");
    assertEquals(Outcome.PASSED, r.outcome(), r.toString());
    assertFalse(tool(r, "now").volatileParts().isEmpty(), "the time and the id differ between dedicated runs");
  }

  @Test
  void aCounterSharingOneFieldWithTheClockIsStillCaught() throws Exception {
    SurfaceReport r = run("clock-counter");
    assertEquals(Outcome.HAZARD, r.outcome(), r.toString());
    assertEquals(ToolStatus.LEAKED, tool(r, "tick").status(), r.toString());
  }

  @Test
  void theOtherCallersMarkerIsTheSharpestSignal() throws Exception {
    SurfaceReport r = run("remember");
    assertEquals(Outcome.HAZARD, r.outcome());
    ToolResult remember = tool(r, "remember");
    assertEquals(ToolStatus.LEAKED, remember.status());
    assertTrue(remember.findings().stream().anyMatch(f -> f.kind() == FindingKind.MARKER
        && f.detail().matches("[AB]'s marker (alpha|bravo)-\\d-[0-9a-f]{8} appeared in [AB]'s answer to remember at "
            + "\\$\\.result\\.content\\[0\\]\\.text")), remember.findings().toString());
    assertTrue(r.hazards().get(HazardCode.CROSS_SESSION_LEAK).contains("appeared in"));
  }

  @Test
  void aLogNotificationOnTheSharedBackendIsUnattributable() throws Exception {
    SurfaceReport r = run("log");
    assertEquals(Outcome.HAZARD, r.outcome(), r.toString());
    assertEquals(Set.of(HazardCode.UNATTRIBUTABLE_NOTIFICATION), r.hazardCodes());
    assertEquals(6, r.traffic().unattributable().get("notifications/message"), "one per call, 2 callers x 3 rounds");
    assertEquals(ToolStatus.PASSED, tool(r, "echo").status(), "the answers themselves were each caller's own");
  }

  @Test
  void progressWithTheCallersOwnTokenAndListChangedAreAttributable() throws Exception {
    SurfaceReport r = run("progress");
    assertEquals(Outcome.PASSED, r.outcome(), r.toString());
    assertEquals(6, r.traffic().notifications().get("notifications/progress"));
    assertEquals(Map.of(), r.traffic().unattributable());
  }

  @Test
  void aServerRequestOnTheSharedBackendCannotBeRoutedButAPingCan() throws Exception {
    SurfaceReport r = run("ask");
    assertEquals(Outcome.HAZARD, r.outcome(), r.toString());
    assertEquals(Set.of(HazardCode.UNROUTABLE_SERVER_REQUEST), r.hazardCodes());
    assertEquals(Map.of("sampling/createMessage", 6), r.traffic().unroutable());
    assertEquals(6, r.traffic().serverRequests().get("ping"));
  }

  @Test
  void aDestructiveToolIsSkippedUnlessThePlanIncludesIt() throws Exception {
    SurfaceReport r = run("destructive");
    assertEquals(Outcome.NOT_PROVEN, r.outcome(), r.toString());
    assertTool(r, "wipe", ToolStatus.SKIPPED, "annotated destructiveHint: true");
    assertEquals("1 of 2 tools exercised (50 %)", r.coverage());

    SurfaceReport included = probe.run(server("destructive"), "id", ProbePlan.parse("plan", "{\"tools\": {\"wipe\": {\"include\": true}}}"), 3);
    assertEquals(Outcome.PASSED, included.outcome(), included.toString());
    assertEquals(List.of("echo", "wipe"), included.exercised());

    SurfaceReport skipped = probe.run(server("destructive"), "id",
        ProbePlan.parse("plan", "{\"tools\": {\"wipe\": {\"skip\": \"deletes the operator's files\"}, \"gone\": {\"skip\": \"x\"}}}"), 3);
    assertEquals(Outcome.PASSED, skipped.outcome(), skipped.toString());
    assertEquals(Map.of("wipe", "deletes the operator's files"), skipped.skippedByPlan());
    assertEquals("1 of 2 tools exercised (50 %), 1 skipped by plan", skipped.coverage());
    assertEquals(List.of("the plan names gone, which the server does not list"), skipped.planNotes());
  }

  @Test
  void aPlanTemplateReplacesTheSynthesisedArguments() throws Exception {
    // Without a plan, the marker cannot match `^[0-9]{6}$`: a string generated to match it is sent.
    SurfaceReport r = probe.run(server("pattern"), "id", ProbePlan.empty(), 3);
    assertEquals(Outcome.PASSED, r.outcome(), r.toString());
    assertTrue(tool(r, "code").arguments().matches("schema \\{\"code\":\"[0-9]{6}\"\\}"), tool(r, "code").arguments());

    SurfaceReport planned = probe.run(server("pattern"), "id",
        ProbePlan.parse("plan", "{\"tools\": {\"code\": {\"arguments\": {\"code\": \"123456\"}}}}"), 3);
    assertEquals(Outcome.PASSED, planned.outcome(), planned.toString());
    assertEquals("plan {\"code\":\"123456\"}", tool(planned, "code").arguments());
  }

  @Test
  void aToolThatAnswersAnErrorProvesNothing() throws Exception {
    SurfaceReport r = run("failing");
    assertEquals(Outcome.NOT_PROVEN, r.outcome(), r.toString());
    assertTool(r, "fails", ToolStatus.NOT_PROVEN, "answered isError on a dedicated backend");
  }

  @Test
  void aHungToolIsNotProvenAndNotCalledAgainAndThePassIsWithheld() throws Exception {
    SurfaceProbe quick = ProbeHarness.surface(SurfaceProbe.CALL_TIMEOUT_MS, "1500");
    SurfaceReport r = quick.run(server("stall"), "id", ProbePlan.empty(), 3);
    assertEquals(Outcome.NOT_PROVEN, r.outcome(), r.toString());
    assertTool(r, "stall", ToolStatus.NOT_PROVEN, "no answer in 1500 ms (cotenant.probe.call-timeout-ms) to ");
    assertEquals(ToolStatus.PASSED, tool(r, "echo").status());
  }

  @Test
  void theBudgetEndsAProbeThatRunsTooLongWithoutAPass() throws Exception {
    SurfaceProbe tight = ProbeHarness.surface(SurfaceProbe.BUDGET_MS, "1");
    SurfaceReport r = tight.run(server("plain"), "id", ProbePlan.empty(), 3);
    assertEquals(Outcome.NOT_RUN, r.outcome(), r.toString());
    assertTrue(r.notRunReason().orElseThrow().startsWith("the probe took longer than its budget of 1 ms"), r.toString());
  }

  @Test
  void aResourceOneCallerMadeShowsInTheOthersListingAndIsRead() throws Exception {
    SurfaceReport r = run("resources");
    assertEquals(Outcome.HAZARD, r.outcome(), r.toString());
    ListingResult list = listing(r, "resources/list");
    assertTrue(list.leaked(), r.toString());
    assertTrue(list.findings().stream().anyMatch(f -> f.kind() == FindingKind.MARKER
        && f.path().startsWith("$.result.resources[")), list.findings().toString());
    assertTrue(listing(r, "resources/read").leaked(), "the other caller's resource was read: " + r);
  }

  @Test
  void everyPageOfAListingIsRead() throws Exception {
    SurfaceReport r = run("paged");
    assertEquals(Outcome.PASSED, r.outcome(), r.toString());
    assertFalse(listing(r, "resources/list").leaked());
  }

  @Test
  void eachBackendRunsInAScratchDirectoryThatIsRemovedAfterwards() throws Exception {
    Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
    Set<Path> before = scratch(tmp);
    assertEquals(Outcome.PASSED, run("plain").outcome());
    assertEquals(before, scratch(tmp), "no scratch directory is left behind");
  }

  private static Set<Path> scratch(Path tmp) throws Exception {
    try (Stream<Path> s = Files.list(tmp)) {
      return Set.copyOf(s.filter(p -> p.getFileName().toString().startsWith("cotenant-probe-" + ProcessHandle.current().pid() + "-"))
          .toList());
    }
  }

  @Test
  void aServerThatIsNotAProcessOrIsDisabledIsNeverSpawned() throws Exception {
    SurfaceReport http = probe.run(ServerDescription.http("remote", "http://127.0.0.1:9/mcp"), "id", ProbePlan.empty(), 3);
    assertEquals(Outcome.NOT_RUN, http.outcome());
    assertEquals(Optional.of("not a stdio server: there is no backend process to share"), http.notRunReason());
    SurfaceReport disabled = probe.run(server("plain").withEnabled(false), "id", ProbePlan.empty(), 3);
    assertEquals(Optional.of("disabled: a disabled server is never probed"), disabled.notRunReason());
    assertThrows(IllegalArgumentException.class, () -> probe.run(server("plain"), "id", ProbePlan.empty(), 2));
  }

  @Test
  void aServerThatCannotStartIsNotRunNeverPassed() throws Exception {
    SurfaceReport r = probe.run(ServerDescription.stdio("missing", "/nonexistent/cotenant-test-server"), "id",
        ProbePlan.empty(), 3);
    assertEquals(Outcome.NOT_RUN, r.outcome(), r.toString());
    assertTrue(r.notRunReason().isPresent());
    assertFalse(r.passed());
  }
}
