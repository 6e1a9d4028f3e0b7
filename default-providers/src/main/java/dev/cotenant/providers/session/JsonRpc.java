package dev.cotenant.providers.preflight;

import dev.cotenant.api.HandshakeComparator;
import dev.cotenant.api.Json;
import dev.cotenant.api.LogSafe;
import dev.cotenant.spi.HandshakeEra;
import dev.cotenant.spi.Mcp;
import dev.cotenant.spi.ServerMessageHandler;
import dev.cotenant.spi.SessionException;
import java.math.BigInteger;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The client side of MCP's JSON-RPC as this module speaks it, beyond what {@link Mcp} holds: the
 * messages {@link StdioSession} writes, how an answer is read and awaited, the reply to a server
 * request, and the {@link HandshakeEra#AUTO} fallback rule. The pre-flight reads answers with the
 * same helpers. Stateless.
 */
final class JsonRpc {
  private JsonRpc() {}

  /** A request with a numeric id. */
  static Map<String, Object> request(long id, String method, Map<String, Object> params) {
    return object("jsonrpc", "2.0", "id", id, "method", method, "params", params);
  }

  /** A notification; without {@code params} when they are {@code null}. */
  static Map<String, Object> notification(String method, Map<String, Object> params) {
    Map<String, Object> n = object("jsonrpc", "2.0", "method", method);
    if (params != null) {
      n.put("params", params);
    }
    return n;
  }

  /** The answer to the server's request {@code id}: a {@code result}, or an {@code error} with code and message. */
  static Map<String, Object> reply(Object id, ServerMessageHandler.Reply reply) {
    Map<String, Object> r = object("jsonrpc", "2.0", "id", id);
    if (reply instanceof ServerMessageHandler.Result) {
      r.put("result", ((ServerMessageHandler.Result) reply).value());
    } else {
      ServerMessageHandler.Error e = (ServerMessageHandler.Error) reply;
      r.put("error", object("code", e.code(), "message", e.message()));
    }
    return r;
  }

  /** {@code initialize} params offering {@value Mcp#LEGACY_VERSION}. */
  static Map<String, Object> initializeParams(Map<String, Object> clientInfo, Map<String, Object> capabilities) {
    return initializeParams(clientInfo, capabilities, Mcp.LEGACY_VERSION);
  }

  /** {@code initialize} params asking for {@code version}. */
  static Map<String, Object> initializeParams(Map<String, Object> clientInfo, Map<String, Object> capabilities,
      String version) {
    return object("protocolVersion", version, "capabilities", capabilities, "clientInfo", clientInfo);
  }

  /** {@code server/discover} params: only the {@link Mcp#modernMeta} {@code _meta}. */
  static Map<String, Object> discoverParams(Map<String, Object> clientInfo, Map<String, Object> capabilities) {
    return object("_meta", Mcp.modernMeta(clientInfo, capabilities));
  }

  /** A mutable JSON object with these keys and values, in this order. */
  static Map<String, Object> object(Object... keysAndValues) {
    Map<String, Object> o = new LinkedHashMap<>();
    for (int i = 0; i < keysAndValues.length; i += 2) {
      o.put((String) keysAndValues[i], keysAndValues[i + 1]);
    }
    return o;
  }

  /**
   * The {@code server/discover} result, when it offers {@value Mcp#MODERN_VERSION}.
   *
   * @throws SessionException of kind {@code ANSWER} otherwise
   */
  static Map<String, Object> offersModern(Map<String, Object> result) throws SessionException {
    Object supported = result.get(HandshakeComparator.SUPPORTED_VERSIONS);
    if (!(supported instanceof List<?>) || !((List<?>) supported).contains(Mcp.MODERN_VERSION)) {
      throw new SessionException(SessionException.Kind.ANSWER, "server/discover did not offer "
          + Mcp.MODERN_VERSION + " (offered " + LogSafe.escape(String.valueOf(supported), 80) + ")");
    }
    return result;
  }

  /**
   * {@link HandshakeEra#AUTO}: whether a {@code server/discover} that failed with {@code kind} is
   * followed by {@code initialize}: after an error or unfitting answer, an exit, or silence that
   * left time before {@code deadline} ({@link System#nanoTime()} based).
   */
  static boolean fallsBackAfterDiscover(SessionException.Kind kind, long deadline) {
    return kind == SessionException.Kind.ANSWER
        || kind == SessionException.Kind.EXITED
        || (kind == SessionException.Kind.TIMEOUT && System.nanoTime() < deadline);
  }

  /**
   * What a failure says was awaited when the server went away: {@code "before answering"} for a
   * handshake request ({@code initialize}, {@code server/discover}), which is the server's first
   * answer, otherwise {@code "before answering <method>"}.
   */
  static String beforeAnswering(String method) {
    return "initialize".equals(method) || "server/discover".equals(method)
        ? "before answering" : "before answering " + method;
  }

  /** {@code "15 s"} for a whole number of seconds, otherwise {@code "1500 ms"}. */
  static String duration(long millis) {
    return millis % 1000 == 0 && millis != 0 ? millis / 1000 + " s" : millis + " ms";
  }

  /**
   * The deadline of one wait for a {@code server/discover} answer: {@code discoverTimeout} from
   * now, never beyond {@code deadline}.
   */
  static long discoverDeadline(Duration discoverTimeout, long deadline) {
    return Math.min(deadline, System.nanoTime() + discoverTimeout.toNanos());
  }

  /**
   * Waits for {@code answer} until {@code deadline} ({@link System#nanoTime()} based).
   *
   * @param onTimeout the message of the {@code TIMEOUT} failure when nothing arrived in time
   * @throws SessionException of kind {@code TIMEOUT}, or the failure the answer completed with
   */
  static Map<String, Object> await(CompletableFuture<Map<String, Object>> answer, long deadline, String onTimeout)
      throws SessionException, InterruptedException {
    try {
      return answer.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      throw new SessionException(SessionException.Kind.TIMEOUT, onTimeout);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof SessionException) {
        throw (SessionException) e.getCause();
      }
      throw new SessionException(SessionException.Kind.GARBAGE,
          "the answer failed: " + LogSafe.escape(String.valueOf(e.getCause()), 160));
    }
  }

  /**
   * The {@code result} object of a response.
   *
   * @throws SessionException of kind {@code ANSWER} for an error or a result that is not an object
   */
  static Map<String, Object> result(Map<String, Object> response, String method) throws SessionException {
    if (response.containsKey("error")) {
      Object err = response.get("error");
      String msg = err instanceof Map<?, ?> && ((Map<?, ?>) err).get("message") instanceof String
          ? ": " + LogSafe.escape((String) ((Map<?, ?>) err).get("message"), 80) : "";
      throw new SessionException(SessionException.Kind.ANSWER,
          method + " answered error " + errorCode(response) + msg);
    }
    Object result = response.get("result");
    if (!(result instanceof Map<?, ?>)) {
      throw new SessionException(SessionException.Kind.ANSWER, method + " answered without a result object");
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
}
