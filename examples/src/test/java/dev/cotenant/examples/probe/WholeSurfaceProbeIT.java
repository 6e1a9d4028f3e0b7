package dev.cotenant.examples.probe;

import static dev.cotenant.examples.probe.ProbeFixture.sample;
import static dev.cotenant.examples.probe.ProbeFixture.tool;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.api.ConcurrencyModel;
import dev.cotenant.api.HazardCode;
import dev.cotenant.api.Reason;
import dev.cotenant.api.ReasonCode;
import dev.cotenant.api.ServerDescription;
import dev.cotenant.api.ShareScope;
import dev.cotenant.api.Strength;
import dev.cotenant.api.Verdict;
import dev.cotenant.gateway.Cotenant;
import dev.cotenant.gateway.probe.ArgumentTemplate;
import dev.cotenant.gateway.probe.ProbePlan;
import dev.cotenant.gateway.probe.ProbeReport;
import dev.cotenant.gateway.probe.ProbeSpec;
import dev.cotenant.gateway.probe.RegistrationRefusedException;
import dev.cotenant.gateway.probe.Statelessness;
import dev.cotenant.gateway.probe.SurfaceReport;
import dev.cotenant.gateway.probe.SurfaceReport.FindingKind;
import dev.cotenant.gateway.probe.SurfaceReport.Outcome;
import dev.cotenant.gateway.probe.SurfaceReport.ToolResult;
import dev.cotenant.gateway.probe.SurfaceReport.ToolStatus;
import dev.cotenant.gateway.sandbox.Sandbox;
import dev.cotenant.providers.preflight.PreflightSettings;
import dev.cotenant.providers.session.SessionSettings;
import dev.cotenant.providers.records.FileHazardLedger;
import dev.cotenant.testkit.process.ChecksProcessLeaks;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The whole-surface probe against the real sample servers and
 * {@code @modelcontextprotocol/server-everything}, each launched through its {@code examples/bin}
 * launcher as {@code examples/mcp.json} lists it: what it catches, what passes, and what a
 * registration then accepts.
 */
@ChecksProcessLeaks(waitMillis = 60_000)
class WholeSurfaceProbeIT {
  @TempDir Path records;

  private Cotenant cotenant;
  private Statelessness statelessness;

  @BeforeEach
  void setUp() {
    cotenant = ProbeFixture.cotenant(records);
    statelessness = cotenant.statelessness();
  }

  private SurfaceReport probe(String name) throws Exception {
    return statelessness.probeSurface(sample(name), ProbePlan.empty(), 3);
  }

  private Verdict assess(ServerDescription server) {
    return ProbeFixture.assess(cotenant, statelessness, server);
  }

  private void assertPassesAndRegisters(String name) throws Exception {
    SurfaceReport r = probe(name);
    assertEquals(Outcome.PASSED, r.outcome(), r.toString());
    assertEquals(Optional.empty(), r.notRecorded());
    ServerDescription server = sample(name);
    statelessness.register(server, ConcurrencyModel.SHARED, ShareScope.TENANT, OptionalInt.of(4));
    Verdict v = assess(server);
    assertEquals(Strength.DECLARED, v.strength(), v.toString());
    assertTrue(v.reasons().contains(new Reason(ReasonCode.REGISTERED_SHARED, "tenant")), v.toString());
    assertTrue(v.recommendShare());
  }

  @Test
  void serverEverythingsEchoPassesButCanNoLongerRegisterIt() throws Exception {
    ServerDescription everything = sample("server-everything");
    ProbeReport echo = statelessness.probe(everything,
        ProbeSpec.of("echo", ArgumentTemplate.parse("--args", "{\"message\": \"{marker}\"}")));
    assertEquals(ProbeReport.Outcome.PASSED, echo.outcome(), echo.toString());
    RegistrationRefusedException refused = assertThrows(RegistrationRefusedException.class,
        () -> statelessness.register(everything, ConcurrencyModel.SHARED, ShareScope.TENANT, OptionalInt.of(4)));
    assertTrue(refused.getMessage().contains("its statelessness probe covered one tool (echo x5)"), refused.getMessage());
    Verdict v = assess(everything);
    assertFalse(v.recommendShare(), v.toString());
    assertTrue(v.reasons().contains(new Reason(ReasonCode.STATELESSNESS_PROBE_PASSED, "echo x5")), v.toString());
  }

  @Test
  void theEchoAndWorkspaceKeyedSamplesPassTheWholeSurfaceAndMayBeRegistered() throws Exception {
    assertPassesAndRegisters("echo");
    assertPassesAndRegisters("workspace-keyed");
  }

