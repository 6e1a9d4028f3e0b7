package dev.cotenant.examples.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.examples.cli.CotenantCliIT.Run;
import dev.cotenant.testkit.process.ChecksProcessLeaks;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The launch most MCP configurations use, {@code npx -y PACKAGE}, through the commands an
 * operator runs, with the pre-flight and the probe in the sandbox (no network): a package npx
 * installed before (the build's own npm cache, filled by {@code npm exec} itself) is measured and
 * probed; one it never installed is not run, and the row says why and what to do.
 */
@ChecksProcessLeaks(waitMillis = CotenantCliIT.EXIT_BOUND_MILLIS)
class NpxLaunchIT {
  private static final Path ROOT = Path.of("").toAbsolutePath().getParent();
  /** Filled by examples/npm/ensure-installed.mjs with `npm exec --package time-mcp@1.0.6`. */
  private static final Path NPX_CACHE = ROOT.resolve("examples/npm/node_modules/.npx-cache");

  @TempDir Path tmp;

  private Path config() throws Exception {
    assertTrue(Files.isDirectory(NPX_CACHE.resolve("_npx")), NPX_CACHE + " is missing: the examples build fills it");
    Map<String, Object> env = Map.of("npm_config_cache", NPX_CACHE.toString());
    Map<String, Object> servers = Map.of(
        "time-npx", Map.of("command", "npx", "args", List.of("-y", "time-mcp@1.0.6"), "env", env),
        "absent-npx", Map.of("command", "npx", "args", List.of("-y", "cotenant-never-published-server@0.0.1"), "env", env));
    Path config = tmp.resolve("mcp.json");
    JsonMapper.builder().build().writeValue(config.toFile(), Map.of("mcpServers", servers));
    return config;
  }

  @Test
  void measureRunsAnInstalledNpxPackageInTheSandboxAndSaysWhyAnotherIsNotRun() throws Exception {
    Path config = config();
    Run run = CotenantCliIT.cotenant("measure", config.toString(), "--json", "--records-dir", tmp.resolve("records").toString());
    assertEquals(0, run.code(), run.err());
    Map<String, JsonNode> rows = CotenantCliIT.rows(run.out());
    List<String> time = CotenantCliIT.reasons(rows.get("time-npx"));
    assertEquals("measured", rows.get("time-npx").path("strength").stringValue(), rows.get("time-npx").toString());
    assertTrue(time.contains("preflight_passed"), time.toString());
    List<String> absent = CotenantCliIT.reasons(rows.get("absent-npx"));
    assertEquals("unknown", rows.get("absent-npx").path("strength").stringValue());
    String notRun = absent.stream().filter(r -> r.startsWith("preflight_not_run(")).findFirst()
        .orElseThrow(() -> new AssertionError(absent));
    assertTrue(notRun.contains("npx cannot start absent-npx in the sandbox: cotenant-never-published-server@0.0.1 is not installed"
        + " in npm's npx cache (" + NPX_CACHE.resolve("_npx") + ")"), notRun);
  }

  @Test
  void theWholeSurfaceProbeOfAnNpxLaunchRunsSandboxedAndPasses() throws Exception {
    Path config = config();
    Run run = CotenantCliIT.cotenant("probe-stateless", "time-npx", config.toString(), "--json",
        "--records-dir", tmp.resolve("records").toString());
    JsonNode report = JsonMapper.builder().build().readTree(run.out());
    assertEquals("sandbox", report.path("sandbox").path("mode").stringValue(),
        "no sandbox here (.ci/run installs Debian's bubblewrap): " + report.path("sandbox"));
    assertEquals(false, report.path("sandbox").path("network").booleanValue());
    assertEquals(0, run.code(), run.out() + run.err());
    assertEquals("passed", report.path("outcome").stringValue(), run.out());
    assertEquals(6, report.path("tools").size(), "time-mcp 1.0.6 lists six tools: " + report.path("tools"));
  }
}
