package dev.cotenant.spi.rpc;

import dev.cotenant.api.Json;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One JSON-RPC 2.0 message, classified once where it is read: a {@link Request} (a method and an
 * id), a {@link Notification} (a method, no id) or a {@link Response} (an id and a result or an
 * error). Each keeps the object it was read from ({@link #json()}), so a message passed on
 * unchanged is not rebuilt. Immutable as far as its JSON is.
 */
public sealed interface RpcMessage permits RpcMessage.Request, RpcMessage.Notification, RpcMessage.Response {
  /** The message's JSON object, as read or as built. */
  Map<String, Object> json();

  /**
   * Classifies one parsed JSON value.
   *
   * @throws InvalidMessage when it is not a JSON-RPC 2.0 message (not an object, a batch, no
   *     method and no result or error, a method that is not a string, an id that is not a string
   *     or a number); its {@link InvalidMessage#id()} is the id when one could be read
   */
  static RpcMessage read(@Nullable Object parsed) throws InvalidMessage {
    if (!(parsed instanceof Map<?, ?> raw)) {
      throw new InvalidMessage(null, parsed instanceof java.util.List<?>
          ? "a batch (JSON-RPC batches are not taken)" : "not a JSON object");
    }
    @SuppressWarnings("unchecked")
    Map<String, Object> json = (Map<String, Object>) raw;
    boolean hasId = json.containsKey("id");
    Object idJson = json.get("id");
    RequestId id = RequestId.parse(idJson);
    Object method = json.get("method");
    if (method != null) {
      if (!(method instanceof String name)) {
        throw new InvalidMessage(id, "method is not a string");
      }
      if (!hasId) {
        return new Notification(name, object(json.get("params")), json);
      }
      if (id == null) {
        throw new InvalidMessage(null, "id is neither a string nor a number");
      }
      return new Request(id, name, object(json.get("params")), json);
    }
    if (json.containsKey("result") || json.containsKey("error")) {
      Object error = json.get("error");
      if (error != null && error != Json.NULL) {
        return new Response(id, null, Error.read(error), json);
      }
      if (id == null) {
        throw new InvalidMessage(null, "a result without an id");
      }
      Object result = json.get("result");
      return new Response(id, result == null ? Json.NULL : result, null, json);
    }
    throw new InvalidMessage(id, "neither a method nor a result or error");
  }

  /** {@code value} when it is a JSON object, {@code null} when absent or anything else. */
  @SuppressWarnings("unchecked")
  private static @Nullable Map<String, Object> object(@Nullable Object value) {
    return value instanceof Map<?, ?> m ? (Map<String, Object>) m : null;
  }

  /** A request: {@code params} {@code null} when the message has none (or they are not an object). */
  record Request(RequestId id, String method, @Nullable Map<String, Object> params, Map<String, Object> json)
      implements RpcMessage {
    public Request {
      Objects.requireNonNull(id, "id");
      Objects.requireNonNull(method, "method");
      Objects.requireNonNull(json, "json");
    }

    /** A new request and its envelope. */
    public static Request of(RequestId id, String method, @Nullable Map<String, Object> params) {
      return new Request(id, method, params, Envelope.request(id, method, params));
    }

    /** The params, or an empty map when there are none. */
    public Map<String, Object> paramsOrEmpty() {
      return params == null ? Map.of() : params;
    }
  }

  /** A notification: {@code params} {@code null} when the message has none. */
  record Notification(String method, @Nullable Map<String, Object> params, Map<String, Object> json)
      implements RpcMessage {
    public Notification {
      Objects.requireNonNull(method, "method");
      Objects.requireNonNull(json, "json");
    }

    /** A new notification and its envelope. */
    public static Notification of(String method, @Nullable Map<String, Object> params) {
      return new Notification(method, params, Envelope.notification(method, params));
    }

    /** The params, or an empty map when there are none. */
    public Map<String, Object> paramsOrEmpty() {
      return params == null ? Map.of() : params;
    }
  }

  /**
   * A response: exactly one of {@code result} and {@code error}; {@code id} {@code null} only for
   * an error whose request's id could not be read.
   */
  record Response(@Nullable RequestId id, @Nullable Object result, @Nullable Error error, Map<String, Object> json)
      implements RpcMessage {
    public Response {
      if ((result == null) == (error == null)) {
        throw new IllegalArgumentException("a response has a result or an error, not both or neither");
      }
      if (id == null && error == null) {
        throw new IllegalArgumentException("a result needs an id");
      }
      Objects.requireNonNull(json, "json");
    }

    /** Whether this is an error answer. */
    public boolean isError() {
      return error != null;
    }
  }

  /** A response's {@code error}: code, message, and {@code data} ({@code null} when absent). */
  record Error(int code, String message, @Nullable Object data) {
    public Error {
      Objects.requireNonNull(message, "message");
    }

    /** Reads an {@code error} member leniently: a missing code is {@link ErrorCode#INTERNAL_ERROR}'s, a missing message empty. */
    static Error read(Object error) {
      if (!(error instanceof Map<?, ?> e)) {
        return new Error(ErrorCode.INTERNAL_ERROR.code(), String.valueOf(error), null);
      }
      Object code = e.get("code");
      Object message = e.get("message");
      return new Error(code instanceof Number n ? n.intValue() : ErrorCode.INTERNAL_ERROR.code(),
          message instanceof String s ? s : "", e.get("data"));
    }
  }

  /** A JSON value that is not a JSON-RPC 2.0 message. */
  final class InvalidMessage extends Exception {
    private static final long serialVersionUID = 1L;
    private final transient @Nullable RequestId id;

    /** A message that says what is wrong; {@code id} the message's id when it could be read. */
    public InvalidMessage(@Nullable RequestId id, String why) {
      super(why);
      this.id = id;
    }

    /** The message's id, when one could be read: the error answer carries it. */
    public @Nullable RequestId id() {
      return id;
    }
  }
}