  @Test
  void theProcessGlobalSampleLeaksItsMarkers() throws Exception {
    SurfaceReport r = probe("global-state");
    assertEquals(Outcome.HAZARD, r.outcome(), r.toString());
    assertEquals(ToolStatus.LEAKED, tool(r, "remember").status());
    assertEquals(FindingKind.MARKER, tool(r, "remember").findings().get(0).kind());
    assertEquals(Strength.REFUTED, assess(sample("global-state")).strength());
  }

  @Test
  void aCounterThatNeverEchoesAMarkerIsCaughtByItsChangedAnswers() throws Exception {
    SurfaceReport r = probe("counter");
    assertEquals(Outcome.HAZARD, r.outcome(), r.toString());
    for (String t : List.of("next", "toggle")) {
      ToolResult result = tool(r, t);
      assertEquals(ToolStatus.LEAKED, result.status(), r.toString());
      assertTrue(result.findings().stream().allMatch(f -> f.kind() == FindingKind.CHANGED_ANSWER), result.toString());
    }
    String id = statelessness.identityOf(sample("counter"));
    assertEquals(java.util.Set.of(HazardCode.CROSS_SESSION_LEAK), FileHazardLedger.open(records).codesFor("counter", id));
    assertEquals(Strength.REFUTED, assess(sample("counter")).strength());
  }

  @Test
  void theClockInEveryAnswerIsRecognisedAsVolatileAndTheClockSamplePasses() throws Exception {
    SurfaceReport r = probe("clock");
    assertEquals(Outcome.PASSED, r.outcome(), r.toString());
    assertFalse(tool(r, "now").volatileParts().isEmpty(), r.toString());
    assertFalse(tool(r, "echo").volatileParts().isEmpty(), r.toString());
  }

  /** The counter shares one text field with the time: volatility is judged finer than whole fields. */
  @Test
  void aCounterInTheSameFieldAsTheClockIsStillCaught() throws Exception {
    SurfaceReport r = probe("clock-counter");
    assertEquals(Outcome.HAZARD, r.outcome(), r.toString());
    ToolResult tick = tool(r, "tick");
    assertEquals(ToolStatus.LEAKED, tick.status(), r.toString());
    assertEquals("$.result.content[0].text", tick.findings().get(0).path());
    assertEquals(ToolStatus.PASSED, tool(r, "echo").status(), "its stateless echo is not blamed");
  }

  @Test
  void inTheSandboxADestructiveToolIsCalledWithoutAPlan() throws Exception {
    SurfaceReport r = probe("destructive");
    assertTrue(r.sandbox().sandboxed(), "no sandbox: " + r.sandbox().why());
    assertEquals(Outcome.PASSED, r.outcome(), r.toString());
    assertEquals(List.of("echo", "wipe_scratch"), r.exercised());
  }

  @Test
  void withoutTheSandboxADestructiveToolIsSkippedUnlessThePlanIncludesIt() throws Exception {
    statelessness = Cotenant.builder()
        .config(Map.of(PreflightSettings.TIMEOUT_MS, "60000", PreflightSettings.DISCOVER_TIMEOUT_MS, "30000",
            SessionSettings.DISCOVER_TIMEOUT_MS, "30000",
            Sandbox.KEY, "off"))
        .recordsDirectory(records)
        .build()
        .statelessness();
    SurfaceReport unplanned = probe("destructive");
    assertEquals(Outcome.NOT_PROVEN, unplanned.outcome(), unplanned.toString());
    assertEquals(ToolStatus.SKIPPED, tool(unplanned, "wipe_scratch").status());
    assertThrows(RegistrationRefusedException.class, () -> statelessness.register(sample("destructive"),
        ConcurrencyModel.SHARED, ShareScope.TENANT, OptionalInt.of(2)), "nothing was recorded to register on");

    Path plan = Files.writeString(records.resolve("plan.json"), "{\"tools\": {\"wipe_scratch\": {\"include\": true}}}");
    SurfaceReport planned = statelessness.probeSurface(sample("destructive"), ProbePlan.read(plan), 3);
    assertEquals(Outcome.PASSED, planned.outcome(), planned.toString());
    assertEquals(List.of("echo", "wipe_scratch"), planned.exercised());

    Path skip = Files.writeString(records.resolve("skip.json"),
        "{\"tools\": {\"wipe_scratch\": {\"skip\": \"wipes an operator's scratch files; keyed by workspace\"}}}");
    SurfaceReport skipped = statelessness.probeSurface(sample("destructive"), ProbePlan.read(skip), 3);
    assertEquals(Outcome.PASSED, skipped.outcome(), skipped.toString());
    statelessness.register(sample("destructive"), ConcurrencyModel.SHARED, ShareScope.TENANT, OptionalInt.of(2));
    Verdict v = assess(sample("destructive"));
    assertTrue(v.reasons().contains(new Reason(ReasonCode.REGISTERED_SHARED, "tenant; skipped by plan: wipe_scratch")),
        v.toString());
  }
}
