package dev.cotenant.gateway.probe;

import dev.cotenant.spi.Mcp;
import dev.cotenant.spi.ServerMessageHandler.Error;
import dev.cotenant.spi.ServerMessageHandler.Reply;
import dev.cotenant.spi.ServerMessageHandler.Result;
import dev.cotenant.spi.rpc.ErrorCode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * How the probe's callers answer what a server asks its client, when they run as clients declaring
 * {@code roots}, {@code sampling} and {@code elicitation} ({@link Mcp#ASKED_OF_CLIENTS}): each
 * caller with values of its own, so that a server that keeps one client's answer and serves it to
 * another shows the first caller's trace in the second caller's answers.
 *
 * <ul>
 *   <li>{@code roots/list}: one root, a directory named after the caller's first workspace value
 *       in the backend's scratch directory (made on demand, removed with it);
 *   <li>{@code sampling/createMessage}: an assistant text naming that value;
 *   <li>{@code elicitation/create} in form mode: {@code accept}, every property of the requested
 *       schema filled (strings with that value, within their length, format and choices;
 *       numbers within their bounds; booleans their default or true); in URL mode
 *       {@code decline}, since no user can visit a page.
 * </ul>
 *
 * Stateless.
 */
final class ClientAnswers {
  /** The capabilities declared by the callers that answer so: each of {@link Mcp#ASKED_OF_CLIENTS}. */
  static final Map<String, Object> CAPABILITIES = Map.of(
      "roots", Map.of("listChanged", false), "sampling", Map.of(), "elicitation", Map.of());

  /** The answer of {@code caller} to the server's {@code method} on a backend whose scratch directory is {@code scratch}. */
  Reply answer(ProbeCaller caller, Path scratch, String method, Map<String, Object> params) {
    String value = caller.workspace(1);
    switch (method) {
      case "roots/list":
        Path root = scratch.resolve(value);
        try {
          Files.createDirectories(root);
        } catch (IOException e) {
          // a root that does not exist is still the caller's own
        }
        return new Result(Map.of("roots", List.of(Map.of("uri", root.toUri().toString(), "name", value))));
      case "sampling/createMessage":
        return new Result(Map.of("role", "assistant", "content", Map.of("type", "text", "text", "sampled for " + value),
            "model", "cotenant-probe", "stopReason", "endTurn"));
      case "elicitation/create":
        if ("url".equals(params.get("mode"))) {
          return new Result(Map.of("action", "decline"));
        }
        return new Result(Map.of("action", "accept", "content", filled(params.get("requestedSchema"), value)));
      default:
        return new Error(ErrorCode.METHOD_NOT_FOUND.code(), ErrorCode.METHOD_NOT_FOUND.title());
    }
  }

  /** Every property of a requested (flat) schema filled for the caller whose value is {@code value}. */
  static Map<String, Object> filled(Object schema, String value) {
    Map<String, Object> content = new LinkedHashMap<>();
    if (!(schema instanceof Map<?, ?>) || !(((Map<?, ?>) schema).get("properties") instanceof Map<?, ?>)) {
      return content;
    }
    ((Map<?, ?>) ((Map<?, ?>) schema).get("properties")).forEach((k, v) -> {
      if (v instanceof Map<?, ?>) {
        Object filled = property((Map<?, ?>) v, value);
        if (filled != null) {
          content.put(String.valueOf(k), filled);
        }
      }
    });
    return content;
  }

  private static Object property(Map<?, ?> p, String value) {
    Object type = p.get("type");
    if (p.get("enum") instanceof List<?> && !((List<?>) p.get("enum")).isEmpty()) {
      return ((List<?>) p.get("enum")).get(0);
    }
    if (p.get("oneOf") instanceof List<?> && !((List<?>) p.get("oneOf")).isEmpty()
        && ((List<?>) p.get("oneOf")).get(0) instanceof Map<?, ?>) {
      return ((Map<?, ?>) ((List<?>) p.get("oneOf")).get(0)).get("const");
    }
    if ("boolean".equals(type)) {
      return p.get("default") instanceof Boolean ? p.get("default") : Boolean.TRUE;
    }
    if ("number".equals(type) || "integer".equals(type)) {
      double n = p.get("minimum") instanceof Number ? ((Number) p.get("minimum")).doubleValue() : 1;
      if (p.get("maximum") instanceof Number && ((Number) p.get("maximum")).doubleValue() < n) {
        n = ((Number) p.get("maximum")).doubleValue();
      }
      return "integer".equals(type) ? (Object) (long) Math.ceil(n) : (Object) n;
    }
    if ("array".equals(type) && p.get("items") instanceof Map<?, ?>) {
      Object first = property((Map<?, ?>) p.get("items"), value);
      return first == null ? List.of() : List.of(first);
    }
    if ("string".equals(type)) {
      String s = switch (String.valueOf(p.get("format"))) {
        case "email" -> value + "@example.com";
        case "uri" -> "https://example.com/" + value;
        case "date" -> "2026-01-01";
        case "date-time" -> "2026-01-01T00:00:00Z";
        default -> value;
      };
      if (p.get("maxLength") instanceof Number && ((Number) p.get("maxLength")).intValue() < s.length()) {
        s = s.substring(0, Math.max(0, ((Number) p.get("maxLength")).intValue()));
      }
      return s;
    }
    return null;
  }
}
