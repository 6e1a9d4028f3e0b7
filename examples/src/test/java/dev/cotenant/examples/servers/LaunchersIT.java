package dev.cotenant.examples.servers;

import static dev.cotenant.examples.servers.SampleLaunch.BOUND;
import static dev.cotenant.examples.servers.SampleLaunch.connect;
import static dev.cotenant.examples.servers.SampleLaunch.parameters;
import static dev.cotenant.examples.servers.SampleLaunch.toolNames;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.testkit.process.ChecksProcessLeaks;
import io.modelcontextprotocol.client.McpSyncClient;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import tools.jackson.databind.JsonNode;

/**
 * Every entry of {@code examples/mcp.json} run the way a host runs it: its launcher from
 * {@code examples/bin}, against the packaged {@code target/cotenant-sample-servers.jar}.
 */
@ChecksProcessLeaks(waitMillis = SampleLaunch.BOUND_MILLIS)
class LaunchersIT {

  @ParameterizedTest
  @CsvSource({
      "echo, cotenant-sample-echo",
      "global-state, cotenant-sample-global-state",
      "caller-identity, cotenant-sample-caller-identity",
      "caller-tools, cotenant-sample-caller-tools",
      "logging, cotenant-sample-logging",
      "workspace-keyed, cotenant-sample-workspace-keyed",
      "counter, cotenant-sample-counter",
      "clock, cotenant-sample-clock",
      "clock-counter, cotenant-sample-clock-counter",
      "destructive, cotenant-sample-destructive",
      "server-everything, mcp-servers/everything"})
  void handshakeEraEntryInitializesThroughItsLauncher(String name, String serverName) throws Exception {
    JsonNode entry = ExampleConfig.servers().get(name);
    try (McpSyncClient client = connect(parameters(List.of(ExampleConfig.command(entry).toString()), Map.of()),
        "launcher-" + name)) {
      assertEquals(serverName, client.getServerInfo().name());
      assertFalse(toolNames(client).isEmpty());
    }
  }

  @Test
  void needsCredentialEntryExitsWithoutItsTokenAndServesWithIt() throws Exception {
    JsonNode entry = ExampleConfig.servers().get("needs-credential");
    ProcessBuilder builder = new ProcessBuilder(ExampleConfig.command(entry).toString());
    builder.environment().remove(NeedsCredentialServer.TOKEN_ENV);
    Process process = builder.start();
    process.getOutputStream().close();
    assertTrue(process.waitFor(BOUND.toMillis(), TimeUnit.MILLISECONDS));
    String stderr = new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
    assertEquals(NeedsCredentialServer.MISSING_CREDENTIAL_EXIT, process.exitValue());
    assertTrue(stderr.contains(NeedsCredentialServer.TOKEN_ENV), stderr);

    try (McpSyncClient client = connect(parameters(List.of(ExampleConfig.command(entry).toString()),
        Map.of(NeedsCredentialServer.TOKEN_ENV, "token-for-the-test")), "launcher-credential")) {
      assertEquals(NeedsCredentialServer.NAME, client.getServerInfo().name());
    }
  }

  @Test
  void discoverEntryAnswersServerDiscoverThroughItsLauncher() throws Exception {
    JsonNode entry = ExampleConfig.servers().get("discover");
    try (RawStdioSession session = RawStdioSession.start(List.of(ExampleConfig.command(entry).toString()))) {
      session.send("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"server/discover\",\"params\":{\"_meta\":{"
          + "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
          + "\"io.modelcontextprotocol/clientCapabilities\":{}}}}");
      JsonNode result = session.awaitResponse(1).path("result");
      assertEquals(DiscoverServer.NAME, result.path("serverInfo").path("name").stringValue());
      assertEquals(0, session.closeStdinAndAwaitExit());
    }
  }
}
