package dev.cotenant.gateway.mux;

import dev.cotenant.spi.Mcp;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The bridge between protocol versions and the two handshake eras (rules 3 and 4 of
 * {@link Multiplexer}): what an {@code initialize}-era client is answered by a backend of either
 * era, or of another version of its own era, and the {@code _meta} entries a
 * {@code server/discover}-era backend expects in every request, built from a legacy client's own
 * {@code initialize} params. Between versions of the {@code initialize} era, what differs on the
 * wire for a client whose evidence says the server answers both alike is the version its
 * {@code initialize} is answered ({@link Channel#answeredVersion}); a request the server sends
 * that a client did not declare the capability for is answered as that client would
 * ({@link #undeclared}). Stateless.
 */
final class EraBridge {
  /** The client info of the multiplexer's own requests in the discover era, when no client's applies. */
  static final Map<String, Object> OWN_CLIENT_INFO = Map.of("name", "cotenant", "version", "1");

  private static final List<String> ERA_ENTRIES =
      List.of(Mcp.META_PROTOCOL_VERSION, Mcp.META_CLIENT_CAPABILITIES, Mcp.META_CLIENT_INFO);

  private EraBridge() {}

  /**
   * The era entries of a modern client's request {@code params}, to remember for the requests the
   * multiplexer writes on its behalf; empty when the request carries none.
   */
  static Map<String, Object> eraEntries(Map<String, Object> params) {
    Map<String, Object> meta = object(params.get("_meta"));
    if (!meta.containsKey(Mcp.META_PROTOCOL_VERSION)) {
      return Map.of();
    }
    Map<String, Object> era = new LinkedHashMap<>();
    for (String k : ERA_ENTRIES) {
      if (meta.containsKey(k)) {
        era.put(k, meta.get(k));
      }
    }
    return era;
  }

  /**
   * The params a client's request carries to the backend: a shallow copy with its own
   * {@code _meta} (which the caller may change), with the era's entries built from the client's
   * initialize params for a legacy client of a discover-era backend.
   */
  static Map<String, Object> backendParams(Bound b, Channel c, Map<String, Object> params) {
    Map<String, Object> out = new LinkedHashMap<>(params);
    Object m = params.get("_meta");
    Map<String, Object> meta = m instanceof Map<?, ?> ? new LinkedHashMap<>(object(m)) : null;
    if (b.discover() && c.legacyClient) {
      meta = meta == null ? new LinkedHashMap<>() : meta;
      meta.putAll(Mcp.modernMeta(c.clientInfo, c.capabilities));
    }
    if (meta != null) {
      out.put("_meta", meta);
    }
    return out;
  }

  /** {@code params} with the era entries of {@code c} for a request the multiplexer writes itself. */
  static Map<String, Object> withOwnMeta(Bound b, Channel c, Map<String, Object> params) {
    if (!b.discover()) {
      return params;
    }
    Map<String, Object> meta;
    if (c.legacyClient) {
      meta = Mcp.modernMeta(c.clientInfo, c.capabilities);
    } else if (!c.eraMeta.isEmpty()) {
      meta = new LinkedHashMap<>(c.eraMeta);
    } else {
      meta = Mcp.modernMeta(OWN_CLIENT_INFO, Map.of());
    }
    params.put("_meta", meta);
    return params;
  }

  /** The initialize result a client is answered with (rules 3 and 4). */
  static Map<String, Object> initializeResult(Bound b, Channel c, Map<String, Object> params) {
    if (!b.discover()) {
      if (c.answeredVersion == null || c.answeredVersion.equals(b.version())) {
        return b.handshake();
      }
      Map<String, Object> r = new LinkedHashMap<>(b.handshake());
      r.put("protocolVersion", c.answeredVersion);
      return r;
    }
    Object v = params.get("protocolVersion");
    String version = v instanceof String s && !s.isEmpty() ? s
        : c.legacyClient ? c.requestedVersion : Mcp.LEGACY_VERSION;
    Map<String, Object> r = new LinkedHashMap<>();
    r.put("protocolVersion", version);
    r.put("capabilities", b.handshake().getOrDefault("capabilities", Map.of()));
    r.put("serverInfo", b.handshake().getOrDefault("serverInfo", Map.of()));
    if (b.handshake().containsKey("instructions")) {
      r.put("instructions", b.handshake().get("instructions"));
    }
    return r;
  }

  /** The client capability a server request needs of its client; empty for a request any client answers. */
  static java.util.Optional<String> neededCapability(String method) {
    switch (method) {
      case "roots/list":
        return java.util.Optional.of("roots");
      case "sampling/createMessage":
        return java.util.Optional.of("sampling");
      case "elicitation/create":
        return java.util.Optional.of("elicitation");
      default:
        return java.util.Optional.empty();
    }
  }

  /**
   * The answer a client that did not declare the capability {@code method} needs gives it (a
   * client without a handler for it: method not found); empty when {@code c} declared it, or the
   * method needs none.
   */
  static java.util.Optional<dev.cotenant.spi.ServerMessageHandler.Reply> undeclared(Channel c, String method) {
    return neededCapability(method).filter(cap -> !c.capabilities.containsKey(cap)).map(cap ->
        new dev.cotenant.spi.ServerMessageHandler.Error(dev.cotenant.spi.rpc.ErrorCode.METHOD_NOT_FOUND.code(),
            "Method not found: " + method + " (the client declared no " + cap + " capability)"));
  }

  /** {@code value} when it is a JSON object, an empty map otherwise. */
  @SuppressWarnings("unchecked")
  static Map<String, Object> object(@Nullable Object value) {
    return value instanceof Map<?, ?> ? (Map<String, Object>) value : Map.of();
  }
}
