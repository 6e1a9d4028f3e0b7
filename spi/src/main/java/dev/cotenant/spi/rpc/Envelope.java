package dev.cotenant.spi.rpc;

import dev.cotenant.api.Json;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The JSON-RPC 2.0 envelope factories: the only code in Cotenant's main classes that writes a
 * message's {@code "jsonrpc"} member. Each returns a new mutable {@code LinkedHashMap} in the
 * member order peers print ({@code jsonrpc}, {@code id}, {@code method}, {@code params} /
 * {@code result} / {@code error}); values are taken as given, not copied. Stateless.
 */
public final class Envelope {
  /** The {@code "jsonrpc"} member's value. */
  public static final String VERSION = "2.0";

  private Envelope() {}

  /** A request; without {@code params} when they are {@code null}. */
  public static Map<String, Object> request(RequestId id, String method, @Nullable Map<String, Object> params) {
    Map<String, Object> m = head();
    m.put("id", id.json());
    m.put("method", Objects.requireNonNull(method, "method"));
    if (params != null) {
      m.put("params", params);
    }
    return m;
  }

  /** A notification; without {@code params} when they are {@code null}. */
  public static Map<String, Object> notification(String method, @Nullable Map<String, Object> params) {
    Map<String, Object> m = head();
    m.put("method", Objects.requireNonNull(method, "method"));
    if (params != null) {
      m.put("params", params);
    }
    return m;
  }

  /** A successful answer to request {@code id}. */
  public static Map<String, Object> result(RequestId id, Object result) {
    Map<String, Object> m = head();
    m.put("id", id.json());
    m.put("result", Objects.requireNonNull(result, "result"));
    return m;
  }

  /**
   * A peer's response passed on under another id, {@code id}: its {@code error} member exactly as
   * the peer wrote it when it has one, otherwise its {@code result} (JSON {@code null} when absent).
   * The members are taken as given, not copied.
   */
  public static Map<String, Object> answer(RequestId id, Map<String, ?> response) {
    Map<String, Object> m = head();
    m.put("id", id.json());
    if (response.containsKey("error")) {
      m.put("error", response.get("error"));
    } else {
      Object r = response.get("result");
      m.put("result", r == null ? Json.NULL : r);
    }
    return m;
  }

  /**
   * An error answer; {@code id} {@code null} when the request's id could not be read (written as
   * JSON {@code null}), {@code data} left out when {@code null}.
   */
  public static Map<String, Object> error(@Nullable RequestId id, int code, String message, @Nullable Object data) {
    Map<String, Object> m = head();
    m.put("id", id == null ? Json.NULL : id.json());
    Map<String, Object> e = new LinkedHashMap<>();
    e.put("code", code);
    e.put("message", Objects.requireNonNull(message, "message"));
    if (data != null) {
      e.put("data", data);
    }
    m.put("error", e);
    return m;
  }

  /** An error answer with a code of Cotenant's table and no {@code data}. */
  public static Map<String, Object> error(@Nullable RequestId id, ErrorCode code, String message) {
    return error(id, code.code(), message, null);
  }

  /** An error answer with a code of Cotenant's table and no {@code data}. */
  public static Map<String, Object> error(@Nullable RequestId id, int code, String message) {
    return error(id, code, message, null);
  }

  /** Whether {@code message} carries {@code "jsonrpc": "2.0"}. */
  public static boolean isVersion2(Map<String, ?> message) {
    return VERSION.equals(message.get("jsonrpc"));
  }

  private static Map<String, Object> head() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("jsonrpc", VERSION);
    return m;
  }
}
