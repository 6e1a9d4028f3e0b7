package dev.cotenant.gateway.mux;

import java.util.Map;

/**
 * One client session attached to a {@link Multiplexer}: what the client sends goes in through
 * {@link #fromClient}; what it receives leaves through the {@link ClientSink} given at
 * {@link Multiplexer#attach}. Thread-safe: messages may be handed in from several threads at once.
 */
public interface ClientChannel extends AutoCloseable {
  /**
   * Hands one JSON-RPC message from the client to the multiplexer: a request (routed, or answered
   * locally), a notification, or the client's answer to a server request routed to it. Returns
   * without waiting for the backend; answers arrive through the client's {@link ClientSink}.
   * Messages on a closed channel are dropped.
   *
   * @param jsonRpcMessage plain JSON values; JSON {@code null} as Java {@code null} or
   *     {@link dev.cotenant.api.Json#NULL}
   */
  void fromClient(Map<String, Object> jsonRpcMessage);

  /** The session id given at {@link Multiplexer#attach}. */
  String sessionId();

  /**
   * Detaches the client: its calls still in flight are cancelled at the backend (and get no
   * answer), server requests routed to it are answered with an error, its resource subscriptions
   * are released, and its logging level no longer counts. The backend stays open. Idempotent.
   */
  @Override
  void close();
}
