package dev.cotenant.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** Configuration files as users have them: broken ones found by discovery, odd names, other directories. */
class ConfigFilesAsFoundTest {
  private static final JsonMapper JSON = JsonMapper.builder().build();

  @TempDir Path tmp;

  private static List<String> names(String out) {
    List<String> names = new java.util.ArrayList<>();
    JSON.readTree(out).path("servers").forEach(s -> names.add(s.path("name").stringValue()));
    return names;
  }

  @Test
  void aBrokenFileFoundByDiscoveryIsReportedAndSkipped() throws Exception {
    CliHarness cli = new CliHarness(tmp);
    cli.write(".mcp.json", "{\"mcpServers\": {\"broken\": ");
    cli.write(".cursor/mcp.json", "{\"mcpServers\": {\"fine\": {\"command\": \"/nonexistent/fine\"}}}");

    CliHarness.Result r = cli.run("assess", "--json");

    assertEquals(0, r.code(), r.err());
    assertEquals(List.of("fine"), names(r.out()));
    assertTrue(r.err().lines().anyMatch(l -> l.startsWith("cotenant: warning: .mcp.json: malformed JSON") && l.endsWith("; skipped")),
        r.err());
  }

  @Test
  void aBrokenFileNamedOnTheCommandLineIsFatal() throws Exception {
    CliHarness cli = new CliHarness(tmp);
    cli.write("mcp.json", "{\"mcpServers\": {\"broken\": ");
    CliHarness.Result r = cli.run("assess", "mcp.json");
    assertEquals(2, r.code());
    assertTrue(r.err().startsWith("cotenant: mcp.json: malformed JSON"), r.err());
  }

  @Test
  void aServerNamedWithANulIsRefusedWithAWarningAndTheOthersAreAssessedOnEveryRun() throws Exception {
    CliHarness cli = new CliHarness(tmp);
    cli.write("mcp.json", "{\"mcpServers\": {\"nul\\u0000name\": {\"command\": \"/nonexistent/a\"},"
        + " \"ok\": {\"command\": \"/nonexistent/b\"}}}");
    for (String command : List.of("measure", "assess")) {
      CliHarness.Result r = cli.run(command, "mcp.json", "--json");
      assertEquals(0, r.code(), command + ": " + r.err());
      assertEquals(List.of("ok"), names(r.out()), command);
      assertEquals(List.of("cotenant: warning: mcp.json: server \"nul\\u0000name\" is refused: its name holds the "
          + "control character U+0000; rename it"), r.err().lines().filter(l -> l.contains("warning")).toList(), command);
    }
  }

  @Test
  void aBidiOverrideInANameIsEscapedInTheTable() throws Exception {
    CliHarness cli = new CliHarness(tmp);
    cli.write("mcp.json", "{\"mcpServers\": {\"evil\\u202egnp\": {\"command\": \"/nonexistent/a\"}}}");
    CliHarness.Result r = cli.run("assess", "mcp.json");
    assertEquals(0, r.code(), r.err());
    assertTrue(r.out().contains("evil\\u202egnp"), r.out());
    assertTrue(!r.out().contains("\u202e"), r.out());
  }

  @Test
  void relativeCommandsWorkFromAnyWorkingDirectory() throws Exception {
    CliHarness cli = new CliHarness(tmp);
    Path project = Files.createDirectories(tmp.resolve("project/bin"));
    Path config = project.getParent().resolve("mcp.json");
    Files.writeString(config, "{\"mcpServers\": {\"local\": {\"command\": \"bin/server\"}}}");
    CliHarness.Result r = cli.run("measure", config.toString(), "--json");
    assertEquals(0, r.code(), r.err());
    assertEquals(1, cli.transport.calls("local"));
    JsonNode row = JSON.readTree(r.out()).path("servers").get(0);
    assertEquals("local", row.path("name").stringValue());
    assertEquals(project.resolve("server").toString(), cli.transport.commands.get("local"));
  }
}
