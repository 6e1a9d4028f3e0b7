package dev.cotenant.gateway.probe;

import static dev.cotenant.gateway.probe.ScriptedSessions.arguments;
import static dev.cotenant.gateway.probe.ScriptedSessions.result;
import static dev.cotenant.gateway.probe.ScriptedSessions.text;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.api.ServerDescription;
import dev.cotenant.api.Transport;
import dev.cotenant.gateway.probe.ScriptedSessions.Scripted;
import dev.cotenant.gateway.probe.SurfaceReport.Outcome;
import dev.cotenant.gateway.probe.SurfaceReport.ToolResult;
import dev.cotenant.gateway.probe.SurfaceReport.ToolStatus;
import dev.cotenant.gateway.sandbox.Sandbox;
import dev.cotenant.spi.ProviderConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the whole-surface probe calls in each sandbox mode, over scripted servers and a stand-in
 * for bubblewrap (a script that runs what follows {@code --}): inside the sandbox destructive and
 * unannotated tools are called; a plan that allows the network has only read-only tools called;
 * {@code required} without a sandbox runs nothing; in every mode the tools that may write are
 * called before the read-only ones.
 */
class SurfaceProbeSandboxTest {
  private static final ServerDescription SERVER = new ServerDescription("scripted", Transport.STDIO, "scripted-server",
      List.of(), Optional.empty(), Map.of(), Optional.empty(), true);

  private static final Map<String, Object> HANDSHAKE = Map.of("protocolVersion", "2025-06-18", "capabilities",
      Map.of("tools", Map.of()), "serverInfo", Map.of("name", "scripted", "version", "1"));

  /** Listed in this order: a reader first, so that the writers-first order shows. */
  private static final List<Map<String, Object>> TOOLS = List.of(
      tool("read", Map.of("readOnlyHint", true)),
      tool("wipe", Map.of("readOnlyHint", false, "destructiveHint", true)),
      tool("plain", null),
      tool("write", Map.of("readOnlyHint", false, "destructiveHint", false)));

  @TempDir Path dir;

  private static Map<String, Object> tool(String name, Map<String, Object> annotations) {
    Map<String, Object> schema = Map.of("type", "object", "properties", Map.of("text", Map.of("type", "string")),
        "required", List.of("text"));
    return annotations == null
        ? Map.of("name", name, "inputSchema", schema)
        : Map.of("name", name, "inputSchema", schema, "annotations", annotations);
  }

  private static ScriptedSessions servers() {
    ScriptedSessions sessions = new ScriptedSessions(HANDSHAKE, (s, method, params) -> switch (method) {
      case "tools/list" -> result(Map.of("tools", TOOLS));
      case "tools/call" -> text("ok " + arguments(params).get("text"));
      default -> result(Map.of());
    });
    sessions.local = true;
    return sessions;
  }

  /** A stand-in for bubblewrap: answers {@code --version}, and otherwise runs what follows {@code --}. */
  private Path fakeBwrap() throws Exception {
    Path bwrap = dir.resolve("bwrap");
    Files.writeString(bwrap, """
        #!/bin/sh
        if [ "$1" = --version ]; then echo "fake-bwrap 1"; exit 0; fi
        while [ "$#" -gt 0 ] && [ "$1" != -- ]; do shift; done
        shift
        exec "$@"
        """);
    Files.setPosixFilePermissions(bwrap, PosixFilePermissions.fromString("rwx------"));
    return bwrap;
  }

  private Sandbox sandbox(String mode, String bwrap) {
    return Sandbox.fromConfig(ProviderConfig.of(Map.of(Sandbox.KEY, mode, Sandbox.BWRAP_KEY, bwrap)),
        Map.of("PATH", "/nonexistent"));
  }

  private static SurfaceReport run(ScriptedSessions sessions, Sandbox sandbox, ProbePlan plan) throws Exception {
    return SurfaceProbe.fromConfig(sessions, ProviderConfig.of(Map.of(SurfaceProbe.CALL_TIMEOUT_MS, "2000")), sandbox)
        .run(SERVER, "id", plan, 3);
  }

  private static ToolResult toolOf(SurfaceReport r, String name) {
    return r.tools().stream().filter(t -> t.name().equals(name)).findFirst().orElseThrow(() -> new AssertionError(r));
  }

  /** The tools one session was asked to call, in order. */
  private static List<Object> calls(Scripted s) {
    return s.requests.stream().filter(e -> e.getKey().equals("tools/call")).map(e -> e.getValue().get("name")).toList();
  }

