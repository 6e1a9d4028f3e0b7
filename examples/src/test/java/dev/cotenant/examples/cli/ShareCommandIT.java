package dev.cotenant.examples.cli;

import static dev.cotenant.examples.cli.CotenantCliIT.cotenant;
import static dev.cotenant.examples.cli.CotenantCliIT.reasons;
import static dev.cotenant.examples.cli.CotenantCliIT.rows;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.examples.cli.CotenantCliIT.Run;
import dev.cotenant.testkit.process.ChecksProcessLeaks;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@code ./cotenant share NAME examples/mcp.json} over the real sample servers, run from the
 * repository root as a real process with a fresh records directory: a stateless server is shared
 * in one command (and {@code assess} agrees), a leaking one ends refuted with the probe's finding,
 * a server that shares already stops at the first step, and a destructive one without a sandbox
 * names the plan it needs, then shares with it. No process any of it started is left behind.
 */
@ChecksProcessLeaks(waitMillis = CotenantCliIT.EXIT_BOUND_MILLIS)
class ShareCommandIT {
  private static final JsonMapper JSON = JsonMapper.builder().build();

  @TempDir Path tmp;

  private String records() {
    return tmp.resolve("records").toString();
  }

  private static List<String> lines(Run r) {
    return r.out().lines().toList();
  }

  /** The step each line of standard output reports (the server's name on the last line). */
  private static List<String> steps(Run r) {
    return r.out().lines().filter(l -> !l.startsWith("  ")).map(l -> l.split("[: ]", 2)[0]).toList();
  }

  private JsonNode row(String name, String config) throws Exception {
    Run assess = cotenant("assess", config, "--json", "--records-dir", records());
    assertEquals(0, assess.code(), assess.err());
    JsonNode row = rows(assess.out()).get(name);
    assertTrue(row != null, assess.out());
    return row;
  }

  @Test
  void aStatelessServerIsSharedInOneCommandAndAShareAgainStopsAtTheFirstStep() throws Exception {
    Run share = cotenant("share", "workspace-keyed", "examples/mcp.json", "--records-dir", records());
    assertEquals(0, share.code(), share.out() + share.err());
    assertEquals(List.of("assess", "measure", "probe", "register", "verdict", "workspace-keyed"), steps(share), share.out());
    assertEquals("assess: reads unknown (not_probed)", lines(share).get(0));
    assertTrue(lines(share).get(2).startsWith("probe: passed: 3 of 3 tools exercised (100 %)"), share.out());
    assertTrue(lines(share).get(2).endsWith("clients declaring elicitation, roots, sampling: covered (they may share a "
        + "backend)"), "the pass as capable clients passed too: " + share.out());
    JsonNode surface = JSON.readTree(Files.readString(tmp.resolve("records/concurrency-records.json")))
        .path("servers").path("workspace-keyed").path("probe").path("surface");
    assertEquals("[\"elicitation\",\"roots\",\"sampling\"]", surface.path("clientCapabilities").toString(),
        "the record says which clients its evidence covers: " + surface);
    assertTrue(lines(share).get(3).startsWith("register: registered workspace-keyed: model shared, scope tenant, "
        + "maxConcurrent 2;"), share.out());
    assertEquals("workspace-keyed now shares one backend across sessions", lines(share).get(5));

    JsonNode row = row("workspace-keyed", "examples/mcp.json");
    assertEquals("declared", row.path("strength").stringValue(), row.toString());
    assertTrue(row.path("recommendShare").booleanValue(), row.toString());
    assertTrue(reasons(row).contains("registered_shared(tenant)"), row.toString());

    Run again = cotenant("share", "workspace-keyed", "examples/mcp.json", "--records-dir", records());
    assertEquals(0, again.code(), again.out() + again.err());
    assertEquals(List.of("assess", "workspace-keyed"), steps(again), again.out());
    assertTrue(lines(again).get(0).startsWith("assess: reads declared (registered_shared(tenant)"), again.out());
    assertEquals("workspace-keyed already shares one backend across sessions", lines(again).get(1));
    assertFalse(again.err().contains("measuring") || again.err().contains("probing"), again.err());
  }

  @Test
  void aLeakingServerEndsRefutedAndSaysWhatTheProbeSaw() throws Exception {
    Run share = cotenant("share", "global-state", "examples/mcp.json", "--records-dir", records());
    assertEquals(3, share.code(), share.out() + share.err());
    assertEquals(List.of("assess", "measure", "probe", "global-state"), steps(share), share.out());
    assertTrue(lines(share).get(2).startsWith("probe: HAZARD cross_session_leak: "), share.out());
    String last = lines(share).get(3);
    assertTrue(last.startsWith("global-state is not shared: the whole-surface probe saw cross_session_leak: "), last);
    assertTrue(last.contains("marker"), last);

    JsonNode row = row("global-state", "examples/mcp.json");
    assertEquals("refuted", row.path("strength").stringValue(), row.toString());
    assertTrue(reasons(row).contains("observed_hazard(cross_session_leak)"), row.toString());
    assertFalse(row.path("recommendShare").booleanValue());
  }

  @Test
  void withoutASandboxADestructiveToolNeedsAPlanWhichShareNamesAndThenTakes() throws Exception {
    Run share = cotenant("share", "destructive", "examples/mcp.json", "--records-dir", records(),
        "--set", "cotenant.sandbox=off", "--json");
    assertEquals(4, share.code(), share.out() + share.err());
    JsonNode o = JSON.readTree(share.out());
    assertFalse(o.path("shared").booleanValue());
    JsonNode probe = o.path("steps").path(2);
    assertEquals("probe", probe.path("step").stringValue(), o.toString());
    assertEquals("not_proven", probe.path("result").stringValue(), o.toString());
    assertEquals("wipe_scratch", probe.path("needsPlan").path(0).path("tool").stringValue(), o.toString());
    assertEquals(1, probe.path("needsPlan").size(), o.toString());
    assertEquals("{\"tools\":{\"wipe_scratch\":{\"include\":true}}}", probe.path("plan").toString());
    assertTrue(o.path("message").stringValue().contains("cotenant share destructive --plan FILE examples/mcp.json"),
        o.toString());

    Path plan = Files.writeString(tmp.resolve("plan.json"), probe.path("plan").toString());
    Run planned = cotenant("share", "destructive", "examples/mcp.json", "--records-dir", records(),
        "--set", "cotenant.sandbox=off", "--plan", plan.toString(), "--max-concurrent", "3");
    assertEquals(0, planned.code(), planned.out() + planned.err());
    assertEquals("measure: already measured under its current identity; not run again", lines(planned).get(1));
    assertTrue(lines(planned).get(3).contains("maxConcurrent 3;"), planned.out());
    assertEquals("destructive now shares one backend across sessions", lines(planned).get(5));
    assertEquals("declared", row("destructive", "examples/mcp.json").path("strength").stringValue());
  }

}
