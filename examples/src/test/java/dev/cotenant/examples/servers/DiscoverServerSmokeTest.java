package dev.cotenant.examples.servers;

import static dev.cotenant.examples.servers.SampleLaunch.javaCommand;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.testkit.process.ChecksProcessLeaks;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/** The 2026-07-28 sample over raw newline-delimited JSON-RPC, as a real process. */
@ChecksProcessLeaks(waitMillis = SampleLaunch.BOUND_MILLIS)
class DiscoverServerSmokeTest {

  private static String meta(String client) {
    return "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
        + "\"io.modelcontextprotocol/clientCapabilities\":{},"
        + "\"io.modelcontextprotocol/clientInfo\":{\"name\":\"" + client + "\",\"version\":\"1\"}}";
  }

  @Test
  void discoverListAndPerRequestMetaWithoutAnyHandshake() throws Exception {
    try (RawStdioSession session = RawStdioSession.start(javaCommand(DiscoverServer.class))) {
      session.send("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"server/discover\",\"params\":{" + meta("alice") + "}}");
      JsonNode discover = session.awaitResponse(1).path("result");
      assertEquals("2026-07-28", discover.path("protocolVersion").stringValue());
      assertEquals("2026-07-28", discover.path("supportedVersions").path(0).stringValue());
      assertEquals("complete", discover.path("resultType").stringValue());
      assertEquals(DiscoverServer.NAME, discover.path("serverInfo").path("name").stringValue());
      assertTrue(discover.path("capabilities").path("tools").isObject(), discover.toString());

      session.send("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\",\"params\":{" + meta("alice") + "}}");
      Set<String> names = new TreeSet<>();
      session.awaitResponse(2).path("result").path("tools").forEach(tool -> names.add(tool.path("name").stringValue()));
      assertEquals(Set.of("echo", "whoami"), names);

      session.send("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"whoami\","
          + "\"arguments\":{}," + meta("alice") + "}}");
      session.send("{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":{\"name\":\"whoami\","
          + "\"arguments\":{}," + meta("bob") + "}}");
      assertEquals("client: alice", session.awaitResponse(3).path("result").path("content").path(0).path("text").stringValue());
      assertEquals("client: bob", session.awaitResponse(4).path("result").path("content").path(0).path("text").stringValue());

      session.send("{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\","
          + "\"arguments\":{\"text\":\"m-1\"}," + meta("alice") + "}}");
      assertEquals("m-1", session.awaitResponse(5).path("result").path("content").path(0).path("text").stringValue());
      assertEquals(0, session.closeStdinAndAwaitExit());
    }
  }

  @Test
  void refusesTheHandshakeEraAndRequestsWithoutMeta() throws Exception {
    try (RawStdioSession session = RawStdioSession.start(javaCommand(DiscoverServer.class))) {
      session.send("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\","
          + "\"capabilities\":{},\"clientInfo\":{\"name\":\"legacy\",\"version\":\"1\"}}}");
      JsonNode initialize = session.awaitResponse(1).path("error");
      assertEquals(DiscoverServer.UNSUPPORTED_PROTOCOL_VERSION, initialize.path("code").asInt());
      assertEquals("2026-07-28", initialize.path("data").path("supported").path(0).stringValue());

      session.send("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\",\"params\":{}}");
      assertEquals(-32602, session.awaitResponse(2).path("error").path("code").asInt());

      session.send("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/list\",\"params\":{\"_meta\":{"
          + "\"io.modelcontextprotocol/protocolVersion\":\"2025-11-25\",\"io.modelcontextprotocol/clientCapabilities\":{}}}}");
      assertEquals(DiscoverServer.UNSUPPORTED_PROTOCOL_VERSION, session.awaitResponse(3).path("error").path("code").asInt());

      session.send("not json at all");
      session.send("{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"prompts/list\",\"params\":{" + meta("x") + "}}");
      assertEquals(-32601, session.awaitResponse(4).path("error").path("code").asInt());
      assertEquals(0, session.closeStdinAndAwaitExit());
    }
  }
}
