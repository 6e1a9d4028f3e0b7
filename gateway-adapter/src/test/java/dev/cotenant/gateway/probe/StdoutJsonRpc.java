package dev.cotenant.gateway.probe;

import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import tools.jackson.databind.json.JsonMapper;

/** How the probe tests' scripted servers read JSON-RPC from standard input and write it to standard output: one message per line, whole. */
final class StdoutJsonRpc {
  private static final JsonMapper MAPPER = JsonMapper.builder().build();

  private final PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), false, StandardCharsets.UTF_8);

  /** What a scripted server does with one message it read. */
  interface Handler {
    /** One message: its {@code method} and {@code id} (either may be null) and its {@code params} (empty when absent). */
    void handle(Object method, Object id, Map<String, Object> params) throws Exception;
  }

  /** Reads standard input until it closes, one JSON-RPC message a line (blank lines skipped), handing each to {@code handler}. */
  static void readStdin(Handler handler) throws Exception {
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    String line;
    while ((line = in.readLine()) != null) {
      if (line.isBlank()) {
        continue;
      }
      @SuppressWarnings("unchecked")
      Map<String, Object> msg = MAPPER.readValue(line, Map.class);
      @SuppressWarnings("unchecked")
      Map<String, Object> params = msg.get("params") instanceof Map ? (Map<String, Object>) msg.get("params") : Map.of();
      handler.handle(msg.get("method"), msg.get("id"), params);
    }
  }

  void result(Object id, Object result) {
    write(Map.of("jsonrpc", "2.0", "id", id, "result", result));
  }

  void error(Object id, int code, String message) {
    write(Map.of("jsonrpc", "2.0", "id", id, "error", Map.of("code", code, "message", message)));
  }

  void notify(String method, Map<String, Object> params) {
    write(Map.of("jsonrpc", "2.0", "method", method, "params", params));
  }

  void write(Map<String, Object> message) {
    synchronized (out) {
      out.println(MAPPER.writeValueAsString(message));
      out.flush();
    }
  }
}
