package dev.cotenant.cli.daemon.http;

import dev.cotenant.api.Json;
import java.util.Map;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.json.JsonMapper;

/**
 * JSON text in and out of the endpoint: plain JSON values ({@link Json#NULL} for null). What the
 * values mean is {@link dev.cotenant.spi.rpc}'s to say. Stateless.
 */
final class JsonRpc {
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
}
