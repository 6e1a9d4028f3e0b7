package dev.cotenant.cli.daemon.http;

import dev.cotenant.api.Json;
import java.math.BigDecimal;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.json.JsonMapper;

/** JSON-RPC text in and out of the endpoint: plain JSON values ({@link Json#NULL} for null). Stateless. */
final class JsonRpc {
  /** JSON-RPC {@code Parse error}. */
  static final int PARSE_ERROR = -32700;

  /** JSON-RPC {@code Invalid Request}. */
  static final int INVALID_REQUEST = -32600;

  /** JSON-RPC {@code Internal error}. */
  static final int INTERNAL_ERROR = -32603;

  /** A session the request names does not exist (the MCP SDKs' code for it). */
  static final int SESSION_NOT_FOUND = -32001;

  private static final JsonMapper MAPPER =
      JsonMapper.builder().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS).build();

  private JsonRpc() {}

  /**
   * Parses one JSON text into plain JSON values.
   *
   * @throws JacksonException when it is not one JSON value
   */
  static Object parse(byte[] text) {
    return Json.freeze(MAPPER.readValue(text, Object.class));
  }

  /** The JSON text of a message. */
  static String encode(Map<String, Object> message) {
    return MAPPER.writeValueAsString(Json.thaw(message));
  }

  /** An error answer; {@code id} {@code null} when the request's id is unknown. */
  static Map<String, Object> error(@Nullable Object id, int code, String message) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("jsonrpc", "2.0");
    m.put("id", id == null ? Json.NULL : id);
    m.put("error", Map.of("code", code, "message", message));
    return m;
  }

  /** A key under which equal JSON-RPC ids are equal: {@code 1} and {@code 1.0} alike, {@code "1"} apart. */
  static String key(Object id) {
    if (id instanceof Number n) {
      try {
        return "n:" + new BigDecimal(n.toString()).stripTrailingZeros().toPlainString();
      } catch (NumberFormatException e) {
        return "n:" + n;
      }
    }
    return id instanceof String s ? "s:" + s : "o:" + id;
  }

  /** {@code value} as an object, or an empty map. */
  @SuppressWarnings("unchecked")
  static Map<String, Object> object(@Nullable Object value) {
    return value instanceof Map<?, ?> ? (Map<String, Object>) value : Map.of();
  }
}
