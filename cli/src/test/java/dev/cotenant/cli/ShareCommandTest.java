package dev.cotenant.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.gateway.probe.ProbeHarness;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@code cotenant share}, in-process, against scripted servers (the pre-flight is the harness's
 * fake; the probe spawns the servers for real): each step says what it found, a stateless server
 * ends shared, a leaking one refuted with the probe's finding, and a server that shares already
 * stops at the first step.
 */
class ShareCommandTest extends SpawningCliTest {
  private static final JsonMapper JSON = JsonMapper.builder().build();

  @BeforeEach
  void setUp() throws Exception {
    Map<String, Object> more = new LinkedHashMap<>();
    more.put("off", Map.of("command", ProbeHarness.JAVA, "args", ProbeHarness.javaArgs("echo"), "disabled", true));
    more.put("remote", Map.of("type", "http", "url", "http://127.0.0.1:9/mcp"));
    cli.writeProbeServers("mcp.json", List.of("echo", "global"), more);
  }

  private JsonNode row(String name) {
    return cli.row("mcp.json", name);
  }

  private static List<String> reasons(JsonNode row) {
    return CliHarness.reasons(row);
  }

  /** The first word of each line of standard output: the step it reports, then the server's name. */
  private static List<String> steps(CliHarness.Result r) {
    return r.out().lines().map(l -> l.split("[: ]", 2)[0]).toList();
  }

  @Test
  void aStatelessServerGoesFromNothingToSharedInOneCommandAndThenStopsAtTheFirstStep() {
    CliHarness.Result r = cli.run("share", "echo", "mcp.json");
    assertEquals(0, r.code(), r.out() + r.err());
    assertEquals(List.of("assess", "measure", "probe", "register", "verdict", "echo"), steps(r), r.out());
    List<String> lines = r.out().lines().toList();
    assertEquals("assess: reads unknown (not_probed)", lines.get(0));
    assertTrue(lines.get(1).startsWith("measure: now reads measured (preflight_passed"), lines.get(1));
    assertTrue(lines.get(2).startsWith("probe: passed: 1 of 1 tool exercised (100 %), 3 rounds, nothing crossed"), lines.get(2));
    assertEquals("register: registered echo: model shared, scope tenant, maxConcurrent 2; statelessness probe passed under "
        + "the current identity (whole surface: 1 tool x3, clients declaring elicitation, roots, sampling); maxConcurrent 2 is the default (--max-concurrent N changes it)",
        lines.get(3));
    assertTrue(lines.get(4).startsWith("verdict: now reads declared (registered_shared(tenant)"), lines.get(4));
    assertEquals("echo now shares one backend across sessions", lines.get(5));
    assertTrue(r.err().contains("cotenant: probing the whole surface of echo, 3 rounds"), r.err());

    JsonNode row = row("echo");
    assertEquals("declared", row.path("strength").stringValue(), row.toString());
    assertTrue(row.path("recommendShare").booleanValue());
    assertTrue(reasons(row).contains("registered_shared(tenant)"), row.toString());

    // Already shared: the first step says so, and nothing is measured, probed or registered again.
    int preflights = cli.transport.calls.get("echo").get();
    CliHarness.Result again = cli.run("share", "echo", "mcp.json");
    assertEquals(0, again.code(), again.out() + again.err());
    assertEquals(List.of("assess", "echo"), steps(again), again.out());
    assertTrue(again.out().startsWith("assess: reads declared (registered_shared(tenant), preflight_passed, "), again.out());
    assertTrue(again.out().endsWith("statelessness_probe_passed(whole surface: 1 tool x3, clients declaring elicitation, roots, sampling))\n"
        + "echo already shares one backend across sessions\n"), again.out());
    assertEquals("", again.err());
    assertEquals(preflights, cli.transport.calls.get("echo").get());
  }

