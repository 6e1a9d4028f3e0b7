package dev.cotenant.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.api.HazardCode;
import dev.cotenant.gateway.probe.ProbeHarness;
import dev.cotenant.providers.records.FileConcurrencyRecords;
import dev.cotenant.providers.records.FileHazardLedger;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** {@code cotenant probe-stateless} and {@code cotenant register}, in-process, against scripted servers. */
class ProbeCommandsTest extends SpawningCliTest {
  private static final JsonMapper JSON = JsonMapper.builder().build();
  private static final String ARGS = "{\"target\": \"{marker}\", \"workspace\": \"{workspace}\"}";

  @BeforeEach
  void setUp() throws Exception {
    config("mcp.json", "echo");
  }

  @AfterEach
  void recordsWritableAgain() throws IOException {
    if (Files.isDirectory(cli.records)) {
      Files.setPosixFilePermissions(cli.records, PosixFilePermissions.fromString("rwx------"));
    }
  }

  /**
   * Makes the records directory refuse writes: created, then read-only ({@code chmod 500}). Where
   * permissions do not stop this user (root), a plain file takes the directory's place instead.
   */
  private void unwritableRecords() throws IOException {
    Files.createDirectories(cli.records);
    Files.setPosixFilePermissions(cli.records, PosixFilePermissions.fromString("r-x------"));
    try {
      Files.delete(Files.createTempFile(cli.records, "probe", ".tmp"));
    } catch (AccessDeniedException expected) {
      return;
    }
    Files.setPosixFilePermissions(cli.records, PosixFilePermissions.fromString("rwx------"));
    Files.delete(cli.records);
    Files.writeString(cli.records, "a file where the records directory should be");
  }

  /** Writes a config with one server per mode, each named after its mode; {@code extra} JVM args change the identity. */
  private void config(String file, String echoExtra) throws Exception {
    Map<String, Object> servers = new LinkedHashMap<>();
    for (String mode : List.of("echo", "global", "silent")) {
      List<String> args = new java.util.ArrayList<>(ProbeHarness.javaArgs(mode));
      if (mode.equals("echo") && !echoExtra.equals("echo")) {
        args.add(0, echoExtra);
      }
      servers.put(mode, Map.of("command", ProbeHarness.JAVA, "args", args));
    }
    servers.put("off", Map.of("command", ProbeHarness.JAVA, "args", ProbeHarness.javaArgs("echo"), "disabled", true));
    cli.write(file, JSON.writeValueAsString(Map.of("mcpServers", servers)));
  }

  private JsonNode row(String name) {
    return cli.row("mcp.json", name);
  }

  private static List<String> reasons(JsonNode row) {
    return CliHarness.reasons(row);
  }

  @Test
  void aPassPrintsEveryRoundsThreeAssertionsExitsZeroAndShowsInAssess() {
    CliHarness.Result r = cli.run("probe-stateless", "echo", "--tool", "remember", "--args", ARGS, "mcp.json");
    assertEquals(0, r.code(), r.err() + r.out());
    for (int n = 1; n <= 5; n++) {
      assertTrue(r.out().contains("round " + n + ": A alpha-" + n + "-"), r.out());
    }
    assertEquals(5, count(r.out(), "  A never sees B's marker: held"));
    assertEquals(5, count(r.out(), "  B never sees A's marker: held"));
    assertEquals(5, count(r.out(), "  each caller gets its own marker back: held"));
    assertTrue(r.out().contains("passed: echo kept every caller's marker to itself in 5 rounds"), r.out());
    assertTrue(reasons(row("echo")).contains("statelessness_probe_passed(remember x5)"), row("echo").toString());
  }

