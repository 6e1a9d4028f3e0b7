package dev.cotenant.examples.preflight;

import static dev.cotenant.examples.preflight.PreflightFixture.BOUND;
import static dev.cotenant.examples.preflight.PreflightFixture.REPOSITORY_ROOT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.testkit.process.ChecksProcessLeaks;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Why the pre-flight finds {@code @modelcontextprotocol/server-everything} caller-sensitive: it
 * registers some tools only for a client that declared the matching client capability (in its
 * {@code notifications/initialized} handler, from the capabilities {@code initialize} carried).
 * The pre-flight's second caller declares {@code roots}, {@code sampling} and
 * {@code elicitation}, the first none, so a pooled backend would list the second caller's tools
 * to the first, or the reverse. Shown here with plain JSON-RPC sessions, one capability at a
 * time, through {@code examples/bin/server-everything}.
 */
@ChecksProcessLeaks(waitMillis = PreflightFixture.BOUND_MILLIS)
class ServerEverythingToolsIT {

  /** The tool server-everything adds for each client capability. */
  static final Map<String, String> CONDITIONAL_TOOLS = Map.of(
      "roots", "get-roots-list",
      "sampling", "trigger-sampling-request",
      "elicitation", "trigger-elicitation-request");

  private static final JsonMapper JSON = JsonMapper.builder().build();

  @BeforeAll
  static void built() {
    PreflightFixture.requireBuiltServers();
  }

  @Test
  void eachClientCapabilityAddsItsOwnTool() throws Exception {
    Set<String> plain = toolsListedTo(Map.of());
    assertTrue(plain.contains("echo"), plain.toString());
    for (String tool : CONDITIONAL_TOOLS.values()) {
      assertFalse(plain.contains(tool), tool + " is not listed to a client without capabilities: " + plain);
    }
    for (Map.Entry<String, String> e : CONDITIONAL_TOOLS.entrySet()) {
      Set<String> expected = new TreeSet<>(plain);
      expected.add(e.getValue());
      assertEquals(expected, toolsListedTo(Map.of(e.getKey(), Map.of())), "declaring " + e.getKey());
    }
  }

  @Test
  void theSecondPreflightCallerIsListedAllThree() throws Exception {
    Set<String> expected = new TreeSet<>(toolsListedTo(Map.of()));
    expected.addAll(CONDITIONAL_TOOLS.values());
    assertEquals(expected, toolsListedTo(
        Map.of("roots", Map.of("listChanged", true), "sampling", Map.of(), "elicitation", Map.of())));
  }

  /**
   * The tool names a client declaring {@code capabilities} is listed, in a conversation that
   * waits for every answer before the next message (as the pre-flight does); the server is then
   * torn down.
   */
  private static Set<String> toolsListedTo(Map<String, Object> capabilities) throws Exception {
    Process process = new ProcessBuilder(REPOSITORY_ROOT.resolve("examples/bin/server-everything").toString())
        .redirectError(ProcessBuilder.Redirect.DISCARD)
        .start();
    try {
      BlockingQueue<String> lines = new LinkedBlockingQueue<>();
      Thread reader = new Thread(() -> {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
          String line;
          while ((line = in.readLine()) != null) {
            lines.add(line);
          }
        } catch (IOException e) {
          // The process went away; the wait below reports it.
        }
      }, "server-everything-stdout");
      reader.setDaemon(true);
      reader.start();
      OutputStream stdin = process.getOutputStream();
      Map<String, Object> params = new LinkedHashMap<>();
      params.put("protocolVersion", PreflightFixture.HANDSHAKE_ERA);
      params.put("capabilities", capabilities);
      params.put("clientInfo", Map.of("name", "server-everything-tools-it", "version", "1.0.0"));
      send(stdin, Map.of("jsonrpc", "2.0", "id", 1, "method", "initialize", "params", params));
      await(process, lines, stdin, 1);
      send(stdin, Map.of("jsonrpc", "2.0", "method", "notifications/initialized"));
      send(stdin, Map.of("jsonrpc", "2.0", "id", 2, "method", "tools/list", "params", Map.of()));
      JsonNode result = await(process, lines, stdin, 2).path("result");
      assertTrue(result.path("nextCursor").isMissingNode(), "one page: " + result.path("nextCursor"));
      Set<String> names = new TreeSet<>();
      result.path("tools").forEach(tool -> names.add(tool.path("name").asString("")));
      // Teardown as the pre-flight's: close stdin, then SIGTERM. A client that declared roots
      // leaves a roots/list request pending, which keeps the server alive long after its stdin
      // closes (until that request times out), so closing stdin alone is not enough.
      stdin.close();
      process.destroy();
      assertTrue(process.waitFor(BOUND.toMillis(), TimeUnit.MILLISECONDS), "exits on SIGTERM");
      return names;
    } finally {
      process.destroyForcibly();
    }
  }

  private static void send(OutputStream stdin, Map<String, Object> message) throws IOException {
    stdin.write(JSON.writeValueAsBytes(message));
    stdin.write('\n');
    stdin.flush();
  }

  /** The response with {@code id}; a request from the server is answered on the way ({@code roots/list} with no roots). */
  private static JsonNode await(Process process, BlockingQueue<String> lines, OutputStream stdin, int id)
      throws Exception {
    long deadline = System.nanoTime() + BOUND.toNanos();
    while (true) {
      long left = deadline - System.nanoTime();
      String line = left > 0 ? lines.poll(left, TimeUnit.NANOSECONDS) : null;
      if (line == null) {
        throw new AssertionError("no response with id " + id + " within " + BOUND + "; alive: " + process.isAlive());
      }
      JsonNode message = JSON.readTree(line);
      if (message.has("method") && message.has("id")) {
        Map<String, Object> reply = new LinkedHashMap<>();
        reply.put("jsonrpc", "2.0");
        reply.put("id", JSON.treeToValue(message.get("id"), Object.class));
        if (message.path("method").asString("").equals("roots/list")) {
          reply.put("result", Map.of("roots", List.of()));
        } else {
          reply.put("error", Map.of("code", -32601, "message", "Method not found"));
        }
        send(stdin, reply);
      } else if (message.path("id").isNumber() && message.path("id").asInt() == id) {
        return message;
      }
    }
  }
}
