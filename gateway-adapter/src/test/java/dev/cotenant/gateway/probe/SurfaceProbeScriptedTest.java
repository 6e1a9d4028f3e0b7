package dev.cotenant.gateway.probe;

import static dev.cotenant.gateway.probe.ScriptedSessions.arguments;
import static dev.cotenant.gateway.probe.ScriptedSessions.error;
import static dev.cotenant.gateway.probe.ScriptedSessions.result;
import static dev.cotenant.gateway.probe.ScriptedSessions.text;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.api.HazardCode;
import dev.cotenant.api.SecretPatterns;
import dev.cotenant.api.ServerDescription;
import dev.cotenant.api.Transport;
import dev.cotenant.gateway.probe.ScriptedSessions.Scripted;
import dev.cotenant.gateway.probe.SurfaceReport.Finding;
import dev.cotenant.gateway.probe.SurfaceReport.FindingKind;
import dev.cotenant.gateway.probe.SurfaceReport.ListingResult;
import dev.cotenant.gateway.probe.SurfaceReport.Outcome;
import dev.cotenant.gateway.probe.SurfaceReport.ToolResult;
import dev.cotenant.gateway.probe.SurfaceReport.ToolStatus;
import dev.cotenant.spi.HandshakeEra;
import dev.cotenant.spi.ProviderConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The whole-surface probe over scripted servers in this JVM ({@link ScriptedSessions}): the
 * corners of its bookkeeping that the process-backed {@link SurfaceProbeTest} leaves unchecked.
 * Each test names the mutant of {@link SurfaceProbe} it kills.
 */
class SurfaceProbeScriptedTest {
  private static final Map<String, Object> ECHO = Map.of("name", "echo", "inputSchema", Map.of("type", "object",
      "properties", Map.of("text", Map.of("type", "string")), "required", List.of("text")));

  private static final Map<String, Object> TOOLS = Map.of("tools", Map.of());

  private static final ServerDescription SERVER = new ServerDescription("scripted", Transport.STDIO, "scripted-server",
      List.of(), Optional.empty(), Map.of(), Optional.empty(), true);

  private static Map<String, Object> handshake(Map<String, Object> capabilities) {
    return Map.of("protocolVersion", "2025-06-18", "capabilities", capabilities,
        "serverInfo", Map.of("name", "scripted", "version", "1"));
  }

  private static SurfaceProbe probe(ScriptedSessions sessions) {
    return new SurfaceProbe(sessions, HandshakeEra.INITIALIZE, Duration.ofSeconds(5), Duration.ofMillis(300),
        Duration.ofSeconds(30), Set.of(), SecretPatterns.defaults());
  }

  private static SurfaceReport run(ScriptedSessions sessions) throws InterruptedException {
    return probe(sessions).run(SERVER, "id-scripted", ProbePlan.empty(), 3);
  }

  /** Tools {@code tools} listed, {@code echo} answering its text, anything else an empty result. */
  private static ScriptedSessions.Script echo(List<Map<String, Object>> tools) {
    return (s, method, params) -> switch (method) {
      case "tools/list" -> result(Map.of("tools", tools));
      case "tools/call" -> text(String.valueOf(arguments(params).get("text")));
      default -> result(Map.of());
    };
  }

  private static ToolResult tool(SurfaceReport r, String name) {
    return r.tools().stream().filter(t -> t.name().equals(name)).findFirst().orElseThrow(() -> new AssertionError(r));
  }

  private static ListingResult listing(SurfaceReport r, String method) {
    return r.listings().stream().filter(l -> l.method().equals(method)).findFirst().orElseThrow(() -> new AssertionError(r));
  }

  private static long sent(Scripted s, String method) {
    return s.requests.stream().filter(e -> e.getKey().equals(method)).count();
  }