  @Test
  void aLeakExitsThreeNamesTheMarkerRecordsTheLedgerAndAssessReadsRefuted() {
    CliHarness.Result r = cli.run("probe-stateless", "global", "--tool", "remember", "--args", ARGS, "mcp.json");
    assertEquals(ProbeStatelessCommand.EXIT_LEAK, r.code(), r.err() + r.out());
    assertTrue(r.out().contains("  B never sees A's marker: FAILED: A's marker alpha-1-"), r.out());
    assertTrue(r.out().contains("LEAKED: one caller saw the other's marker; recorded cross_session_leak for global"), r.out());
    assertEquals(Set.of(HazardCode.CROSS_SESSION_LEAK), FileHazardLedger.open(cli.records).codesForName("global"));
    JsonNode row = row("global");
    assertEquals("refuted", row.path("strength").stringValue());
    assertTrue(reasons(row).contains("observed_hazard(cross_session_leak)"), row.toString());
  }

  @Test
  void aLeakThatCannotBeRecordedIsStillPrintedExitsThreeAndSaysWhyOnOneLine() throws IOException {
    unwritableRecords();

    CliHarness.Result r = cli.run("probe-stateless", "global", "--tool", "remember", "--args", ARGS, "mcp.json");

    assertEquals(ProbeStatelessCommand.EXIT_LEAK, r.code(), r.err() + r.out());
    for (int n = 1; n <= 5; n++) {
      assertTrue(r.out().contains("round " + n + ": A alpha-" + n + "-"), r.out());
    }
    assertTrue(r.out().contains("  B never sees A's marker: FAILED: A's marker alpha-1-"), r.out());
    assertTrue(r.out().contains("LEAKED: one caller saw the other's marker; recording it for global failed (see standard error)"),
        r.out());
    List<String> err = r.errLines();
    assertEquals(2, err.size(), r.err());
    assertTrue(err.get(0).startsWith("cotenant: probing global"), r.err());
    assertTrue(err.get(1).startsWith("cotenant: recording failed: cross_session_leak for global was not written to the "
        + "hazard ledger: "), r.err());
    assertTrue(err.get(1).contains(cli.records.toString()), "the line says why, naming the records: " + r.err());
  }

  @Test
  void aPassThatCannotBeRecordedIsStillPrintedAndExitsFive() throws IOException {
    unwritableRecords();

    CliHarness.Result text = cli.run("probe-stateless", "echo", "--tool", "remember", "--args", ARGS, "mcp.json");
    assertEquals(ProbeStatelessCommand.EXIT_NOT_RECORDED, text.code(), text.err() + text.out());
    assertEquals(5, count(text.out(), "  each caller gets its own marker back: held"), text.out());
    assertTrue(text.out().contains("passed: echo kept every caller's marker to itself in 5 rounds; recording the pass "
        + "failed (see standard error), so it is not remembered"), text.out());
    assertEquals(1, text.errLines().stream().filter(l -> l.startsWith("cotenant: recording failed: the pass of echo was "
        + "not written to the concurrency records: ")).count(), text.err());

    CliHarness.Result json = cli.run("probe-stateless", "echo", "--tool", "remember", "--args", ARGS, "--json", "mcp.json");
    assertEquals(ProbeStatelessCommand.EXIT_NOT_RECORDED, json.code(), json.err());
    JsonNode report = JSON.readTree(json.out());
    assertEquals("passed", report.path("outcome").stringValue());
    assertTrue(report.path("recorded").isNull(), report.toString());
    assertTrue(report.path("notRecorded").stringValue().startsWith("the pass of echo was not written"), report.toString());
    assertEquals(5, report.path("rounds").size());
  }

  @Test
  void aServerThatReturnsNothingProvesNothingAndRecordsNothing() {
    CliHarness.Result r = cli.run("probe-stateless", "silent", "--tool", "remember", "--args", ARGS, "--json", "mcp.json");
    assertEquals(ProbeStatelessCommand.EXIT_NOT_PROVEN, r.code(), r.err());
    JsonNode report = JSON.readTree(r.out());
    assertEquals("no_own_marker", report.path("outcome").stringValue());
    assertTrue(report.path("recorded").isNull());
    assertEquals(5, report.path("rounds").size());
    JsonNode third = report.path("rounds").get(0).path("assertions").get(2);
    assertEquals("each caller gets its own marker back", third.path("name").stringValue());
    assertFalse(third.path("held").booleanValue());
    assertEquals(Set.of(), FileHazardLedger.open(cli.records).codesForName("silent"));
    assertTrue(FileConcurrencyRecords.open(cli.records).get("silent").isEmpty());
  }

