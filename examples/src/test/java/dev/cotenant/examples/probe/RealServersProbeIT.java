package dev.cotenant.examples.probe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.api.HazardCode;
import dev.cotenant.api.ServerDescription;
import dev.cotenant.api.Transport;
import dev.cotenant.gateway.Cotenant;
import dev.cotenant.gateway.probe.ProbePlan;
import dev.cotenant.gateway.probe.Statelessness;
import dev.cotenant.gateway.probe.SurfaceReport;
import dev.cotenant.gateway.probe.SurfaceReport.Finding;
import dev.cotenant.gateway.probe.SurfaceReport.FindingKind;
import dev.cotenant.gateway.probe.SurfaceReport.Outcome;
import dev.cotenant.gateway.probe.SurfaceReport.ToolStatus;
import dev.cotenant.providers.preflight.PreflightSettings;
import dev.cotenant.providers.session.SessionSettings;
import dev.cotenant.testkit.process.ChecksProcessLeaks;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * The default whole-surface probe (no plan, in the sandbox) over thirteen third-party MCP servers
 * from npm, each outcome asserted against its ground truth in {@code examples/CORPUS.md}: no
 * server that keeps state passes, every stateless one passes, every leak names its tool,
 * round and what crossed, and the operator's state files are unchanged afterwards.
 */
