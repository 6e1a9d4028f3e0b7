package dev.cotenant.cli.daemon.api;

import dev.cotenant.cli.views.Output;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/** An answer of the API: status, JSON body, extra headers. Immutable once made. */
record Answer(int status, byte[] body, Map<String, String> headers) {
  /** {@code 200} with {@code node}. */
  static Answer ok(JsonNode node) {
    return of(200, node);
  }

  /** {@code status} with {@code node}. */
  static Answer of(int status, JsonNode node) {
    return new Answer(status, Output.text(node).getBytes(StandardCharsets.UTF_8), Map.of());
  }

  /** The refusal {@code e}: {@code {"code","message"}} with its status and headers. */
  static Answer error(ApiError e) {
    ObjectNode o = Output.object();
    o.put("code", e.code());
    o.put("message", String.valueOf(e.getMessage()));
    return new Answer(e.status(), Output.text(o).getBytes(StandardCharsets.UTF_8), e.headers());
  }
}
