package dev.cotenant.spi;

import dev.cotenant.spi.rpc.ErrorCode;
import java.util.List;
import java.util.Map;

/**
 * What a client does with the messages a server sends on its own initiative during a
 * {@link ServerSession}: its requests ({@code ping}, {@code roots/list},
 * {@code sampling/createMessage}, ...) and its notifications. Called on the session's reading
 * thread, one message at a time; it must not block for long. Payloads are plain JSON values
 * ({@code Map}, {@code List}, {@code String}, {@code Number}, {@code Boolean},
 * {@link dev.cotenant.api.Json#NULL}).
 */
public interface ServerMessageHandler {
  /** The answer to one server request: a result object or a JSON-RPC error. */
  sealed interface Reply permits Result, Error {}

  /** A {@code result}. */
  record Result(Map<String, Object> value) implements Reply {
    public Result {
      value = Map.copyOf(value);
    }
  }

  /** An {@code error} with a code and message. */
  record Error(int code, String message) implements Reply {
    public Error {
      java.util.Objects.requireNonNull(message, "message");
    }
  }

  /** Answers a server request. */
  Reply onRequest(String method, Map<String, Object> params);

  /**
   * Answers a server request later: the session writes the reply when the stage completes, from
   * whichever thread completes it, and keeps reading meanwhile. A handler that must ask someone
   * else (a multiplexer routing {@code sampling/createMessage} to the client whose call is in
   * flight) overrides this; the default answers at once with {@link #onRequest}. A stage that
   * completes exceptionally is answered with {@link ErrorCode#INTERNAL_ERROR}.
   */
  default java.util.concurrent.CompletionStage<Reply> onRequestAsync(String method, Map<String, Object> params) {
    return java.util.concurrent.CompletableFuture.completedFuture(onRequest(method, params));
  }

  /** Takes a server notification. */
  void onNotification(String method, Map<String, Object> params);

  /**
   * A handler for a client with no user: {@code ping} answered with {@code {}},
   * {@code roots/list} with no roots, {@code sampling/createMessage} and
   * {@code elicitation/create} declined with error {@code -1} and {@code declinedBecause}, every
   * other request with {@link ErrorCode#METHOD_NOT_FOUND}; notifications dropped.
   */
  static ServerMessageHandler noUser(String declinedBecause) {
    java.util.Objects.requireNonNull(declinedBecause, "declinedBecause");
    return new ServerMessageHandler() {
      @Override
      public Reply onRequest(String method, Map<String, Object> params) {
        switch (method) {
          case "ping":
            return new Result(Map.of());
          case "roots/list":
            return new Result(Map.of("roots", List.of()));
          case "sampling/createMessage":
          case "elicitation/create":
            return new Error(-1, declinedBecause);
          default:
            return new Error(ErrorCode.METHOD_NOT_FOUND.code(), ErrorCode.METHOD_NOT_FOUND.title());
        }
      }

      @Override
      public void onNotification(String method, Map<String, Object> params) {}
    };
  }
}