  /**
   * Five backends (two dedicated, one shared, two dedicated) per pass, and two passes (as clients
   * declaring nothing, then as clients declaring roots, sampling and elicitation), each closed
   * once the probe ends, and each in a scratch directory of its own that is gone afterwards. Kills
   * {@code phase} without its close: the backends of one phase would still run when the next
   * phase starts.
   */
  @Test
  void aStatelessScriptedServerPassesOnFiveBackendsEachClosedInItsOwnScratchDirectory() throws Exception {
    ScriptedSessions sessions = new ScriptedSessions(handshake(TOOLS), echo(List.of(ECHO)));
    SurfaceReport r = run(sessions);
    assertEquals(Outcome.PASSED, r.outcome(), r.toString());
    List<String> pass = List.of("probe-dedicated-a", "probe-dedicated-b", "probe-shared", "probe-dedicated-a",
        "probe-dedicated-b");
    assertEquals(java.util.stream.Stream.concat(pass.stream(), pass.stream()).toList(),
        sessions.opened.stream().map(s -> s.label).toList());
    assertEquals(List.of(), sessions.opened.subList(0, 5).stream().flatMap(s -> s.capabilities.keySet().stream()).toList(),
        "the first pass declares no client capability");
    for (Scripted s : sessions.opened.subList(5, 10)) {
      assertEquals(Set.of("roots", "sampling", "elicitation"), s.capabilities.keySet(), s.label);
    }
    assertTrue(r.clients().covered(), r.clients().toString());
    for (Scripted s : sessions.opened) {
      assertTrue(s.closed, s.label + " closed");
      Path cwd = Path.of(s.server.cwd().orElseThrow());
      assertTrue(cwd.getParent().getFileName().toString().startsWith("cotenant-probe-"), cwd.toString());
      assertTrue(cwd.getFileName().toString().startsWith("backend-"), cwd.toString());
      assertFalse(Files.exists(cwd), "the scratch directory " + cwd + " is removed");
      assertFalse(Files.exists(cwd.getParent()), "the probe's scratch root " + cwd.getParent() + " is removed");
      assertEquals(s.label.equals("probe-shared") ? 6 : 3, sent(s, "tools/call"), "one call per caller and round");
    }
    assertEquals(10, sessions.opened.stream().map(s -> s.server.cwd().orElseThrow()).distinct().count());
    assertEquals(2, sessions.opened.stream().map(s -> Path.of(s.server.cwd().orElseThrow()).getParent()).distinct().count(),
        "one scratch root per pass");
    assertEquals("sandbox: none (this probe was built without a sandbox); destructive tools are not called",
        r.sandbox().describe());
    assertEquals(List.of(0L, 1L, 0L, 0L, 1L, 0L, 1L, 0L, 0L, 1L), sessions.stillOpen,
        "each phase's backends are closed before the next opens");
    assertEquals(List.of("tools/list"), r.listings().stream().map(ListingResult::method).toList(),
        "only the listings the server advertises");
  }

  /**
   * Every run writes markers and workspace values no earlier run wrote, so what a server kept
   * from an earlier probe (a file, a store outside the process) cannot hand a caller "its" marker
   * without this run's call reaching it. Mutant: {@code hex} without {@code SecureRandom.nextBytes}
   * (every nonce and suffix all zero, the same in every run).
   */
  @Test
  void everyRunWritesMarkersAndWorkspacesNoEarlierRunWrote() throws Exception {
    ScriptedSessions first = new ScriptedSessions(handshake(TOOLS), echo(List.of(ECHO)));
    ScriptedSessions second = new ScriptedSessions(handshake(TOOLS), echo(List.of(ECHO)));
    assertEquals(Outcome.PASSED, run(first).outcome());
    assertEquals(Outcome.PASSED, run(second).outcome());
    Set<String> written = texts(first);
    assertEquals(12, written.size(), "two callers' markers in three rounds, the same on the dedicated and the shared "
        + "backends, and fresh ones in the pass as capable clients: " + written);
    Set<String> again = texts(second);
    again.retainAll(written);
    assertEquals(Set.of(), again);
  }

  /** The {@code text} arguments of every {@code tools/call} the backends of {@code sessions} were sent. */
  private static Set<String> texts(ScriptedSessions sessions) {
    Set<String> texts = new HashSet<>();
    for (Scripted s : sessions.opened) {
      s.requests.stream().filter(r -> r.getKey().equals("tools/call"))
          .forEach(r -> texts.add(String.valueOf(arguments(r.getValue()).get("text"))));
    }
    return texts;
  }

  /** A server whose configuration names a working directory keeps it. */
  @Test
  void aConfiguredWorkingDirectoryIsKept(@TempDir Path dir) throws Exception {
    ScriptedSessions sessions = new ScriptedSessions(handshake(TOOLS), echo(List.of(ECHO)));
    SurfaceReport r = probe(sessions).run(SERVER.withCwd(Optional.of(dir.toString())), "id", ProbePlan.empty(), 3);
    assertEquals(Outcome.PASSED, r.outcome(), r.toString());
    for (Scripted s : sessions.opened) {
      assertEquals(Optional.of(dir.toString()), s.server.cwd());
    }
    assertTrue(Files.isDirectory(dir), "the configured directory is the operator's, never removed");
  }

