package dev.cotenant.gateway.probe;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import tools.jackson.databind.json.JsonMapper;

/** How the probe tests' scripted servers write JSON-RPC to standard output: one message per line, whole. */
final class StdoutJsonRpc {
  private static final JsonMapper MAPPER = JsonMapper.builder().build();

  private final PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), false, StandardCharsets.UTF_8);

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