  @Test
  void aLeakingServerEndsRefutedWithTheProbesFindingAndExitsThree() {
    CliHarness.Result r = cli.run("share", "global", "mcp.json", "--max-concurrent", "8");
    assertEquals(ShareCommand.EXIT_REFUTED, r.code(), r.out() + r.err());
    assertEquals(List.of("assess", "measure", "probe", "global"), steps(r), r.out());
    List<String> lines = r.out().lines().toList();
    assertTrue(lines.get(2).startsWith("probe: HAZARD cross_session_leak: "), lines.get(2));
    assertTrue(lines.get(2).endsWith("; recorded in the hazard ledger"), lines.get(2));
    assertTrue(lines.get(3).startsWith("global is not shared: the whole-surface probe saw cross_session_leak: "), lines.get(3));
    assertTrue(lines.get(3).contains("marker"), lines.get(3));
    JsonNode row = row("global");
    assertEquals("refuted", row.path("strength").stringValue(), row.toString());
    assertFalse(row.path("recommendShare").booleanValue());

    // Refuted: the next share stops at the first step, spawning nothing.
    CliHarness.Result again = cli.run("share", "global", "mcp.json");
    assertEquals(ShareCommand.EXIT_REFUTED, again.code(), again.out() + again.err());
    assertEquals(List.of("assess", "global"), steps(again), again.out());
    assertTrue(again.out().contains("global is not shared: a hazard was observed under its current launch identity "
        + "(observed_hazard(cross_session_leak))"), again.out());
  }

  @Test
  void jsonIsOneDocumentWithEveryStepAndTheFinalRow() {
    CliHarness.Result r = cli.run("share", "echo", "mcp.json", "--json", "--max-concurrent", "3");
    assertEquals(0, r.code(), r.out() + r.err());
    assertEquals(1, r.out().lines().count(), r.out());
    JsonNode o = JSON.readTree(r.out());
    assertEquals("echo", o.path("name").stringValue());
    assertTrue(o.path("shared").booleanValue());
    assertEquals("echo now shares one backend across sessions", o.path("message").stringValue());
    List<String> results = new ArrayList<>();
    o.path("steps").forEach(s -> results.add(s.path("step").stringValue() + "=" + s.path("result").stringValue()));
    assertEquals(List.of("assess=unknown", "measure=measured", "probe=passed", "register=registered", "verdict=declared"),
        results);
    assertEquals(3, o.path("steps").path(3).path("record").path("maxConcurrent").intValue(), o.toString());
    assertEquals("declared", o.path("server").path("strength").stringValue());
    assertTrue(o.path("server").path("recommendShare").booleanValue());
  }

  @Test
  void aRemoteServerStopsAtTheFirstStepAndBadOptionsAreUsageErrors() {
    CliHarness.Result remote = cli.run("share", "remote", "mcp.json");
    assertEquals(ShareCommand.EXIT_NOT_SHARED, remote.code(), remote.out() + remote.err());
    assertEquals(List.of("assess: reads disqualified (not_stdio(http))",
        "remote is not shared: it cannot share a backend (not_stdio(http))"), remote.out().lines().toList());

    CliHarness.Result off = cli.run("share", "off", "mcp.json");
    assertEquals(Cli.EXIT_USAGE, off.code());
    assertTrue(off.err().contains("off is disabled in mcp.json"), off.err());
    CliHarness.Result zero = cli.run("share", "echo", "mcp.json", "--max-concurrent", "0");
    assertEquals(Cli.EXIT_USAGE, zero.code());
    assertTrue(zero.err().contains("--max-concurrent must be a positive integer"), zero.err());
    CliHarness.Result two = cli.run("share", "echo", "mcp.json", "--rounds", "2");
    assertEquals(Cli.EXIT_USAGE, two.code());
    CliHarness.Result none = cli.run("share", "nobody", "mcp.json");
    assertEquals(Cli.EXIT_USAGE, none.code());
    assertTrue(none.err().contains("no server named \"nobody\" in mcp.json"), none.err());
    assertEquals(null, cli.transport.calls.get("echo"));
  }
}