  /**
   * Kills the JSON-RPC error branch of {@code dedicatedError} (negated, or returning empty): a
   * tool that answers every call with an error was exercised by nobody, so it proves nothing.
   */
  @Test
  void aToolAnsweringAJsonRpcErrorOnADedicatedBackendProvesNothing() throws Exception {
    ScriptedSessions sessions = new ScriptedSessions(handshake(TOOLS), (s, method, params) -> switch (method) {
      case "tools/list" -> result(Map.of("tools", List.of(ECHO)));
      case "tools/call" -> error(-32602, "unknown argument text");
      default -> result(Map.of());
    });
    SurfaceReport r = run(sessions);
    assertEquals(Outcome.NOT_PROVEN, r.outcome(), r.toString());
    ToolResult echo = tool(r, "echo");
    assertEquals(ToolStatus.NOT_PROVEN, echo.status());
    assertTrue(echo.why().startsWith("answered a JSON-RPC error on a dedicated backend: {"), echo.why());
    assertTrue(echo.why().contains("unknown argument text"), echo.why());
    assertTrue(echo.why().endsWith("; give it arguments in a plan, or skip it with a reason"), echo.why());
  }

  /**
   * Kills {@code compare}'s kind chosen without {@code sharedLostCalls} and {@code observation}
   * returning true: once the shared backend lost a call, a counter's differing answers are
   * unconfirmed (the lost call may have moved it), so no hazard is recorded and nothing passes.
   */
  @Test
  void aDifferenceAfterTheSharedBackendLostACallIsUnconfirmedNeverAHazardNorAPass() throws Exception {
    ScriptedSessions sessions = new ScriptedSessions(handshake(TOOLS), (s, method, params) -> switch (method) {
      case "tools/list" -> result(Map.of("tools", List.of(tool("stall"), tool("count"))));
      case "tools/call" -> "stall".equals(params.get("name"))
          ? (s.label.equals("probe-shared") ? null : text("ok"))
          : text("call " + s.next("count"));
      default -> result(Map.of());
    });
    SurfaceReport r = run(sessions);
    assertEquals(Map.of(), r.hazards(), r.toString());
    assertEquals(Outcome.NOT_PROVEN, r.outcome(), r.toString());
    ToolResult count = tool(r, "count");
    assertEquals(ToolStatus.NOT_PROVEN, count.status(), r.toString());
    assertEquals("its answers differed after the shared backend had lost a call, which proves nothing", count.why());
    assertTrue(count.findings().stream().allMatch(f -> f.kind() == FindingKind.UNCONFIRMED), count.findings().toString());
    assertFalse(count.findings().isEmpty());
    ToolResult stall = tool(r, "stall");
    assertEquals(ToolStatus.NOT_PROVEN, stall.status());
    assertTrue(stall.why().startsWith("no answer in 300 ms (cotenant.probe.call-timeout-ms) to "), stall.why());
    assertTrue(stall.why().endsWith("in round 1 on the shared backend"), stall.why());
    assertEquals(2, sessions.opened.get(2).requests.stream().filter(e -> "stall".equals(e.getValue().get("name"))).count(),
        "stall was called in round 1 by both callers, then never again");
  }

  /**
   * Kills {@code MAX_PAGES} at {@code <=} in {@code pages}: a server whose every page names a next
   * one is followed ten pages and no further, in each listing of each round, and what the pages
   * hold is merged.
   */
  @Test
  void aListingIsFollowedForTenPagesAtMost() throws Exception {
    ScriptedSessions sessions = new ScriptedSessions(handshake(Map.of("tools", Map.of(), "prompts", Map.of())),
        (s, method, params) -> switch (method) {
          case "tools/list" -> result(Map.of("tools", List.of(ECHO)));
          case "tools/call" -> text(String.valueOf(arguments(params).get("text")));
          case "prompts/list" -> {
            int page = Integer.parseInt(String.valueOf(params.getOrDefault("cursor", "0")));
            yield result(Map.of("prompts", List.of(Map.of("name", "p" + page)), "nextCursor", String.valueOf(page + 1)));
          }
          default -> result(Map.of());
        });
    SurfaceReport r = run(sessions);
    assertEquals(Outcome.PASSED, r.outcome(), r.toString());
    for (Scripted s : sessions.opened) {
      assertEquals((s.label.equals("probe-shared") ? 2 : 1) * 4 * SurfaceProbe.MAX_PAGES, sent(s, "prompts/list"),
          s.label + ": ten pages in each of round 0 and three rounds, per caller");
    }
    assertFalse(listing(r, "prompts/list").leaked());
  }