@ChecksProcessLeaks(waitMillis = 60_000)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RealServersProbeIT {
  private static final Path ROOT = Path.of("").toAbsolutePath().getParent();
  private static final Path MODULES = ROOT.resolve("examples/npm/node_modules");

  /** What the ground truth says, and what the probe is expected to say. */
  private enum Truth {
    STATELESS_PASSES, LEAKS
  }

  private record Entry(String name, List<String> args, Map<String, String> env, Truth truth, Set<HazardCode> hazards) {}

  @TempDir static Path records;
  @TempDir static Path state;

  private final Map<String, SurfaceReport> reports = new LinkedHashMap<>();
  private Map<String, String> stateBefore;
  private Map<String, String> stateAfter;

  private List<Entry> corpus() {
    Set<HazardCode> leak = Set.of(HazardCode.CROSS_SESSION_LEAK);
    return List.of(
        new Entry("calc", List.of("@coo-quack/calc-mcp/dist/index.js"), Map.of(), Truth.STATELESS_PASSES, Set.of()),
        new Entry("time", List.of("time-mcp/dist/index.js"), Map.of(), Truth.STATELESS_PASSES, Set.of()),
        new Entry("sheet-music", List.of("@modelcontextprotocol/server-sheet-music/dist/index.js", "--stdio"), Map.of(),
            Truth.STATELESS_PASSES, Set.of()),
        new Entry("scenario-modeler", List.of("@modelcontextprotocol/server-scenario-modeler/dist/index.js", "--stdio"),
            Map.of(), Truth.STATELESS_PASSES, Set.of()),
        new Entry("cohort-heatmap", List.of("@modelcontextprotocol/server-cohort-heatmap/dist/index.js", "--stdio"),
            Map.of(), Truth.STATELESS_PASSES, Set.of()),
        new Entry("budget-allocator", List.of("@modelcontextprotocol/server-budget-allocator/dist/index.js", "--stdio"),
            Map.of(), Truth.STATELESS_PASSES, Set.of()),
        new Entry("memory", List.of("@modelcontextprotocol/server-memory/dist/index.js"),
            Map.of("MEMORY_FILE_PATH", state.resolve("memory/memory.jsonl").toString()), Truth.LEAKS, leak),
        new Entry("sequential-thinking", List.of("@modelcontextprotocol/server-sequential-thinking/dist/index.js"),
            Map.of("DISABLE_THOUGHT_LOGGING", "true"), Truth.LEAKS, leak),
        new Entry("filesystem", List.of("@modelcontextprotocol/server-filesystem/dist/index.js",
            state.resolve("files").toString()), Map.of(), Truth.LEAKS, leak),
        new Entry("taskmanager", List.of("@kazuph/mcp-taskmanager/dist/index.js"),
            Map.of("TASK_MANAGER_FILE_PATH", state.resolve("tasks/tasks.json").toString()), Truth.LEAKS, leak),
        new Entry("knowledge-graph", List.of("@itseasy21/mcp-knowledge-graph/dist/index.js", "--memory-path",
            state.resolve("graph/memory.jsonl").toString()), Map.of(), Truth.LEAKS, leak),
        new Entry("shrimp", List.of("mcp-shrimp-task-manager/dist/index.js"),
            Map.of("DATA_DIR", state.resolve("shrimp").toString()), Truth.LEAKS,
            Set.of(HazardCode.UNROUTABLE_SERVER_REQUEST)),
        new Entry("seqthinking-tools", List.of("mcp-sequentialthinking-tools/dist/index.js"), Map.of(), Truth.LEAKS, leak));
  }

  private ServerDescription describe(Entry e) {
    List<String> args = new ArrayList<>();
    args.add(MODULES.resolve(e.args().get(0)).toString());
    args.addAll(e.args().subList(1, e.args().size()));
    return new ServerDescription(e.name(), Transport.STDIO, "node", args, Optional.empty(), e.env(), Optional.empty(),
        true);
  }

  /** Every server probed once, the operator's state directory read before and after. */
  @BeforeAll
  void probeEveryServer() throws Exception {
    for (String dir : List.of("memory", "files", "tasks", "graph", "shrimp")) {
      Files.createDirectories(state.resolve(dir));
    }
    Files.writeString(state.resolve("memory/memory.jsonl"),
        "{\"type\":\"entity\",\"name\":\"operator-note\",\"entityType\":\"note\",\"observations\":[\"keep\"]}\n");
    Files.writeString(state.resolve("graph/memory.jsonl"), "");
    Files.writeString(state.resolve("files/readme.txt"), "the operator's file\n");
    stateBefore = snapshot(state);
    Statelessness statelessness = Cotenant.builder()
        .config(Map.of(PreflightSettings.TIMEOUT_MS, "60000", PreflightSettings.DISCOVER_TIMEOUT_MS, "30000",
            SessionSettings.DISCOVER_TIMEOUT_MS, "30000"))
        .recordsDirectory(records)
        .build()
        .statelessness();
    for (Entry e : corpus()) {
      reports.put(e.name(), statelessness.probeSurface(describe(e), ProbePlan.empty(), 3));
    }
    stateAfter = snapshot(state);
  }

  private static Map<String, String> snapshot(Path dir) throws IOException {
    Map<String, String> out = new TreeMap<>();
    try (Stream<Path> walk = Files.walk(dir)) {
      for (Path p : walk.toList()) {
        String rel = dir.relativize(p).toString();
        if (Files.isRegularFile(p)) {
          MessageDigest sha = sha256();
          out.put(rel, HexFormat.of().formatHex(sha.digest(Files.readAllBytes(p))));
        } else {
          out.put(rel + "/", "");
        }
      }
    }
    return out;
  }

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void everyServerRanInTheSandboxAndItsOutcomeIsItsGroundTruth() {
    for (Entry e : corpus()) {
      SurfaceReport r = reports.get(e.name());
      assertTrue(r.sandbox().sandboxed(), e.name() + ": " + r.sandbox().why());
      Outcome expected = switch (e.truth()) {
        case STATELESS_PASSES -> Outcome.PASSED;
        case LEAKS -> Outcome.HAZARD;
      };
      assertEquals(expected, r.outcome(), e.name() + ": " + r);
      assertTrue(r.hazardCodes().containsAll(e.hazards()), e.name() + ": " + r.hazardCodes() + " " + r);
      if (e.truth() == Truth.STATELESS_PASSES) {
        // None of them asks its client anything: the pass as clients declaring roots, sampling
        // and elicitation passes too, and such clients may share.
        assertTrue(r.clients().covered(), e.name() + ": " + r.clients());
      } else {
        assertEquals(SurfaceReport.ClientCoverage.NOT_TRIED, r.clients(), e.name() + ": no second pass after a hazard");
      }
    }
  }

  @Test
  void noServerThatKeepsStatePassesAndAtLeastFourStatelessOnesDo() {
    long passed = 0;
    for (Entry e : corpus()) {
      boolean stateful = e.truth() == Truth.LEAKS;
      if (stateful) {
        assertFalse(reports.get(e.name()).passed(), e.name() + " keeps state and must never pass");
      } else if (reports.get(e.name()).passed()) {
        passed++;
      }
    }
    assertTrue(passed >= 4, passed + " stateless servers passed");
  }

  @Test
  void everyLeakNamesTheToolTheRoundAndWhatCrossed() {
    for (Entry e : corpus()) {
      SurfaceReport r = reports.get(e.name());
      if (!r.hazardCodes().contains(HazardCode.CROSS_SESSION_LEAK)) {
        continue;
      }
      List<SurfaceReport.ToolResult> leaked = r.tools().stream().filter(t -> t.status() == ToolStatus.LEAKED).toList();
      assertFalse(leaked.isEmpty() && r.listings().stream().noneMatch(SurfaceReport.ListingResult::leaked),
          e.name() + ": a leak with no tool or listing named: " + r);
      for (SurfaceReport.ToolResult t : leaked) {
        Finding f = t.findings().stream().filter(x -> x.kind() != FindingKind.UNCONFIRMED).findFirst().orElseThrow();
        assertTrue(f.round() >= 1, e.name() + " " + t.name() + ": " + f);
        assertTrue(f.caller().equals("A") || f.caller().equals("B"), f.toString());
        assertTrue(f.detail().contains(t.name()), e.name() + ": the detail names the tool: " + f.detail());
        assertTrue(f.kind() == FindingKind.MARKER ? f.detail().contains("'s marker") || f.detail().contains("workspace")
            : f.detail().contains("expected") && f.detail().contains("got"), e.name() + ": what crossed: " + f.detail());
      }
    }
  }

  @Test
  void theOperatorsStateFilesAreUnchanged() {
    assertEquals(stateBefore, stateAfter, "the sandbox kept every write to the state the configuration names private");
  }
}
