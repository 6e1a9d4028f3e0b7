package dev.cotenant.providers.preflight;

import dev.cotenant.api.HandshakeComparator;
import dev.cotenant.api.LogSafe;
import dev.cotenant.spi.HandshakeEra;
import dev.cotenant.spi.Mcp;
import java.math.BigInteger;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The client side of MCP's JSON-RPC that {@link CallerHandshake} and {@link StdioSession} share:
 * the messages they write, how they read the server's answers, what they answer to the server's
 * own requests, and the {@link HandshakeEra#AUTO} fallback rule. Stateless.
 */
final class JsonRpc {
  private JsonRpc() {}

  /** A request with a numeric id. */
  static Map<String, Object> request(long id, String method, Map<String, Object> params) {
    return object("jsonrpc", "2.0", "id", id, "method", method, "params", params);
  }

  /** The {@code notifications/initialized} that follows an answered {@code initialize}. */
  static Map<String, Object> initialized() {
    return object("jsonrpc", "2.0", "method", "notifications/initialized");
  }

  /** {@code initialize} params offering {@value Mcp#LEGACY_VERSION}. */
  static Map<String, Object> initializeParams(Map<String, Object> clientInfo, Map<String, Object> capabilities) {
    return object("protocolVersion", Mcp.LEGACY_VERSION,
        "capabilities", capabilities, "clientInfo", clientInfo);
  }

  /** {@code server/discover} params: only the {@link Mcp#modernMeta} {@code _meta}. */
  static Map<String, Object> discoverParams(Map<String, Object> clientInfo, Map<String, Object> capabilities) {
    return object("_meta", Mcp.modernMeta(clientInfo, capabilities));
  }

  /** A mutable JSON object with these keys and values, in this order. */
  private static Map<String, Object> object(Object... keysAndValues) {
    Map<String, Object> o = new LinkedHashMap<>();
    for (int i = 0; i < keysAndValues.length; i += 2) {
      o.put((String) keysAndValues[i], keysAndValues[i + 1]);
    }
    return o;
  }

  /**
   * The {@code server/discover} result, when it offers {@value Mcp#MODERN_VERSION}.
   *
   * @throws HandshakeFailure of kind {@code ANSWER} otherwise
   */
  static Map<String, Object> offersModern(Map<String, Object> result) throws HandshakeFailure {
    Object supported = result.get(HandshakeComparator.SUPPORTED_VERSIONS);
    if (!(supported instanceof List<?>) || !((List<?>) supported).contains(Mcp.MODERN_VERSION)) {
      throw new HandshakeFailure(HandshakeFailure.Kind.ANSWER, "server/discover did not offer "
          + Mcp.MODERN_VERSION + " (offered " + LogSafe.escape(String.valueOf(supported), 80) + ")");
    }
    return result;
  }

  /**
   * {@link HandshakeEra#AUTO}: whether a {@code server/discover} that failed with {@code kind} is followed
   * by {@code initialize}: after an error or unfitting answer, an exit, or silence that left time
   * before {@code deadline} ({@link System#nanoTime()} based).
   */
  static boolean fallsBackAfterDiscover(HandshakeFailure.Kind kind, long deadline) {
    return kind == HandshakeFailure.Kind.ANSWER
        || kind == HandshakeFailure.Kind.EXITED
        || (kind == HandshakeFailure.Kind.TIMEOUT && System.nanoTime() < deadline);
  }

  /**
   * The deadline of one wait for a {@code server/discover} answer: the discover timeout from now,
   * never beyond {@code deadline}.
   */
  static long discoverDeadline(PreflightSettings settings, long deadline) {
    return Math.min(deadline, System.nanoTime() + settings.discoverTimeout().toNanos());
  }

  /**
   * The {@code result} object of a response.
   *
   * @throws HandshakeFailure of kind {@code ANSWER} for an error or a result that is not an object
   */
  static Map<String, Object> result(Map<String, Object> response, String method) throws HandshakeFailure {
    if (response.containsKey("error")) {
      Object err = response.get("error");
      String msg = err instanceof Map<?, ?> && ((Map<?, ?>) err).get("message") instanceof String
          ? ": " + LogSafe.escape((String) ((Map<?, ?>) err).get("message"), 80) : "";
      throw new HandshakeFailure(HandshakeFailure.Kind.ANSWER,
          method + " answered error " + errorCode(response) + msg);
    }
    Object result = response.get("result");
    if (!(result instanceof Map<?, ?>)) {
      throw new HandshakeFailure(HandshakeFailure.Kind.ANSWER, method + " answered without a result object");
    }
    @SuppressWarnings("unchecked")
    Map<String, Object> map = (Map<String, Object>) result;
    return map;
  }

  /** The numeric {@code error.code} of an error response, or {@code "?"}. */
  static String errorCode(Map<String, Object> response) {
    Object err = response.get("error");
    Object code = err instanceof Map<?, ?> ? ((Map<?, ?>) err).get("code") : null;
    return code instanceof Number ? String.valueOf(code) : "?";
  }

  /**
   * The id of a response (a message with {@code result} or {@code error}) when it is one this
   * client could have sent: an integral number that fits a {@code long}.
   */
  static Optional<Long> responseId(Map<String, Object> message) {
    if (!message.containsKey("result") && !message.containsKey("error")) {
      return Optional.empty();
    }
    Object value = message.get("id");
    if (value instanceof Integer || value instanceof Long || value instanceof Short) {
      return Optional.of(((Number) value).longValue());
    }
    if (value instanceof BigInteger && ((BigInteger) value).bitLength() < 64) {
      return Optional.of(((BigInteger) value).longValue());
    }
    return Optional.empty();
  }

  /**
   * When {@code message} comes from the server on its own initiative (it has a {@code method}),
   * answers it if it is a request and returns true; notifications need no answer. Answers
   * {@code roots/list} with no roots, {@code ping} with {@code {}}, {@code sampling/createMessage}
   * and {@code elicitation/create} with an error saying {@code declined}, anything else with
   * {@code -32601}.
   *
   * @param when names the moment in the failure when the server is gone
   * @throws HandshakeFailure when the answer cannot be written
   */
  static boolean answerIfFromServer(ServerProcess p, Map<String, Object> message, String declined, String when)
      throws HandshakeFailure {
    Object method = message.get("method");
    if (!(method instanceof String)) {
      return false;
    }
    if (!message.containsKey("id")) {
      return true;
    }
    Map<String, Object> reply = object("jsonrpc", "2.0", "id", message.get("id"));
    switch ((String) method) {
      case "roots/list":
        reply.put("result", Map.of("roots", List.of()));
        break;
      case "ping":
        reply.put("result", Map.of());
        break;
      case "sampling/createMessage":
      case "elicitation/create":
        reply.put("error", Map.of("code", -1, "message", declined));
        break;
      default:
        reply.put("error", Map.of("code", -32601, "message", "Method not found"));
    }
    p.send(reply, when);
    return true;
  }
}
