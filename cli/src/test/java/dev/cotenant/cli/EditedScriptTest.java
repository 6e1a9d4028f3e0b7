package dev.cotenant.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.gateway.probe.ProbeHarness;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A server run as {@code sh server.sh}: registering it as shared holds for that script only.
 * Edit the script and its measurement and registration read as not done, because the script is
 * part of the launch identity, not just the interpreter.
 */
class EditedScriptTest extends SpawningCliTest {
  private static final JsonMapper JSON = JsonMapper.builder().build();

  private Path script;

  @BeforeEach
  void setUp() throws Exception {
    script = tmp.resolve("server.sh");
    StringBuilder sb = new StringBuilder("exec");
    sb.append(" '").append(ProbeHarness.JAVA).append("'");
    for (String a : ProbeHarness.javaArgs("echo")) {
      sb.append(" '").append(a).append("'");
    }
    Files.writeString(script, sb + "\n");
    Files.setLastModifiedTime(script, FileTime.fromMillis(1_700_000_000_000L));
    cli.write("mcp.json", JSON.writeValueAsString(Map.of("mcpServers",
        Map.of("scripted", Map.of("command", "/bin/sh", "args", List.of(script.toString()))))));
  }

  private JsonNode row() {
    CliHarness.Result r = cli.run("assess", "mcp.json", "--json");
    assertEquals(0, r.code(), r.err());
    return JSON.readTree(r.out()).path("servers").get(0);
  }

  @Test
  void editingTheScriptAfterRegistrationWithdrawsTheSharedVerdict() throws Exception {
    CliHarness.Result probed = cli.run("probe-stateless", "scripted", "mcp.json");
    assertEquals(0, probed.code(), probed.err() + probed.out());
    CliHarness.Result registered = cli.run("register", "scripted", "mcp.json", "--model", "shared", "--max-concurrent", "2");
    assertEquals(0, registered.code(), registered.err());
    JsonNode before = row();
    assertEquals("declared", before.path("strength").stringValue(), before.toString());
    assertTrue(before.path("recommendShare").asBoolean());

    Files.writeString(script, Files.readString(script) + "# now keeps state per process\n");
    Files.setLastModifiedTime(script, FileTime.fromMillis(1_700_000_060_000L));

    JsonNode after = row();
    assertFalse(after.path("recommendShare").asBoolean(), after.toString());
    assertFalse(after.toString().contains("registered_shared"), after.toString());
    assertFalse(after.toString().contains("statelessness_probe_passed"), after.toString());
  }
}
