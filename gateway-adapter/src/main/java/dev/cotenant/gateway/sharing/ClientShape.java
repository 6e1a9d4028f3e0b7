package dev.cotenant.gateway.sharing;

import dev.cotenant.api.Json;
import dev.cotenant.spi.Mcp;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import tools.jackson.databind.json.JsonMapper;

/**
 * What a client negotiates with a server, and so what a backend must have been started with to
 * serve it as a server of its own would: the protocol version its {@code initialize} asked for
 * and the capabilities it declared. Clients of one server share a backend only when their shapes
 * are equal ({@link #key()}); the backend is started asking for that version and presenting
 * those capabilities, so each client is answered the version and capabilities that backend
 * negotiated for exactly its request (docs/pool.md, "Who shares a backend").
 *
 * <p>A client of the 2026-07-28 era sends no {@code initialize}: its shape is
 * {@value Mcp#MODERN_VERSION} with no capabilities (it names its capabilities in each request).
 *
 * @param protocolVersion the version the client asked for
 * @param capabilities the capabilities it declared, as plain JSON values
 */
public record ClientShape(String protocolVersion, Map<String, Object> capabilities) {
  private static final JsonMapper MAPPER = JsonMapper.builder().build();

  /** Checks and freezes the parts. */
  public ClientShape {
    Objects.requireNonNull(protocolVersion, "protocolVersion");
    capabilities = Json.freezeMap(Objects.requireNonNull(capabilities, "capabilities"));
  }

  /** The shape of a client whose {@code initialize} had {@code initializeParams} (empty: a 2026-07-28 client). */
  public static ClientShape of(Map<String, Object> initializeParams) {
    Objects.requireNonNull(initializeParams, "initializeParams");
    Object v = initializeParams.get("protocolVersion");
    String version = v instanceof String && !((String) v).isEmpty() ? (String) v : Mcp.MODERN_VERSION;
    Object c = initializeParams.get("capabilities");
    @SuppressWarnings("unchecked")
    Map<String, Object> caps = c instanceof Map<?, ?> ? (Map<String, Object>) c : Map.of();
    return new ClientShape(version, caps);
  }

  /**
   * The shape as one canonical JSON text, {@code {"capabilities":{...},"protocolVersion":"..."}}
   * with the keys of every object sorted: equal shapes have equal keys, whatever order a client
   * wrote its capabilities in.
   */
  public String key() {
    Map<String, Object> o = new TreeMap<>();
    o.put("capabilities", sorted(capabilities));
    o.put("protocolVersion", protocolVersion);
    return MAPPER.writeValueAsString(o);
  }

  /** Which of {@link Mcp#ASKED_OF_CLIENTS} the client declared, in that order. */
  public List<String> askedOfClients() {
    List<String> declared = new ArrayList<>();
    for (String c : Mcp.ASKED_OF_CLIENTS) {
      if (capabilities.containsKey(c)) {
        declared.add(c);
      }
    }
    return declared;
  }

  private static Object sorted(Object value) {
    if (value instanceof Map<?, ?>) {
      Map<String, Object> m = new TreeMap<>();
      ((Map<?, ?>) value).forEach((k, v) -> m.put(String.valueOf(k), sorted(v)));
      return m;
    }
    if (value instanceof List<?>) {
      List<Object> l = new ArrayList<>();
      ((List<?>) value).forEach(v -> l.add(sorted(v)));
      return l;
    }
    return Json.thaw(value);
  }
}