  @Test
  void fewerThanThreeRoundsAndBadArgumentsAreUsageErrorsOnOneLine() {
    CliHarness.Result two = cli.run("probe-stateless", "echo", "--tool", "remember", "--args", ARGS, "--rounds", "2", "mcp.json");
    assertEquals(2, two.code());
    assertEquals(List.of("cotenant: refusing a statelessness probe of 2 rounds: it needs at least 3 "
        + "(a race that fires once in five rounds is still a leak)"), two.errLines());
    CliHarness.Result json = cli.run("probe-stateless", "echo", "--tool", "remember", "--args", "[1]", "mcp.json");
    assertEquals(2, json.code());
    assertTrue(json.err().startsWith("cotenant: --args must be a JSON object"), json.err());
    CliHarness.Result unknown = cli.run("probe-stateless", "nope", "--tool", "t", "--args", ARGS, "mcp.json");
    assertEquals(2, unknown.code());
    assertTrue(unknown.err().startsWith("cotenant: no server named \"nope\""), unknown.err());
    CliHarness.Result off = cli.run("probe-stateless", "off", "--tool", "t", "--args", ARGS, "mcp.json");
    assertEquals(2, off.code());
    assertTrue(off.err().contains("a disabled server is never probed"), off.err());
    CliHarness.Result noTool = cli.run("probe-stateless", "echo", "--args", ARGS, "mcp.json");
    assertEquals(2, noTool.code());
    assertEquals(List.of("cotenant: --args needs --tool (the whole-surface probe takes each tool's arguments from its "
        + "inputSchema or from --plan)"), noTool.errLines());
    CliHarness.Result noArgs = cli.run("probe-stateless", "echo", "--tool", "remember", "mcp.json");
    assertEquals(2, noArgs.code());
    assertEquals(List.of("cotenant: --tool needs --args JSON (the tool's arguments, carrying {marker})"), noArgs.errLines());
    CliHarness.Result readBackArgs = cli.run("probe-stateless", "echo", "--tool", "remember", "--args", ARGS,
        "--read-back-args", "{}", "mcp.json");
    assertEquals(2, readBackArgs.code());
    assertEquals(List.of("cotenant: --read-back-args needs --read-back-tool"), readBackArgs.errLines());
    CliHarness.Result planWithTool = cli.run("probe-stateless", "echo", "--tool", "remember", "--args", ARGS,
        "--plan", "plan.json", "mcp.json");
    assertEquals(2, planWithTool.code());
    assertEquals(List.of("cotenant: --plan applies to the whole-surface probe; with --tool, give --args"),
        planWithTool.errLines());
    CliHarness.Result twoSurface = cli.run("probe-stateless", "echo", "--rounds", "2", "mcp.json");
    assertEquals(2, twoSurface.code());
    assertTrue(twoSurface.err().startsWith("cotenant: refusing a statelessness probe of 2 rounds"), twoSurface.err());
    CliHarness.Result noPlan = cli.run("probe-stateless", "echo", "--plan", "absent-plan.json", "mcp.json");
    assertEquals(2, noPlan.code());
    assertEquals(1, noPlan.errLines().size(), noPlan.err());
    assertTrue(noPlan.err().contains("absent-plan.json"), noPlan.err());
  }

