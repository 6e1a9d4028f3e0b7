package dev.cotenant.examples.probe;

import static dev.cotenant.examples.probe.ProbeFixture.ROOT;
import static dev.cotenant.examples.probe.ProbeFixture.sample;
import static dev.cotenant.examples.probe.ProbeFixture.tool;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.api.HazardCode;
import dev.cotenant.api.ServerDescription;
import dev.cotenant.gateway.probe.ProbePlan;
import dev.cotenant.gateway.probe.Statelessness;
import dev.cotenant.gateway.probe.SurfaceReport;
import dev.cotenant.gateway.probe.SurfaceReport.Outcome;
import dev.cotenant.gateway.probe.SurfaceReport.ToolResult;
import dev.cotenant.gateway.probe.SurfaceReport.ToolStatus;
import dev.cotenant.testkit.process.ChecksProcessLeaks;
import java.nio.file.Path;
import java.util.List;
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
  @TempDir Path records;
  private Statelessness statelessness;

  @BeforeEach
  void setUp() {
    statelessness = ProbeFixture.cotenant(records).statelessness();
  }

  /** The {@code examples/probe-samples} launcher {@code name}, as a stdio server of that name. */
  private static ServerDescription probeSample(String name) {
    return ServerDescription.stdio(name, ROOT.resolve("examples/probe-samples/" + name).toString());
  }

  /** The whole-surface probe of {@code server}, three rounds, without a plan. */
  private SurfaceReport probe(ServerDescription server) throws Exception {
    return statelessness.probeSurface(server, ProbePlan.empty(), 3);
  }

  @Test
  void liveMachineFiguresAndRandomRecordsPerProcessPass() throws Exception {
    SurfaceReport r = probe(probeSample("live-figures"));
    assertEquals(Outcome.PASSED, r.outcome(), r.toString());
    for (String t : List.of("memory_use", "records")) {
      assertEquals(ToolStatus.PASSED, tool(r, t).status(), r.toString());
      assertFalse(tool(r, t).volatileParts().isEmpty(), "its figures differ between runs: " + r);
    }
  }

  @Test
  void aCountSharedByEverySessionIsCaught() throws Exception {
    SurfaceReport r = probe(sample("counter"));
    assertEquals(Outcome.HAZARD, r.outcome(), r.toString());
    assertEquals(Set.of(HazardCode.CROSS_SESSION_LEAK), r.hazardCodes());
    assertEquals(ToolStatus.LEAKED, tool(r, "next").status(), "confirmed on replay, at the same place: " + r);
  }

  @Test
  void aProcessWideCurrentDirectoryIsCaughtByThePathTheOtherCallerChangedTo() throws Exception {
    SurfaceReport r = probe(probeSample("current-directory"));
    assertEquals(Outcome.HAZARD, r.outcome(), r.toString());
    ToolResult current = tool(r, "current_directory");
    assertEquals(ToolStatus.LEAKED, current.status(), r.toString());
    assertTrue(current.findings().stream().anyMatch(f -> f.kind() == SurfaceReport.FindingKind.MARKER),
        "the other caller's marker, in the directory it changed to: " + current);
    assertTrue(tool(r, "change_directory").arguments().contains("{scratch}"),
        "the directory came from the caller's scratch directory: " + tool(r, "change_directory").arguments());
  }
}
