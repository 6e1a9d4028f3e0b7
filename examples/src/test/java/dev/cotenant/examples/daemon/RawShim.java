package dev.cotenant.examples.daemon;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import tools.jackson.databind.JsonNode;

/**
 * A raw JSON-RPC client on a shim process ({@code cotenant connect}): the client side of its
 * stdio, line by line. Server requests it reads while waiting for an answer are kept
 * ({@link #asked}) and answered: {@code roots/list} with its own roots, anything else with an
 * error.
 */
final class RawShim {
  final Process process;
  final OutputStream in;
  final BufferedReader out;
  final CompletableFuture<String> err;
  /** The methods of the server requests read so far. */
  final List<String> asked = new CopyOnWriteArrayList<>();
  private String rootUri = "";

  RawShim(DaemonFixture f, String server) throws Exception {
    this(f, DaemonFixture.shimCommand(server));
  }

  RawShim(DaemonFixture f, List<String> command) throws Exception {
    process = f.start(command, Map.of());
    in = process.getOutputStream();
    out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    err = DaemonFixture.drain(process.getErrorStream());
  }

  void send(String json) throws Exception {
    in.write((json + "\n").getBytes(StandardCharsets.UTF_8));
    in.flush();
  }

  /** Reads until the answer to {@code id}, answering the server requests read meanwhile. */
  JsonNode answer(int id) throws Exception {
    String line;
    while ((line = out.readLine()) != null) {
      JsonNode n = DaemonFixture.JSON.readTree(line);
      if (n.has("method") && n.has("id")) {
        String method = n.path("method").asString();
        asked.add(method);
        String id2 = DaemonFixture.JSON.writeValueAsString(n.get("id"));
        send(method.equals("roots/list") && !rootUri.isEmpty()
            ? "{\"jsonrpc\":\"2.0\",\"id\":" + id2 + ",\"result\":{\"roots\":[{\"uri\":\"" + rootUri + "\",\"name\":\"own\"}]}}"
            : "{\"jsonrpc\":\"2.0\",\"id\":" + id2 + ",\"error\":{\"code\":-32601,\"message\":\"not supported\"}}");
        continue;
      }
      if (n.path("id").asInt(-1) == id && !n.has("method")) {
        return n;
      }
    }
    throw new AssertionError("no answer to " + id + "; stderr: " + err.getNow(""));
  }

  /** Initializes as a 2025-11-25 client declaring no capability. */
  void initialize() throws Exception {
    initialize("2025-11-25", "");
  }

  /**
   * Initializes asking for {@code version}; a non-empty {@code rootUri} declares {@code roots}
   * and is the one root it answers {@code roots/list} with. Returns the initialize result.
   */
  JsonNode initialize(String version, String root) throws Exception {
    rootUri = root;
    String capabilities = root.isEmpty() ? "{}" : "{\"roots\":{\"listChanged\":true}}";
    send("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"" + version + "\","
        + "\"capabilities\":" + capabilities + ",\"clientInfo\":{\"name\":\"raw\",\"version\":\"1\"}}}");
    JsonNode answer = answer(1);
    assertTrue(answer.has("result"), answer.toString());
    send("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
    return answer.path("result");
  }

  /** Calls {@code tool} with {@code argsJson} under {@code id}; the answer's first text. */
  String call(int id, String tool, String argsJson) throws Exception {
    send("{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":{\"name\":\"" + tool
        + "\",\"arguments\":" + argsJson + "}}");
    JsonNode a = answer(id);
    return a.has("result") ? a.path("result").path("content").path(0).path("text").asString() : a.toString();
  }

  /** Waits for the shim to exit; its exit status. */
  int exit() throws Exception {
    assertTrue(process.waitFor(DaemonFixture.BOUND.toSeconds(), java.util.concurrent.TimeUnit.SECONDS), "the shim exited");
    return process.exitValue();
  }
}
