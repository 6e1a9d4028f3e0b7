package dev.cotenant.providers.session;

import dev.cotenant.api.HandshakeComparator;
import dev.cotenant.api.LogSafe;
import dev.cotenant.spi.HandshakeEra;
import dev.cotenant.spi.Mcp;
import dev.cotenant.spi.SessionException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The client side of MCP's conversation as this module speaks it, beyond what {@link Mcp} and the
 * JSON-RPC vocabulary ({@code dev.cotenant.spi.rpc}) hold: the handshake's params, how an answer is
 * awaited and read, how failures name what was awaited and how long, and the
 * {@link HandshakeEra#AUTO} fallback rule. {@link StdioSession} and the pre-flight read answers
 * with the same helpers. Stateless.
 */
public final class JsonRpc {
  private JsonRpc() {}

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
  public static String duration(long millis) {
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
  public static Map<String, Object> await(CompletableFuture<Map<String, Object>> answer, long deadline, String onTimeout)
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
  public static String errorCode(Map<String, Object> response) {
    Object err = response.get("error");
    Object code = err instanceof Map<?, ?> ? ((Map<?, ?>) err).get("code") : null;
    return code instanceof Number ? String.valueOf(code) : "?";
  }
}