  /**
   * Kills {@code MAX_READS} at {@code <=} or ignored in {@code listings}: of the resources that
   * appeared since a caller's first listing (here twenty, made by the first tool call), sixteen are
   * read per round; a resource listed from the start is never read.
   */
  @Test
  void sixteenNewResourcesAreReadPerCallerAndRoundAndNoneListedFromTheStart() throws Exception {
    ScriptedSessions sessions = new ScriptedSessions(handshake(Map.of("tools", Map.of(), "resources", Map.of())),
        (s, method, params) -> switch (method) {
          case "tools/list" -> result(Map.of("tools", List.of(ECHO)));
          case "tools/call" -> {
            s.state.put("called", true);
            yield text(String.valueOf(arguments(params).get("text")));
          }
          case "resources/list" -> {
            List<Map<String, Object>> listed = new java.util.ArrayList<>(List.of(Map.of("uri", "fixed://start")));
            if (s.state.containsKey("called")) {
              for (int i = 0; i < 20; i++) {
                listed.add(Map.of("uri", "made://" + i));
              }
            }
            yield result(Map.of("resources", listed));
          }
          case "resources/read" -> result(Map.of("contents", List.of(Map.of("uri", params.get("uri"), "text", "same"))));
          default -> result(Map.of());
        });
    SurfaceReport r = run(sessions);
    assertEquals(Outcome.PASSED, r.outcome(), r.toString());
    Scripted first = sessions.opened.get(0);
    assertEquals(3 * SurfaceProbe.MAX_READS, sent(first, "resources/read"));
    assertTrue(first.requests.stream().filter(e -> e.getKey().equals("resources/read"))
        .allMatch(e -> e.getValue().get("uri").toString().startsWith("made://")), "fixed://start was there from the start");
    assertEquals(Set.of("made://0", "made://15"), first.requests.stream().filter(e -> e.getKey().equals("resources/read"))
        .map(e -> e.getValue().get("uri").toString()).filter(u -> u.equals("made://0") || u.endsWith("15") || u.endsWith("16"))
        .collect(java.util.stream.Collectors.toSet()), "the first sixteen, in listing order");
    assertFalse(listing(r, "resources/read").leaked());
  }

  /**
   * Kills {@code add}'s bound ({@code MAX_FINDINGS} at {@code <=} or ignored): a counter probed
   * for five rounds differs for both callers in every round, ten findings, of which eight are kept.
   */
  @Test
  void eightFindingsAreKeptPerTool() throws Exception {
    ScriptedSessions sessions = new ScriptedSessions(handshake(TOOLS), (s, method, params) -> switch (method) {
      case "tools/list" -> result(Map.of("tools", List.of(tool("count"))));
      case "tools/call" -> text("call " + s.next("count"));
      default -> result(Map.of());
    });
    SurfaceReport r = probe(sessions).run(SERVER, "id", ProbePlan.empty(), 5);
    assertEquals(Outcome.HAZARD, r.outcome(), r.toString());
    ToolResult count = tool(r, "count");
    assertEquals(ToolStatus.LEAKED, count.status());
    assertEquals(SurfaceProbe.MAX_FINDINGS, count.findings().size(), count.findings().toString());
    assertTrue(count.findings().stream().allMatch(f -> f.kind() == FindingKind.CHANGED_ANSWER));
    assertTrue(r.hazards().get(HazardCode.CROSS_SESSION_LEAK).startsWith("A's answer to count on the shared backend differs "
        + "from a dedicated backend's at "), r.hazards().toString());
  }

  /** Kills the refusal of an error answer to the first {@code tools/list} (negated or removed). */
  @Test
  void aToolListingThatAnswersAnErrorStopsTheProbeUnproven() throws Exception {
    ScriptedSessions sessions = new ScriptedSessions(handshake(TOOLS), (s, method, params) -> error(-32601, "no tools here"));
    SurfaceReport r = run(sessions);
    assertEquals(Outcome.NOT_RUN, r.outcome(), r.toString());
    assertTrue(r.notRunReason().orElseThrow().startsWith("tools/list answered an error: {"), r.toString());
    assertTrue(r.notRunReason().orElseThrow().contains("no tools here"), r.toString());
    assertTrue(sessions.opened.stream().allMatch(x -> x.closed), "every backend opened is closed");
  }

  /**
   * Kills the {@code continue}s of {@code decide} for a repeated name and an entry that is no
   * tool: a tool listed twice is called once per round, an entry without a string name is left out.
   */
  @Test
  void aToolListedTwiceIsCalledOnceAndAnEntryWithoutANameIsLeftOut() throws Exception {
    ScriptedSessions sessions = new ScriptedSessions(handshake(TOOLS), echo(List.of(ECHO, ECHO, Map.of("name", 7))));
    SurfaceReport r = run(sessions);
    assertEquals(Outcome.PASSED, r.outcome(), r.toString());
    assertEquals(List.of("echo"), r.tools().stream().map(ToolResult::name).toList());
    assertEquals(3, sent(sessions.opened.get(0), "tools/call"));
  }