  @Test
  void theWholeSurfaceIsTheDefaultAPassExitsZeroAndPrintsEachToolAndTheCoverage() throws Exception {
    CliHarness.Result r = cli.run("probe-stateless", "echo", "mcp.json");
    assertEquals(0, r.code(), r.out() + r.err());
    assertEquals(List.of("cotenant: probing the whole surface of echo, 3 rounds: two callers on dedicated backends, then on "
        + "one shared backend, then on dedicated backends again; when that passes, the same as clients declaring roots, "
        + "sampling and elicitation"), r.errLines());
    assertTrue(r.out().contains("clients declaring elicitation, roots, sampling: covered (they may share a backend)\n"),
        r.out());
    assertTrue(r.out().contains("tool remember: passed\n"), r.out());
    assertTrue(r.out().contains("  arguments from schema {\"target\":\"{marker}\",\"workspace\":\"{workspace}\"}\n"), r.out());
    assertTrue(r.out().contains("coverage: 1 of 1 tool exercised (100 %)\n"), r.out());
    assertTrue(r.out().contains("passed: echo kept every caller to itself across its whole surface; remembered as a "
        + "whole-surface statelessness_probe_passed under its current identity\n"), r.out());
    assertTrue(reasons(row("echo")).contains(
        "statelessness_probe_passed(whole surface: 1 tool x3, clients declaring elicitation, roots, sampling)"),
        row("echo").toString());
  }

  @Test
  void aWholeSurfaceLeakExitsThreeAndRecordsTheLedgerAndJsonSaysWhere() throws Exception {
    CliHarness.Result r = cli.run("probe-stateless", "global", "--json", "mcp.json");
    assertEquals(ProbeStatelessCommand.EXIT_LEAK, r.code(), r.out() + r.err());
    JsonNode o = JSON.readTree(r.out());
    assertEquals("hazard", o.path("outcome").stringValue());
    assertEquals("whole-surface", o.path("scope").stringValue());
    assertEquals("cross_session_leak", o.path("recorded").stringValue());
    assertEquals("cross_session_leak", o.path("hazards").path(0).path("code").stringValue());
    JsonNode remember = o.path("tools").path(0);
    assertEquals("remember", remember.path("name").stringValue());
    assertEquals("leaked", remember.path("status").stringValue());
    assertEquals("marker", remember.path("findings").path(0).path("kind").stringValue());
    assertEquals("$.result.content[0].text", remember.path("findings").path(0).path("path").stringValue());
    assertEquals("refuted", row("global").path("strength").stringValue());
  }

  @Test
  void registerSharedIsRefusedWithoutAPassUnderTheCurrentIdentityAndThenReadsDeclared() throws Exception {
    CliHarness.Result before = cli.run("register", "echo", "mcp.json", "--model", "shared", "--scope", "tenant", "--max-concurrent", "4");
    assertEquals(RegisterCommand.EXIT_REFUSED, before.code());
    assertEquals(List.of("cotenant: refusing to register echo as shared: no whole-surface statelessness probe has passed "
        + "for it; run `cotenant probe-stateless echo` first"), before.errLines());

    assertEquals(0, cli.run("probe-stateless", "echo", "--tool", "remember", "--args", ARGS, "mcp.json").code());
    CliHarness.Result oneTool = cli.run("register", "echo", "mcp.json", "--model", "shared", "--max-concurrent", "4");
    assertEquals(RegisterCommand.EXIT_REFUSED, oneTool.code());
    assertTrue(oneTool.err().contains("its statelessness probe covered one tool (remember x5)"), oneTool.err());

    assertEquals(0, cli.run("probe-stateless", "echo", "mcp.json").code());
    CliHarness.Result noMax = cli.run("register", "echo", "mcp.json", "--model", "shared");
    assertEquals(RegisterCommand.EXIT_REFUSED, noMax.code());
    assertTrue(noMax.err().contains("without maxConcurrent"), noMax.err());

    CliHarness.Result ok = cli.run("register", "echo", "mcp.json", "--model", "shared", "--scope", "tenant", "--max-concurrent", "4");
    assertEquals(0, ok.code(), ok.err());
    assertEquals("registered echo: model shared, scope tenant, maxConcurrent 4; statelessness probe passed under the "
        + "current identity (whole surface: 1 tool x3, clients declaring elicitation, roots, sampling)", ok.out().strip());
    JsonNode row = row("echo");
    assertEquals("declared", row.path("strength").stringValue(), row.toString());
    assertTrue(reasons(row).contains("registered_shared(tenant)"), row.toString());
    assertTrue(row.path("recommendShare").booleanValue());
    // A seed reports the server as wanting sharing, and leaves the switch to the operator.
    JsonNode seed = JSON.readTree(cli.run("seed", "--config", "mcp.json", "--json").out());
    assertEquals("echo", seed.path("wantsShare").path(0).stringValue(), seed.toString());

    // The same name launched differently is another identity: not probed, refused, and not declared.
    config("mcp.json", "-Dcotenant.test.flavour=2");
    CliHarness.Result changed = cli.run("register", "echo", "mcp.json", "--model", "shared", "--max-concurrent", "4", "--json");
    assertEquals(RegisterCommand.EXIT_REFUSED, changed.code());
    assertTrue(changed.err().contains("passed under another launch identity"), changed.err());
    assertFalse(reasons(row("echo")).contains("registered_shared(tenant)"));
  }

