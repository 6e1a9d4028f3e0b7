package dev.cotenant.examples.servers;

import static dev.cotenant.examples.servers.SampleLaunch.call;
import static dev.cotenant.examples.servers.SampleLaunch.connect;
import static dev.cotenant.examples.servers.SampleLaunch.parameters;
import static dev.cotenant.examples.servers.SampleLaunch.text;
import static dev.cotenant.examples.servers.SampleLaunch.toolNames;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.testkit.process.ChecksProcessLeaks;
import io.modelcontextprotocol.client.McpSyncClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@code @modelcontextprotocol/server-everything}, installed from npm by the build and pinned in
 * {@code examples/npm/package-lock.json}, started through its launcher over stdio.
 */
@ChecksProcessLeaks(waitMillis = SampleLaunch.BOUND_MILLIS)
class ServerEverythingSmokeTest {

  static final Path LAUNCHER = Path.of("bin", "server-everything").toAbsolutePath();

  @Test
  void theBuildInstalledTheVersionPinnedInTheLockFile() throws Exception {
    Path installedManifest = Path.of("npm", "node_modules", "@modelcontextprotocol", "server-everything", "package.json");
    assertTrue(Files.isRegularFile(installedManifest), "npm ci ran before the tests: " + installedManifest.toAbsolutePath());
    JsonMapper json = JsonMapper.builder().build();
    String locked = json.readTree(Files.readString(Path.of("npm", "package-lock.json")))
        .path("packages").path("node_modules/@modelcontextprotocol/server-everything").path("version").asString("");
    String pinned = json.readTree(Files.readString(Path.of("npm", "package.json")))
        .path("dependencies").path("@modelcontextprotocol/server-everything").asString("");
    String installed = json.readTree(Files.readString(installedManifest)).path("version").asString("");
    assertEquals(pinned, locked, "package.json pins the locked version exactly");
    assertEquals(locked, installed, "npm ci installed the locked version");
  }

  @Test
  void initializesListsItsToolsAndEchoes() {
    try (McpSyncClient client = connect(parameters(List.of(LAUNCHER.toString()), Map.of()), "smoke-everything")) {
      assertEquals("mcp-servers/everything", client.getServerInfo().name());
      Set<String> tools = toolNames(client);
      assertTrue(tools.contains("echo"), tools.toString());
      assertTrue(text(call(client, "echo", Map.of("message", "marker-e1"))).contains("marker-e1"));
    }
  }
}
