package dev.cotenant.examples.probe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.api.HazardCode;
import dev.cotenant.api.ServerDescription;
import dev.cotenant.gateway.Cotenant;
import dev.cotenant.gateway.config.McpConfigReader;
import dev.cotenant.gateway.probe.ProbePlan;
import dev.cotenant.gateway.probe.Statelessness;
import dev.cotenant.gateway.probe.SurfaceReport;
import dev.cotenant.gateway.probe.SurfaceReport.Outcome;
import dev.cotenant.gateway.probe.SurfaceReport.ToolResult;
import dev.cotenant.gateway.probe.SurfaceReport.ToolStatus;
import dev.cotenant.providers.preflight.PreflightSettings;
import dev.cotenant.providers.session.SessionSettings;
import dev.cotenant.testkit.process.ChecksProcessLeaks;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What differs without another caller is not a leak, and what another caller changes is: the
 * {@code live-figures} sample (the machine's live memory figures; 250 random records per process)
 * passes; the {@code counter} sample (one count for every session on the process) and the
 * {@code current-directory} sample (one current directory for every session) are caught.
 */
@ChecksProcessLeaks(waitMillis = 60_000)
class FalseLeakGuardsIT {
  private static final Path ROOT = Path.of("").toAbsolutePath().getParent();

  @TempDir Path records;
  private Statelessness statelessness;

  @BeforeEach
  void setUp() {
    statelessness = Cotenant.builder()
        .config(Map.of(PreflightSettings.TIMEOUT_MS, "60000", PreflightSettings.DISCOVER_TIMEOUT_MS, "30000",
            SessionSettings.DISCOVER_TIMEOUT_MS, "30000"))
        .recordsDirectory(records)
        .build()
        .statelessness();
  }

  private static ToolResult tool(SurfaceReport r, String name) {
    return r.tools().stream().filter(t -> t.name().equals(name)).findFirst().orElseThrow(() -> new AssertionError(r));
  }

  @Test
  void liveMachineFiguresAndRandomRecordsPerProcessPass() throws Exception {
    ServerDescription live = ServerDescription.stdio("live-figures",
        ROOT.resolve("examples/probe-samples/live-figures").toString());
    SurfaceReport r = statelessness.probeSurface(live, ProbePlan.empty(), 3);
    assertEquals(Outcome.PASSED, r.outcome(), r.toString());
    for (String t : List.of("memory_use", "records")) {
      assertEquals(ToolStatus.PASSED, tool(r, t).status(), r.toString());
      assertFalse(tool(r, t).volatileParts().isEmpty(), "its figures differ between runs: " + r);
    }
  }

  @Test
  void aCountSharedByEverySessionIsCaught() throws Exception {
    ServerDescription counter = new McpConfigReader().read(List.of(ROOT.resolve("examples/mcp.json"))).get("counter")
        .orElseThrow().description();
    SurfaceReport r = statelessness.probeSurface(counter, ProbePlan.empty(), 3);
    assertEquals(Outcome.HAZARD, r.outcome(), r.toString());
    assertEquals(Set.of(HazardCode.CROSS_SESSION_LEAK), r.hazardCodes());
    assertEquals(ToolStatus.LEAKED, tool(r, "next").status(), "confirmed on replay, at the same place: " + r);
  }

  @Test
  void aProcessWideCurrentDirectoryIsCaughtByThePathTheOtherCallerChangedTo() throws Exception {
    ServerDescription cwd = ServerDescription.stdio("current-directory",
        ROOT.resolve("examples/probe-samples/current-directory").toString());
    SurfaceReport r = statelessness.probeSurface(cwd, ProbePlan.empty(), 3);
    assertEquals(Outcome.HAZARD, r.outcome(), r.toString());
    ToolResult current = tool(r, "current_directory");
    assertEquals(ToolStatus.LEAKED, current.status(), r.toString());
    assertTrue(current.findings().stream().anyMatch(f -> f.kind() == SurfaceReport.FindingKind.MARKER),
        "the other caller's marker, in the directory it changed to: " + current);
    assertTrue(tool(r, "change_directory").arguments().contains("{scratch}"),
        "the directory came from the caller's scratch directory: " + tool(r, "change_directory").arguments());
  }
}