  @Test
  void insideTheSandboxEveryToolIsCalledWritersFirstAndTheBackendsRunUnderItWithoutNetwork() throws Exception {
    ScriptedSessions sessions = servers();
    SurfaceReport r = run(sessions, sandbox("auto", fakeBwrap().toString()), ProbePlan.empty());
    assertTrue(r.sandbox().sandboxed(), r.toString());
    assertFalse(r.sandbox().network());
    assertEquals("fake-bwrap 1", r.sandbox().why());
    assertEquals(Outcome.PASSED, r.outcome(), r.toString());
    assertEquals(List.of("read", "wipe", "plain", "write"), r.exercised(), "reported in the order listed");
    for (Scripted s : sessions.opened) {
      assertEquals(fakeBwrap().toString(), s.server.command(), "started through bubblewrap");
      assertTrue(s.server.args().contains("--unshare-net"), s.server.args().toString());
      assertTrue(s.server.args().containsAll(List.of("--", "scripted-server")), s.server.args().toString());
      List<Object> calls = calls(s);
      if (s.label.equals("probe-annotations")) {
        assertEquals(List.of("read", "read"), calls, "only the read-only tool, twice, on a backend of its own");
        continue;
      }
      int perCaller = s.label.equals("probe-shared") ? 2 : 1;
      assertEquals(4 * 3 * perCaller, calls.size(), s.label);
      // Each round: the three tools that may write (in the order listed), then the reader.
      assertEquals("read", calls.get(3 * perCaller), calls.toString());
      assertFalse(calls.subList(0, 3 * perCaller).contains("read"), calls.toString());
    }
  }

  @Test
  void aPlanAllowingTheNetworkHasOnlyReadOnlyToolsCalledAndTheRestSkippedUnlessThePlanSkipsThem() throws Exception {
    ScriptedSessions sessions = servers();
    ProbePlan plan = ProbePlan.parse("plan", "{\"network\": true, \"tools\": {\"wipe\": {\"skip\": \"deletes files\"},"
        + " \"write\": {\"arguments\": {\"text\": \"{marker}\"}}}}");
    SurfaceReport r = run(sessions, sandbox("auto", fakeBwrap().toString()), plan);
    assertTrue(r.sandbox().network(), r.toString());
    assertEquals(ToolStatus.PASSED, toolOf(r, "read").status());
    assertEquals(ToolStatus.SKIPPED_BY_PLAN, toolOf(r, "wipe").status());
    for (String t : List.of("plain", "write")) {
      assertEquals(ToolStatus.SKIPPED, toolOf(r, t).status(), r.toString());
      assertTrue(toolOf(r, t).why().startsWith("the plan allows the network, so only tools annotated readOnlyHint: true"),
          toolOf(r, t).why());
    }
    assertEquals(Outcome.NOT_PROVEN, r.outcome());
    for (Scripted s : sessions.opened) {
      assertFalse(s.server.args().contains("--unshare-net"), s.server.args().toString());
      assertEquals(List.of("read"), calls(s).stream().distinct().toList());
    }
  }

  @Test
  void withoutASandboxDestructiveToolsAreSkippedAndSaySo() throws Exception {
    ScriptedSessions sessions = servers();
    SurfaceReport r = run(sessions, sandbox("auto", dir.resolve("no-such-bwrap").toString()), ProbePlan.empty());
    assertFalse(r.sandbox().sandboxed(), r.toString());
    assertTrue(r.sandbox().why().contains("no-such-bwrap could not be run"), r.sandbox().why());
    ToolResult wipe = toolOf(r, "wipe");
    assertEquals(ToolStatus.SKIPPED, wipe.status());
    assertTrue(wipe.why().startsWith("annotated destructiveHint: true, and no sandbox to call it in ("), wipe.why());
    assertEquals(List.of("read", "plain", "write"), r.exercised());
    for (Scripted s : sessions.opened) {
      assertEquals("scripted-server", s.server.command(), "started as configured");
      assertEquals(s.label.equals("probe-annotations") ? List.of("read") : List.of("plain", "write", "read"),
          calls(s).stream().distinct().toList(), "writers first without a sandbox too");
    }
  }

  @Test
  void aRequiredSandboxThatIsNotThereRunsNothing() throws Exception {
    ScriptedSessions sessions = servers();
    SurfaceReport r = run(sessions, sandbox("required", dir.resolve("no-such-bwrap").toString()), ProbePlan.empty());
    assertEquals(Outcome.NOT_RUN, r.outcome());
    assertTrue(r.notRunReason().orElseThrow().startsWith("no sandbox ("), r.notRunReason().orElseThrow());
    assertTrue(r.notRunReason().orElseThrow().endsWith("and cotenant.sandbox=required"), r.notRunReason().orElseThrow());
    assertEquals(List.of(), sessions.opened);
  }

