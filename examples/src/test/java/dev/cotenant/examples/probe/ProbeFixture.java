package dev.cotenant.examples.probe;

import dev.cotenant.api.PreflightOutcome;
import dev.cotenant.api.ServerDescription;
import dev.cotenant.api.Verdict;
import dev.cotenant.gateway.Cotenant;
import dev.cotenant.gateway.config.McpConfigReader;
import dev.cotenant.gateway.probe.Statelessness;
import dev.cotenant.gateway.probe.SurfaceReport;
import dev.cotenant.gateway.probe.SurfaceReport.ToolResult;
import dev.cotenant.providers.preflight.PreflightSettings;
import dev.cotenant.providers.session.SessionSettings;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** What the probe tests against the sample servers share: where the samples are, the gateway, and the reads of a report. */
final class ProbeFixture {
  /** The repository root: the parent of the examples module the tests run in. */
  static final Path ROOT = Path.of("").toAbsolutePath().getParent();

  private ProbeFixture() {}

  /** A gateway keeping its records in {@code records}, with timeouts generous enough for a loaded machine. */
  static Cotenant cotenant(Path records) {
    return Cotenant.builder()
        .config(Map.of(PreflightSettings.TIMEOUT_MS, "60000", PreflightSettings.DISCOVER_TIMEOUT_MS, "30000",
            SessionSettings.DISCOVER_TIMEOUT_MS, "30000"))
        .recordsDirectory(records)
        .build();
  }

  /** The {@code examples/mcp.json} entry as the CLI reads it: its launcher resolved against the file's directory. */
  static ServerDescription sample(String name) throws Exception {
    return new McpConfigReader().read(List.of(ROOT.resolve("examples/mcp.json"))).get(name).orElseThrow().description();
  }

  /** The result for tool {@code name} in {@code r}; fails with the whole report when there is none. */
  static ToolResult tool(SurfaceReport r, String name) {
    return r.tools().stream().filter(t -> t.name().equals(name)).findFirst().orElseThrow(() -> new AssertionError(r));
  }

  /**
   * The verdict {@code cotenant} draws for {@code server} after a passed pre-flight, from the
   * evidence {@code statelessness} gathers and the hazards {@code cotenant}'s ledger holds.
   */
  static Verdict assess(Cotenant cotenant, Statelessness statelessness, ServerDescription server) {
    String id = statelessness.identityOf(server);
    return cotenant.assess(statelessness.evidenceInput(server, Optional.empty()), PreflightOutcome.passed(),
        cotenant.recordStores().hazardLedger().codesFor(server.name(), id));
  }
}
