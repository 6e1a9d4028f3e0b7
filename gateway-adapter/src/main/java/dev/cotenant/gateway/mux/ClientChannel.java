package dev.cotenant.gateway.mux;

import dev.cotenant.spi.rpc.RpcMessage;
import java.util.Map;

/**
 * One client session attached to a {@link Multiplexer}: what the client sends goes in through
 * {@link #fromClient(RpcMessage)}; what it receives leaves through the {@link ClientSink} given at
 * {@link Multiplexer#attach}. Thread-safe: messages may be handed in from several threads at once.
 * A message handed in belongs to the multiplexer from then on (its params may reach the backend
 * as they are): the caller must not change it afterwards.
 */
public interface ClientChannel extends AutoCloseable {
  /**
   * Hands one JSON-RPC message from the client to the multiplexer, classified where it was read: a
   * request (routed, or answered locally), a notification, or the client's answer to a server
   * request routed to it. Returns without waiting for the backend; answers arrive through the
   * client's {@link ClientSink}. Messages on a closed channel are dropped.
   */
  void fromClient(RpcMessage message);

  /**
   * Classifies one JSON-RPC message ({@link RpcMessage#read}) and hands it in as
   * {@link #fromClient(RpcMessage)} does, or as {@link #invalid} when it is not one: for callers
   * that did not classify it where they read it.
   *
   * @param jsonRpcMessage plain JSON values; JSON {@code null} as Java {@code null} or
   *     {@link dev.cotenant.api.Json#NULL}
   */
  void fromClient(Map<String, Object> jsonRpcMessage);

  /**
   * A message from the client that is not a JSON-RPC message ({@link RpcMessage#read} refused
   * it): a request whose id is neither a string nor a number is answered
   * {@link dev.cotenant.spi.rpc.ErrorCode#INVALID_REQUEST} with a {@code null} id; anything else
   * is dropped.
   *
   * @param json the message as read
   * @param why what {@link RpcMessage#read} said
   */
  void invalid(Map<String, Object> json, RpcMessage.InvalidMessage why);

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
