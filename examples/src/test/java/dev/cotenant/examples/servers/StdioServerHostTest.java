package dev.cotenant.examples.servers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

/** The stdin relay and stdout filter the sample servers run behind. */
class StdioServerHostTest {

  private static final JsonMapper JSON = JsonMapper.builder().build();

  private static final String INITIALIZE = "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"initialize\",\"params\":{"
      + "\"protocolVersion\":\"2025-06-18\",\"capabilities\":{\"roots\":{\"listChanged\":true},\"sampling\":{}},"
      + "\"clientInfo\":{\"name\":\"second-caller\",\"version\":\"2.0\"}}}";

  @Test
  void relayPassesEveryLineThroughAndNotesTheInitializingClient() throws Exception {
    String input = "not json\n" + INITIALIZE + "\n{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n";
    ByteArrayOutputStream relayed = new ByteArrayOutputStream();
    StdioServerHost.InitializeWatch watch = new StdioServerHost.InitializeWatch();
    StdioServerHost.relayUntilEndOfInput(new ByteArrayInputStream(input.getBytes(StandardCharsets.UTF_8)), relayed, watch);
    assertEquals(input, relayed.toString(StandardCharsets.UTF_8));
    assertEquals(new ClientHandshake("second-caller", "2.0", Set.of("roots", "sampling")), watch.caller());
    assertTrue(watch.isInitializeId(JSON.readTree("7")));
    assertFalse(watch.isInitializeId(JSON.readTree("\"7\"")), "ids compare as JSON values");
  }

  @Test
  void aClientThatNeverInitializedDeclaresNothing() {
    StdioServerHost.InitializeWatch watch = new StdioServerHost.InitializeWatch();
    watch.observe(JSON, "{\"jsonrpc\":\"2.0\",\"method\":\"initialize\",\"params\":{\"capabilities\":{\"roots\":{}}}}");
    assertEquals(ClientHandshake.NONE, watch.caller(), "an initialize without an id is a notification, ignored");
    assertFalse(ClientHandshake.NONE.declares("roots"));
  }

  @Test
  void filterRemovesLoggingFromTheInitializeAnswerOnlyAndKeepsEveryOtherByte() throws Exception {
    StdioServerHost.InitializeWatch watch = new StdioServerHost.InitializeWatch();
    watch.observe(JSON, INITIALIZE);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    String notification = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"logging\":{}}}\n";
    String otherAnswer = "{\"jsonrpc\":\"2.0\",\"id\":8,\"result\":{\"capabilities\":{\"logging\":{}}}}\n";
    String initAnswer = "{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"protocolVersion\":\"2025-06-18\","
        + "\"capabilities\":{\"logging\":{},\"tools\":{\"listChanged\":false},\"experimental\":{\"x\":{}}},"
        + "\"serverInfo\":{\"name\":\"s\",\"version\":\"1\"}}}\n";
    try (StdioServerHost.InitializeAnswerFilter filter = new StdioServerHost.InitializeAnswerFilter(out, watch)) {
      byte[] all = (notification + initAnswer + otherAnswer).getBytes(StandardCharsets.UTF_8);
      filter.write(all, 0, 10);
      filter.write(all, 10, all.length - 10);
    }
    String[] lines = out.toString(StandardCharsets.UTF_8).split("\n");
    assertEquals(3, lines.length);
    assertEquals(notification.strip(), lines[0]);
    assertEquals(JSON.readTree("{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"protocolVersion\":\"2025-06-18\","
        + "\"capabilities\":{\"tools\":{\"listChanged\":false},\"experimental\":{\"x\":{}}},"
        + "\"serverInfo\":{\"name\":\"s\",\"version\":\"1\"}}}"), JSON.readTree(lines[1]));
    assertEquals(otherAnswer.strip(), lines[2], "only the initialize answer is touched");
  }

  @Test
  void callerScopeNeedsABlockWithANonBlankSession() {
    String key = CallerIdentityServer.CALLER_META_KEY;
    assertEquals("s1", CallerIdentityServer.callerScope(Map.of(key, Map.of("session", "s1"))).orElseThrow());
    assertEquals("t1/s1", CallerIdentityServer.callerScope(Map.of(key, Map.of("session", "s1", "tenant", "t1"))).orElseThrow());
    assertTrue(CallerIdentityServer.callerScope(null).isEmpty());
    assertTrue(CallerIdentityServer.callerScope(Map.of(key, "s1")).isEmpty());
    assertTrue(CallerIdentityServer.callerScope(Map.of(key, Map.of("session", " "))).isEmpty());
    assertTrue(CallerIdentityServer.callerScope(Map.of("other", Map.of("session", "s1"))).isEmpty());
  }

  @Test
  void conditionalToolsFollowTheDeclaredCapability() {
    ClientHandshake plain = new ClientHandshake("a", "1", Set.of());
    ClientHandshake rich = new ClientHandshake("b", "1", Set.of("roots", "sampling", "elicitation"));
    for (String tool : CallerToolsServer.TOOL_REQUIRES.keySet()) {
      assertFalse(CallerToolsServer.visibleTo(plain, tool), tool);
      assertTrue(CallerToolsServer.visibleTo(rich, tool), tool);
    }
    assertTrue(CallerToolsServer.visibleTo(plain, "echo"));
  }
}
