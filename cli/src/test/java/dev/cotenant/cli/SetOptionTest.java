package dev.cotenant.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@code --set KEY=VALUE} reaches the runtime and its providers. */
class SetOptionTest extends SpawningCliTest {
  private static final String ARGS = "{\"target\": \"{marker}\"}";

  @BeforeEach
  void setUp() throws Exception {
    // A server that speaks only the 2026-07-28 era: server/discover, and an error for initialize.
    cli.writeProbeServers("mcp.json", List.of("modern"), Map.of());
  }

  @Test
  void theEraSetOnTheCommandLineIsTheEraSpoken() {
    CliHarness.Result auto = cli.run("probe-stateless", "modern", "--tool", "remember", "--args", ARGS, "mcp.json");
    assertEquals(0, auto.code(), auto.err() + auto.out());

    CliHarness.Result initializeOnly = cli.run("probe-stateless", "modern", "--tool", "remember", "--args", ARGS,
        "--set", "cotenant.preflight.era=initialize", "mcp.json");
    assertEquals(ProbeStatelessCommand.EXIT_NOT_PROVEN, initializeOnly.code(), initializeOnly.err() + initializeOnly.out());
    assertTrue(initializeOnly.out().contains("initialize"), initializeOnly.out());
  }

  @Test
  void aMalformedSettingIsAUsageErrorNamingTheKey() {
    CliHarness.Result noEquals = cli.run("assess", "--set", "cotenant.preflight.era", "mcp.json");
    assertEquals(2, noEquals.code());
    assertEquals("cotenant: --set needs KEY=VALUE, got 'cotenant.preflight.era'", noEquals.err().strip());

    CliHarness.Result badValue = cli.run("assess", "--set", "cotenant.secret-patterns=*_KEY,,", "mcp.json");
    assertEquals(2, badValue.code(), badValue.err());
    assertTrue(badValue.err().contains("cotenant.secret-patterns"), badValue.err());

    CliHarness.Result foreign = cli.run("assess", "--set", "era=initialize", "mcp.json");
    assertEquals(2, foreign.code(), foreign.err());
    assertTrue(foreign.err().contains("start with \"cotenant.\""), foreign.err());
  }
}
