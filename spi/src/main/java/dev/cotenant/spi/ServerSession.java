package dev.cotenant.spi;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;

/**
 * One live JSON-RPC conversation with one server process, opened by a {@link SessionTransport}:
 * one protocol handshake, then any number of requests (several may be in flight at once, from
 * several threads) and notifications. The server's own requests and notifications go to the
 * {@link ServerMessageHandler} the session was opened with.
 *
 * <p>Payloads are plain JSON values ({@code Map}, {@code List}, {@code String}, {@code Number},
 * {@code Boolean}, {@link dev.cotenant.api.Json#NULL}); no JSON library type crosses this
 * interface.
 *
 * <p>{@link #close} tears the process and everything it started down (for a local process: close
 * its stdin, wait, SIGTERM over the process and its descendants, wait, SIGKILL) and fails every
 * answer still awaited. {@link #abort} kills at once, from any thread. Thread-safe.
 */
public interface ServerSession extends AutoCloseable {
  /**
   * Performs the handshake of {@code era} (see {@link HandshakeEra} for the {@code AUTO} fallback
   * rules), presenting {@code clientInfo} and {@code capabilities}.
   *
   * @param timeout the whole handshake, fallback and respawn included
   * @return the server's answer ({@code initialize} result, or {@code server/discover} result)
   * @throws SessionException when no handshake completes in time
   */
  Map<String, Object> handshake(
      HandshakeEra era, Map<String, Object> clientInfo, Map<String, Object> capabilities, Duration timeout)
      throws SessionException, InterruptedException;

  /**
   * Performs the handshake of {@code era} as {@link #handshake(HandshakeEra, Map, Map, Duration)}
   * does, with an {@code initialize} that asks for {@code protocolVersion}: a gateway starts a
   * backend for clients that asked for that version, so that it negotiates what a server of their
   * own would. A {@code server/discover} handshake carries no version and ignores it.
   *
   * <p>The default ignores {@code protocolVersion} and asks for the implementation's own version;
   * its caller must then compare the version negotiated with the one it asked for (a gateway
   * places clients whose version differs on a backend of their own). Implementations that launch
   * real servers override it.
   *
   * @param protocolVersion the version an {@code initialize} asks for, e.g. {@code 2025-06-18}
   * @param timeout the whole handshake, fallback and respawn included
   * @return the server's answer ({@code initialize} result, or {@code server/discover} result)
   * @throws SessionException when no handshake completes in time
   */
  default Map<String, Object> handshake(HandshakeEra era, Map<String, Object> clientInfo,
      Map<String, Object> capabilities, String protocolVersion, Duration timeout)
      throws SessionException, InterruptedException {
    java.util.Objects.requireNonNull(protocolVersion, "protocolVersion");
    return handshake(era, clientInfo, capabilities, timeout);
  }

  /** The era of the handshake completed: {@code INITIALIZE} or {@code DISCOVER}; empty before one. */
  Optional<HandshakeEra> completedHandshake();

  /**
   * The per-request {@code _meta} entries the completed handshake's era requires of every request:
   * for {@link HandshakeEra#DISCOVER} the protocol version, client capabilities and client info
   * (so each request may name a different caller, {@link Mcp#modernMeta}); nothing otherwise.
   */
  default Map<String, Object> eraMeta(Map<String, Object> clientInfo, Map<String, Object> capabilities) {
    return completedHandshake().filter(e -> e == HandshakeEra.DISCOVER).isPresent()
        ? Mcp.modernMeta(clientInfo, capabilities)
        : Map.of();
  }

  /**
   * Writes one request now and returns a future of its answer: the whole response object, with
   * {@code result} or {@code error}. The future fails with a {@link SessionException} when the
   * server goes away or the session is closed or aborted first.
   *
   * @throws SessionException when the request cannot be written (the server has gone)
   */
  CompletableFuture<Map<String, Object>> request(String method, Map<String, Object> params) throws SessionException;

  /**
   * Cancels a request this session wrote and whose {@code answer} is still awaited: writes
   * {@code notifications/cancelled} with the request's id and {@code reason}, and fails
   * {@code answer} with a {@link java.util.concurrent.CancellationException}; a late answer is
   * dropped. Returns false, writing nothing, when {@code answer} is not one of this session's
   * awaited answers (already answered, or never written here).
   *
   * @throws SessionException when the notification cannot be written (the server has gone)
   */
  boolean cancel(CompletableFuture<Map<String, Object>> answer, String reason) throws SessionException;

  /**
   * Writes one notification.
   *
   * @throws SessionException when it cannot be written (the server has gone)
   */
  void notify(String method, Map<String, Object> params) throws SessionException;

  /** The operating-system process id of the server, when it is a local process. */
  OptionalLong pid();

  /** Kills the server now, from any thread; awaited answers fail. {@link #close} still follows. */
  void abort(String reason);

  /** Tears the server and everything it started down; idempotent. */
  @Override
  void close();
}