  /** 1 ms is a limit, 0 and below are refused by name, as is a value that is not a number (ProviderConfig.getMillis). */
  @Test
  void theCallTimeoutAndBudgetArePositiveMilliseconds() {
    ScriptedSessions sessions = new ScriptedSessions(handshake(TOOLS), echo(List.of(ECHO)));
    SurfaceProbe.fromConfig(sessions, ProviderConfig.of(Map.of(SurfaceProbe.CALL_TIMEOUT_MS, "1", SurfaceProbe.BUDGET_MS, " 1 ")));
    for (String bad : List.of("0", "-5", "ten")) {
      for (String key : List.of(SurfaceProbe.BUDGET_MS, SurfaceProbe.CALL_TIMEOUT_MS)) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> SurfaceProbe.fromConfig(sessions, ProviderConfig.of(Map.of(key, bad))));
        assertEquals("configuration key " + key + " must be " + (bad.equals("ten") ? "an integer" : "positive")
            + ", got '" + bad + "'", e.getMessage());
      }
    }
  }

  /** The refusal of too few rounds, singular and plural. */
  @Test
  void fewerThanThreeRoundsAreRefusedByCount() {
    ScriptedSessions sessions = new ScriptedSessions(handshake(TOOLS), echo(List.of(ECHO)));
    assertEquals("refusing a statelessness probe of 1 round: it needs at least 3 (a race that fires once in five rounds "
        + "is still a leak)", assertThrows(IllegalArgumentException.class,
            () -> probe(sessions).run(SERVER, "id", ProbePlan.empty(), 1)).getMessage());
    assertTrue(assertThrows(IllegalArgumentException.class, () -> probe(sessions).run(SERVER, "id", ProbePlan.empty(), 2))
        .getMessage().startsWith("refusing a statelessness probe of 2 rounds:"));
    assertEquals(List.of(), sessions.opened, "nothing started");
  }

  /**
   * Kills {@code secretValues}' length bound at {@code > 4}: a secret of four characters an answer
   * repeats is still redacted from the report (here from the error answer quoted in the tool's
   * reason).
   */
  @Test
  void aSecretOfFourCharactersIsRedacted() throws Exception {
    ScriptedSessions sessions = new ScriptedSessions(handshake(TOOLS), (s, method, params) -> switch (method) {
      case "tools/list" -> result(Map.of("tools", List.of(tool("whoami"))));
      case "tools/call" -> result(Map.of("isError", true,
          "content", List.of(Map.of("type", "text", "text", "key=" + s.server.env().get("API_TOKEN")))));
      default -> result(Map.of());
    });
    SurfaceReport r = probe(sessions).run(SERVER.withEnv(Map.of("API_TOKEN", "Qz7w")), "id", ProbePlan.empty(), 3);
    assertEquals(Outcome.NOT_PROVEN, r.outcome(), r.toString());
    assertTrue(tool(r, "whoami").why().contains("key=<redacted>"), r.toString());
    assertFalse(r.toString().contains("Qz7w"), r.toString());
  }

  /**
   * Kills {@code secretValues} without its sort, longest first: with two secrets, one inside the
   * other, the shorter replaced first would leave the rest of the longer in the report.
   */
  @Test
  void aSecretHoldingAShorterOneIsRedactedWhole() throws Exception {
    ScriptedSessions sessions = new ScriptedSessions(handshake(TOOLS), (s, method, params) -> switch (method) {
      case "tools/list" -> result(Map.of("tools", List.of(tool("whoami"))));
      case "tools/call" -> result(Map.of("isError", true,
          "content", List.of(Map.of("type", "text", "text", "key=" + s.server.env().get("DB_PASSWORD") + ";"))));
      default -> result(Map.of());
    });
    SurfaceReport r = probe(sessions).run(SERVER.withEnv(Map.of("API_TOKEN", "Qz7w", "DB_PASSWORD", "Qz7w-rest")), "id",
        ProbePlan.empty(), 3);
    assertTrue(tool(r, "whoami").why().contains("key=<redacted>;"), r.toString());
    assertFalse(r.toString().contains("-rest"), r.toString());
  }

  /**
   * Kills the caller block left out of {@code params}: a server that declares the caller-identity
   * extension is sent each caller's own session and the probe's tenant in every request's
   * {@code _meta}, under the key it declared.
   */
  @Test
  void aServerDeclaringCallerIdentityGetsEachCallersBlock() throws Exception {
    Map<String, Object> caps = Map.of("tools", Map.of(),
        "experimental", Map.of("cotenant.caller-identity", Map.of("metaKey", "example.org/caller")));
    ScriptedSessions sessions = new ScriptedSessions(handshake(caps), echo(List.of(ECHO)));
    SurfaceProbe p = SurfaceProbe.fromConfig(sessions, ProviderConfig.of(Map.of()));
    SurfaceReport r = p.run(SERVER, "id", ProbePlan.empty(), 3);
    assertEquals(Outcome.PASSED, r.outcome(), r.toString());
    assertTrue(r.callerBlocks());
    Set<Object> sessionsSeen = new HashSet<>();
    Set<Object> tenants = new HashSet<>();
    for (Map.Entry<String, Map<String, Object>> e : sessions.opened.get(2).requests) {
      @SuppressWarnings("unchecked")
      Map<String, Object> block = (Map<String, Object>) ((Map<String, Object>) e.getValue().get("_meta")).get("example.org/caller");
      assertTrue(block != null, e.getKey() + " carries the caller block: " + e.getValue());
      sessionsSeen.add(block.get("session"));
      tenants.add(block.get("tenant"));
    }
    assertEquals(2, sessionsSeen.size(), "one session value per caller, the same in every round: " + sessionsSeen);
    assertTrue(sessionsSeen.stream().allMatch(v -> v.toString().matches("cotenant-probe-[ab]-[0-9a-f]{8}")), sessionsSeen.toString());
    assertEquals(1, tenants.size(), tenants.toString());
  }

  /**
   * Kills the sort of the plan's notes, and their filter returning true: tools the plan names and
   * the server does not list, in name order, and no note for a listed one.
   */
  @Test
  void thePlansUnlistedToolsAreNotedInNameOrder() throws Exception {
    ScriptedSessions sessions = new ScriptedSessions(handshake(TOOLS), echo(List.of(ECHO)));
    SurfaceReport r = probe(sessions).run(SERVER, "id",
        ProbePlan.parse("plan", "{\"tools\": {\"zeta\": {\"skip\": \"x\"}, \"echo\": {\"include\": true}, "
            + "\"alpha\": {\"include\": true}}}"), 3);
    assertEquals(List.of("the plan names alpha, which the server does not list",
        "the plan names zeta, which the server does not list"), r.planNotes());
  }

  /**
   * The other caller's workspace value in a key of an answer is a finding named for what it is,
   * located at that key ({@code locate} on map keys, {@code markerFinding}'s kind).
   */
  @Test
  void theOtherCallersWorkspaceValueInAKeyIsLocatedAtThatKey() throws Exception {
    ScriptedSessions sessions = new ScriptedSessions(handshake(TOOLS), (s, method, params) -> {
      if (method.equals("tools/list")) {
        return result(Map.of("tools", List.of(Map.of("name", "open", "inputSchema", Map.of("type", "object",
            "properties", Map.of("workspace", Map.of("type", "string")), "required", List.of("workspace"))))));
      }
      if (method.equals("tools/call")) {
        String mine = String.valueOf(arguments(params).get("workspace"));
        Object last = s.state.put("last", mine);
        return result(Map.of("structuredContent", Map.of("previous", Map.of(String.valueOf(last == null ? "none" : last), true)),
            "content", List.of()));
      }
      return result(Map.of());
    });
    SurfaceReport r = run(sessions);
    assertEquals(Outcome.HAZARD, r.outcome(), r.toString());
    List<Finding> found = tool(r, "open").findings().stream().filter(f -> f.kind() == FindingKind.MARKER).toList();
    assertFalse(found.isEmpty(), r.toString());
    Finding f = found.get(0);
    assertTrue(f.detail().matches("[AB]'s workspace value cotenant-probe-[ab]-[0-9a-f]{8}-\\d appeared in [AB]'s answer to open "
        + "at \\$\\.result\\.structuredContent\\.previous\\.cotenant-probe-[ab]-[0-9a-f]{8}-\\d"), f.detail());
    assertEquals(f.detail().substring(f.detail().lastIndexOf(" at ") + 4), f.path());
  }

  /**
   * Kills {@code listings} without recording the resource templates' listing, and the hazard's
   * detail taken from the tools' findings only ({@code report}): a server whose only difference
   * is in its templates (one per call made on its backend, so the shared backend lists both
   * callers') is a hazard, named by that listing.
   */
  @Test
  void aDifferenceOnlyInTheTemplatesListingIsAHazard() throws Exception {
    ScriptedSessions sessions = new ScriptedSessions(handshake(Map.of("tools", Map.of(), "resources", Map.of())),
        (s, method, params) -> switch (method) {
          case "tools/list" -> result(Map.of("tools", List.of(ECHO)));
          case "tools/call" -> {
            s.next("calls");
            yield text(String.valueOf(arguments(params).get("text")));
          }
          case "resources/templates/list" -> {
            List<Map<String, Object>> templates = new java.util.ArrayList<>();
            for (int i = 0; i < (Integer) s.state.getOrDefault("calls", 0); i++) {
              templates.add(Map.of("uriTemplate", "made://" + i + "/{part}", "name", "made"));
            }
            yield result(Map.of("resourceTemplates", templates));
          }
          default -> result(Map.of());
        });
    SurfaceReport r = run(sessions);
    assertEquals(Outcome.HAZARD, r.outcome(), r.toString());
    assertEquals(ToolStatus.PASSED, tool(r, "echo").status());
    assertTrue(listing(r, "resources/templates/list").leaked(), r.toString());
    assertTrue(r.hazards().get(HazardCode.CROSS_SESSION_LEAK).matches("[AB]'s answer to resources/templates/list on the "
        + "shared backend differs .*"), r.hazards().toString());
  }

  /**
   * Kills {@code listings}' read loop at {@code >=} (line 546): when one caller has more new
   * resources than the other, the one with fewer reads each of its own and stops, rather than
   * failing on a read it does not have.
   */
  @Test
  void callersWithDifferentNumbersOfNewResourcesReadEachTheirOwn() throws Exception {
    ScriptedSessions sessions = new ScriptedSessions(handshake(Map.of("tools", Map.of(), "resources", Map.of())),
        (s, method, params) -> switch (method) {
          case "tools/list" -> result(Map.of("tools", List.of(ECHO)));
          case "tools/call" -> {
            String marker = String.valueOf(arguments(params).get("text"));
            s.state.put("made", marker.startsWith("alpha") ? 2 : 1);
            yield text(marker);
          }
          case "resources/list" -> {
            List<Map<String, Object>> listed = new java.util.ArrayList<>();
            for (int i = 0; i < (Integer) s.state.getOrDefault("made", 0); i++) {
              listed.add(Map.of("uri", "made://" + i));
            }
            yield result(Map.of("resources", listed));
          }
          case "resources/read" -> result(Map.of("contents", List.of(Map.of("uri", params.get("uri"), "text", "same"))));
          default -> result(Map.of());
        });
    SurfaceReport r = run(sessions);
    assertEquals(Optional.empty(), r.notRunReason(), r.toString());
    assertEquals(3 * 2, sent(sessions.opened.get(0), "resources/read"), "A made two resources in each round");
    assertEquals(3, sent(sessions.opened.get(1), "resources/read"), "B made one");
  }

  /** A tool that takes no arguments. */
  private static Map<String, Object> tool(String name) {
    return Map.of("name", name, "inputSchema", Map.of("type", "object"));
  }

  /** A scratch root a killed JVM left is removed by the next probe; one of a live process is kept. */
  @Test
  void aScratchRootLeftByAProcessThatIsGoneIsRemovedByTheNextProbe() throws Exception {
    Process gone = new ProcessBuilder("true").start();
    gone.waitFor();
    Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
    Path left = Files.createDirectories(tmp.resolve(SurfaceProbe.SCRATCH_PREFIX + gone.pid() + "-42/probe-shared-1"));
    Path mine = Files.createDirectories(tmp.resolve(SurfaceProbe.SCRATCH_PREFIX + ProcessHandle.current().pid() + "-43"));
    try {
      run(new ScriptedSessions(handshake(TOOLS), echo(List.of(ECHO))));
      assertFalse(Files.exists(left.getParent()), "left by a process that is gone");
      assertTrue(Files.isDirectory(mine), "a live process's is kept");
    } finally {
      Files.deleteIfExists(left);
      Files.deleteIfExists(left.getParent());
      Files.deleteIfExists(mine);
    }
  }

  private static Map<String, Object> reader(String name) {
    return Map.of("name", name, "annotations", Map.of("readOnlyHint", true), "inputSchema", Map.of("type", "object",
        "properties", Map.of("text", Map.of("type", "string")), "required", List.of("text")));
  }

  /**
   * A tool annotated {@code readOnlyHint: true} that keeps every text it is sent: on a backend of
   * its own where only the read-only tools are called, its earlier marker comes back, so the
   * report notes the contradicted annotation, names the tool, and calls it with the writers; an
   * honest read-only tool beside it is not noted. Kills {@code checkReadOnly} returning at once,
   * and the reordering left out.
   */
  @Test
  void aReadOnlyToolThatKeepsWhatItIsSentIsNotedAndCalledWithTheWriters() throws Exception {
    ScriptedSessions sessions = new ScriptedSessions(handshake(TOOLS), (s, method, params) -> switch (method) {
      case "tools/list" -> result(Map.of("tools", List.of(reader("peek"), reader("note"), ECHO)));
      case "tools/call" -> {
        String text = String.valueOf(arguments(params).get("text"));
        if (params.get("name").equals("note")) {
          @SuppressWarnings("unchecked")
          List<String> kept = (List<String>) s.state.computeIfAbsent("notes", k -> new java.util.ArrayList<String>());
          kept.add(text);
          yield text(String.join(",", kept));
        }
        yield text(text);
      }
      default -> result(Map.of());
    });
    SurfaceReport r = run(sessions);
    assertEquals(List.of("note is annotated readOnlyHint: true, but the marker of its earlier call came back in its own later"
        + " answer, with no other tool called: it keeps what it is sent, and was called with the writers"), r.annotationNotes());
    assertEquals(Outcome.HAZARD, r.outcome(), "what it keeps crossed on the shared backend: " + r);
    Scripted annotations = sessions.opened.stream().filter(x -> x.label.equals("probe-annotations")).findFirst()
        .orElseThrow(() -> new AssertionError("no backend of its own for the read-only check"));
    assertEquals(4, sent(annotations, "tools/call"), "two read-only tools, twice each; echo is not called there");
    Scripted shared = sessions.opened.stream().filter(x -> x.label.equals("probe-shared")).findFirst().orElseThrow();
    List<Object> order = shared.requests.stream().filter(e -> e.getKey().equals("tools/call")).limit(6)
        .map(e -> e.getValue().get("name")).toList();
    assertEquals(List.of("echo", "echo", "note", "note", "peek", "peek"), order, "writers, then the noted tool, then readers");
  }

  /** Honest read-only tools: a backend of their own is opened, and nothing is noted. */
  @Test
  void honestReadOnlyToolsAreNotNoted() throws Exception {
    ScriptedSessions sessions = new ScriptedSessions(handshake(TOOLS), echo(List.of(reader("peek"), reader("look"))));
    SurfaceReport r = run(sessions);
    assertEquals(Outcome.PASSED, r.outcome(), r.toString());
    assertEquals(List.of(), r.annotationNotes());
    assertTrue(sessions.opened.stream().anyMatch(x -> x.label.equals("probe-annotations")));
  }

  /**
   * A reader that needs an id a writer answered (a task store keyed by a counter, one per
   * process): the calibration backend calls the writer first, and the id it answered, as JSON
   * text, becomes the reader's next candidate. On the shared backend both callers then read task
   * 1, which the first caller wrote: the other caller's marker crosses, and the leak is seen.
   * Kills {@code returnedValues} returning nothing, and the writer left uncalled on the
   * calibration backend.
   */
  @Test
  void anIdAWriterAnsweredIsTriedForAnArgumentNamedAfterItAndFindsTheLeak() throws Exception {
    Map<String, Object> create = Map.of("name", "create_task", "inputSchema", Map.of("type", "object",
        "properties", Map.of("title", Map.of("type", "string")), "required", List.of("title")));
    Map<String, Object> get = Map.of("name", "get_task", "annotations", Map.of("readOnlyHint", true),
        "inputSchema", Map.of("type", "object", "properties", Map.of("task_id", Map.of("type", "string")),
            "required", List.of("task_id")));
    ScriptedSessions sessions = new ScriptedSessions(handshake(TOOLS), (s, method, params) -> switch (method) {
      case "tools/list" -> result(Map.of("tools", List.of(create, get)));
      case "tools/call" -> {
        @SuppressWarnings("unchecked")
        Map<String, String> tasks = (Map<String, String>) s.state.computeIfAbsent("tasks", k -> new LinkedHashMap<String, String>());
        if (params.get("name").equals("create_task")) {
          String id = "task-" + (tasks.size() + 1);
          tasks.put(id, String.valueOf(arguments(params).get("title")));
          yield text("{\"id\": \"" + id + "\", \"status\": \"open\"}");
        }
        String title = tasks.get(String.valueOf(arguments(params).get("task_id")));
        yield title == null
            ? result(Map.of("content", List.of(Map.of("type", "text", "text", "no such task")), "isError", true))
            : text(title);
      }
      default -> result(Map.of());
    });
    SurfaceReport r = run(sessions);
    assertEquals("schema, candidate 2 of 2 (the first that answered without an error) {\"task_id\":\"task-1\"}",
        tool(r, "get_task").arguments());
    assertEquals(Outcome.HAZARD, r.outcome(), r.toString());
    assertEquals(ToolStatus.LEAKED, tool(r, "get_task").status(), r.toString());
    Scripted calibration = sessions.opened.stream().filter(x -> x.label.equals("probe-calibration")).findFirst().orElseThrow();
    assertEquals(List.of("create_task", "get_task", "get_task"), calibration.requests.stream()
        .filter(e -> e.getKey().equals("tools/call")).map(e -> e.getValue().get("name")).toList());
  }
}
