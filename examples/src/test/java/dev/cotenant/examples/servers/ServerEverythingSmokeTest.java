package dev.cotenant.examples.servers;

import static dev.cotenant.examples.servers.SampleLaunch.BOUND;
import static dev.cotenant.examples.servers.SampleLaunch.call;
import static dev.cotenant.examples.servers.SampleLaunch.connect;
import static dev.cotenant.examples.servers.SampleLaunch.parameters;
import static dev.cotenant.examples.servers.SampleLaunch.text;
import static dev.cotenant.examples.servers.SampleLaunch.toolNames;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.modelcontextprotocol.client.McpSyncClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code @modelcontextprotocol/server-everything}, installed from npm by the build and pinned in
 * {@code examples/npm/package-lock.json}, started through its launcher over stdio.
 */
class ServerEverythingSmokeTest {

  static final Path LAUNCHER = Path.of("bin", "server-everything").toAbsolutePath();

  private ChildProcesses children;

  @BeforeEach
  void snapshotProcesses() {
    children = ChildProcesses.snapshot();
  }

  @AfterEach
  void noProcessLeft() {
    assertEquals(List.of(), children.awaitNoneLeft(BOUND), "processes left alive");
  }

  @Test
  void theBuildInstalledTheVersionPinnedInTheLockFile() throws Exception {
    Path installed = Path.of("npm", "node_modules", "@modelcontextprotocol", "server-everything", "package.json");
    assertTrue(Files.isRegularFile(installed), "npm ci ran before the tests: " + installed.toAbsolutePath());
    String lock = Files.readString(Path.of("npm", "package-lock.json"));
    String version = tools.jackson.databind.json.JsonMapper.builder().build()
        .readTree(Files.readString(installed)).path("version").stringValue();
    assertTrue(lock.contains("\"node_modules/@modelcontextprotocol/server-everything\": {\n      \"version\": \"" + version + "\""),
        "installed " + version + " is the locked version");
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
