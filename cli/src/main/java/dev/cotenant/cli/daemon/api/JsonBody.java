package dev.cotenant.cli.daemon.api;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * A request body: one JSON object (an empty body reads as {@code {}}), with typed access to its
 * fields. A body that is not JSON is {@code bad_json}; JSON that is not an object, a field the
 * route does not know, or a field of the wrong type is {@code bad_request}. Immutable.
 */
final class JsonBody {
  /** The largest body read, in bytes. */
  static final int MAX_BYTES = 1024 * 1024;

  private static final JsonMapper MAPPER =
      JsonMapper.builder().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS).build();

  private final ObjectNode root;

  private JsonBody(ObjectNode root) {
    this.root = root;
  }

  /**
   * Parses {@code bytes}, allowing only the fields {@code known}.
   *
   * @throws ApiError {@code bad_json} or {@code bad_request}
   */
  static JsonBody parse(byte[] bytes, String... known) throws ApiError {
    if (bytes.length > MAX_BYTES) {
      throw ApiError.badRequest("the request body is larger than " + MAX_BYTES + " bytes");
    }
    JsonNode n;
    if (new String(bytes, java.nio.charset.StandardCharsets.UTF_8).isBlank()) {
      n = JsonNodeFactory.instance.objectNode();
    } else {
      try {
        n = MAPPER.readTree(bytes);
      } catch (JacksonException e) {
        throw new ApiError(400, "bad_json", "the body is not one JSON value: "
            + dev.cotenant.api.LogSafe.escape(String.valueOf(e.getOriginalMessage()), 200));
      }
    }
    if (n == null || !n.isObject()) {
      throw ApiError.badRequest("the body must be a JSON object");
    }
    ObjectNode o = (ObjectNode) n;
    Set<String> allowed = Set.of(known);
    for (Map.Entry<String, JsonNode> e : o.properties()) {
      if (!allowed.contains(e.getKey())) {
        throw ApiError.badRequest("unknown field '" + dev.cotenant.api.LogSafe.escape(e.getKey(), 100)
            + "'; this route takes " + (known.length == 0 ? "no field" : String.join(", ", Arrays.asList(known))));
      }
    }
    return new JsonBody(o);
  }

  private Optional<JsonNode> field(String name) {
    JsonNode v = root.get(name);
    return v == null || v.isNull() ? Optional.empty() : Optional.of(v);
  }

  /** A required non-empty string. */
  String string(String name) throws ApiError {
    return optionalString(name).orElseThrow(() -> ApiError.badRequest("'" + name + "' is required"));
  }

  /** An optional non-empty string. */
  Optional<String> optionalString(String name) throws ApiError {
    Optional<JsonNode> v = field(name);
    if (v.isEmpty()) {
      return Optional.empty();
    }
    if (!v.get().isString() || v.get().stringValue().isEmpty()) {
      throw ApiError.badRequest("'" + name + "' must be a non-empty string");
    }
    return Optional.of(v.get().stringValue());
  }

  /** An optional integer within {@code [min, max]}. */
  Optional<Integer> optionalInt(String name, int min, int max) throws ApiError {
    Optional<JsonNode> v = field(name);
    if (v.isEmpty()) {
      return Optional.empty();
    }
    if (!v.get().isIntegralNumber() || !v.get().canConvertToInt() || v.get().intValue() < min || v.get().intValue() > max) {
      throw ApiError.badRequest("'" + name + "' must be an integer from " + min + " to " + max);
    }
    return Optional.of(v.get().intValue());
  }

  /** An optional boolean. */
  Optional<Boolean> optionalBoolean(String name) throws ApiError {
    Optional<JsonNode> v = field(name);
    if (v.isEmpty()) {
      return Optional.empty();
    }
    if (!v.get().isBoolean()) {
      throw ApiError.badRequest("'" + name + "' must be true or false");
    }
    return Optional.of(v.get().booleanValue());
  }

  /** An optional list of non-empty strings; empty when absent. */
  List<String> strings(String name) throws ApiError {
    Optional<JsonNode> v = field(name);
    if (v.isEmpty()) {
      return List.of();
    }
    if (!v.get().isArray()) {
      throw ApiError.badRequest("'" + name + "' must be an array of names");
    }
    List<String> out = new ArrayList<>();
    for (JsonNode e : v.get()) {
      if (!e.isString() || e.stringValue().isEmpty()) {
        throw ApiError.badRequest("'" + name + "' must be an array of non-empty strings");
      }
      if (!out.contains(e.stringValue())) {
        out.add(e.stringValue());
      }
    }
    return out;
  }
}