  @Test
  void registerTakesOtherModelsWithoutAProbeAndRefusesUnknownOnes() {
    CliHarness.Result warm = cli.run("register", "echo", "mcp.json", "--model", "warm_pool", "--max-concurrent", "2", "--json");
    assertEquals(0, warm.code(), warm.err());
    JsonNode o = JSON.readTree(warm.out());
    assertEquals("warm_pool", o.path("model").stringValue());
    assertEquals(2, o.path("maxConcurrent").intValue());
    assertTrue(o.path("probe").isNull());
    CliHarness.Result bad = cli.run("register", "echo", "mcp.json", "--model", "pooled");
    assertEquals(2, bad.code());
    assertEquals(List.of("cotenant: --model must be one of sidecar, shared, warm_pool; got 'pooled'"), bad.errLines());
    CliHarness.Result badScope = cli.run("register", "echo", "mcp.json", "--model", "shared", "--scope", "world");
    assertEquals(2, badScope.code());
    assertEquals(List.of("cotenant: --scope must be one of tenant, global; got 'world'"), badScope.errLines());
  }

  @Test
  void everyRowSaysWhereANewSessionGoesAndAForcedServerSaysForced() throws Exception {
    CliHarness.Result plain = cli.run("assess", "--json", "mcp.json");
    for (JsonNode row : JSON.readTree(plain.out()).path("servers")) {
      assertEquals("dedicated", row.path("placement").stringValue(), row.toString());
      assertFalse(row.path("forced").booleanValue(), row.toString());
    }
    CliHarness.Result forced = cli.run("assess", "--json", "--set", "cotenant.sharing.forced=echo", "mcp.json");
    JsonNode echo = null;
    for (JsonNode row : JSON.readTree(forced.out()).path("servers")) {
      if (row.path("name").stringValue().equals("echo")) {
        echo = row;
      }
    }
    assertEquals("shared", echo.path("placement").stringValue(), echo.toString());
    assertTrue(echo.path("forced").booleanValue(), echo.toString());
    CliHarness.Result table = cli.run("assess", "--set", "cotenant.sharing.forced=echo", "mcp.json");
    assertTrue(table.out().lines().anyMatch(l -> l.startsWith("echo ") && l.contains(" forced ")), table.out());
    CliHarness.Result bad = cli.run("assess", "--set", "cotenant.sharing.enabled=yes", "mcp.json");
    assertEquals(2, bad.code(), bad.err() + bad.out());
    assertEquals(List.of("cotenant: cotenant.sharing.enabled must be true or false, got 'yes'"), bad.errLines());
  }

  private static int count(String text, String needle) {
    int n = 0;
    for (int i = text.indexOf(needle); i >= 0; i = text.indexOf(needle, i + 1)) {
      n++;
    }
    return n;
  }
}
