package dev.cotenant.gateway.mux;

import java.util.Map;

/**
 * Where a {@link Multiplexer} writes to one client session: answers to its requests, the server's
 * requests routed to it, and the notifications it receives. Each message is one whole JSON-RPC
 * object of plain JSON values ({@code Map}, {@code List}, {@code String}, {@code Number},
 * {@code Boolean}, {@link dev.cotenant.api.Json#NULL} for JSON {@code null}); the multiplexer
 * does not keep or change it afterwards.
 *
 * <p>Called from any thread, concurrently: from the client's own threads (answers given locally),
 * from the backend session's reading thread (answers, notifications, server requests) and from
 * whichever thread ends a call. It must not block for long: the backend's reader waits for it.
 * An exception it throws is logged and the message is lost; routing goes on.
 */
@FunctionalInterface
public interface ClientSink {
  /** Delivers one JSON-RPC message to the client. */
  void send(Map<String, Object> jsonRpcMessage);
}
