package dev.cotenant.examples.servers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/** {@code examples/mcp.json} and {@code examples/bin} describe the same servers. */
class ExampleConfigTest {

  @Test
  void everyLauncherIsListedAndEveryStdioEntryHasAnExecutableLauncher() throws Exception {
    Map<String, JsonNode> servers = ExampleConfig.servers();
    Set<String> launchers;
    try (Stream<Path> files = Files.list(ExampleConfig.REPOSITORY_ROOT.resolve("examples/bin"))) {
      launchers = files.map(path -> path.getFileName().toString()).collect(Collectors.toCollection(TreeSet::new));
    }
    Set<String> stdioEntries = new TreeSet<>();
    servers.forEach((name, entry) -> {
      if (entry.has("command")) {
        stdioEntries.add(name);
        String command = entry.path("command").stringValue();
        assertEquals("bin/" + name, command, "entry " + name + " runs its own launcher (relative to examples/)");
        assertTrue(Files.isExecutable(ExampleConfig.command(entry)), command + " is executable");
        assertTrue(!entry.has("env") || !entry.path("env").has(NeedsCredentialServer.TOKEN_ENV),
            name + " carries no credential");
      }
    });
    assertEquals(launchers, stdioEntries);
  }

  @Test
  void oneEntryIsRemoteHttp() throws Exception {
    long http = ExampleConfig.servers().values().stream()
        .filter(entry -> "http".equals(entry.path("type").asString("")) && entry.path("url").isString()
            && !entry.has("command"))
        .count();
    assertEquals(1, http);
  }
}