  @Test
  void aTransportThatDoesNotRunTheCommandLocallyIsNeverWrapped() throws Exception {
    ScriptedSessions sessions = servers();
    sessions.local = false;
    SurfaceReport r = run(sessions, sandbox("auto", fakeBwrap().toString()), ProbePlan.empty());
    assertFalse(r.sandbox().sandboxed(), r.toString());
    assertEquals("the session transport in use starts servers itself, where this sandbox cannot contain them",
        r.sandbox().why());
    assertEquals(ToolStatus.SKIPPED, toolOf(r, "wipe").status());
    sessions.opened.forEach(s -> assertEquals("scripted-server", s.server.command()));
  }

  /** A tool that errs on the marker is tried with its description's example, on a backend of its own. */
  @Test
  void aToolThatAnswersAnErrorIsCalibratedWithTheNextCandidateOnABackendOfItsOwn() throws Exception {
    Map<String, Object> zone = Map.of("name", "zone", "annotations", Map.of("readOnlyHint", true), "inputSchema",
        Map.of("type", "object", "properties", Map.of("tz", Map.of("type", "string",
            "description", "IANA time zone, e.g. Asia/Tokyo")), "required", List.of("tz")));
    ScriptedSessions sessions = new ScriptedSessions(HANDSHAKE, (s, method, params) -> switch (method) {
      case "tools/list" -> result(Map.of("tools", List.of(zone)));
      case "tools/call" -> "Asia/Tokyo".equals(arguments(params).get("tz"))
          ? text("09:00 in Asia/Tokyo")
          : result(Map.of("content", List.of(Map.of("type", "text", "text", "unknown zone")), "isError", true));
      default -> result(Map.of());
    });
    SurfaceReport r = run(sessions, Sandbox.off(), ProbePlan.empty());
    assertEquals(Outcome.PASSED, r.outcome(), r.toString());
    assertTrue(toolOf(r, "zone").arguments().startsWith("schema, candidate 2 of 2 (the first that answered without an error)"),
        toolOf(r, "zone").arguments());
    List<String> pass = List.of("probe-dedicated-a", "probe-dedicated-b", "probe-calibration", "probe-annotations",
        "probe-shared", "probe-dedicated-a", "probe-dedicated-b");
    assertEquals(java.util.stream.Stream.concat(pass.stream(), pass.stream()).toList(),
        sessions.opened.stream().map(s -> s.label).toList(), "the pass as clients declaring nothing, then as capable ones");
    Scripted calibration = sessions.opened.get(2);
    assertEquals(2, calls(calibration).size(), "the marker, then the example");
    assertEquals(2, calls(sessions.opened.get(9)).size(), "the second pass calibrates afresh");
    for (Scripted s : sessions.opened) {
      if (!s.label.equals("probe-calibration")) {
        assertTrue(s.requests.stream().filter(e -> e.getKey().equals("tools/call"))
            .allMatch(e -> "Asia/Tokyo".equals(arguments(e.getValue()).get("tz"))), s.label);
      }
    }
  }

  /** A directory a read-only tool names becomes the path a tool that errs elsewhere is tried with. */
  @Test
  void aDirectoryAnotherToolReturnedIsTriedForAPathArgument() throws Exception {
    java.nio.file.Path allowed = java.nio.file.Files.createDirectories(dir.resolve("allowed"));
    Map<String, Object> roots = Map.of("name", "list_allowed", "annotations", Map.of("readOnlyHint", true),
        "inputSchema", Map.of("type", "object"));
    Map<String, Object> list = Map.of("name", "list", "annotations", Map.of("readOnlyHint", true), "inputSchema",
        Map.of("type", "object", "properties", Map.of("path", Map.of("type", "string")), "required", List.of("path")));
    ScriptedSessions sessions = new ScriptedSessions(HANDSHAKE, (s, method, params) -> switch (method) {
      case "tools/list" -> result(Map.of("tools", List.of(roots, list)));
      case "tools/call" -> "list_allowed".equals(params.get("name"))
          ? text("Allowed directories:\n" + allowed)
          : allowed.toString().equals(arguments(params).get("path"))
              ? text("[FILE] readme.txt")
              : result(Map.of("content", List.of(Map.of("type", "text", "text", "access denied")), "isError", true));
      default -> result(Map.of());
    });
    SurfaceReport r = run(sessions, Sandbox.off(), ProbePlan.empty());
    assertEquals(Outcome.PASSED, r.outcome(), r.toString());
    assertTrue(toolOf(r, "list").arguments().endsWith("{\"path\":\"" + allowed + "\"}"), toolOf(r, "list").arguments());
    Scripted calibration = sessions.opened.stream().filter(x -> x.label.equals("probe-calibration")).findFirst()
        .orElseThrow();
    assertEquals("list_allowed", calls(calibration).get(0), "the read-only tool without arguments is asked first");
  }
}
