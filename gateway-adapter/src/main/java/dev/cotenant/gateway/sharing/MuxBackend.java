package dev.cotenant.gateway.sharing;

import dev.cotenant.gateway.mux.Multiplexer;
import dev.cotenant.gateway.pool.PooledBackend;
import dev.cotenant.spi.ServerSession;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;

/**
 * One pooled backend: a server process, the session speaking to it, and the multiplexer routing
 * client sessions over it.
 */
final class MuxBackend implements PooledBackend {
  final ServerSession session;
  final Multiplexer mux;
  final int generation;
  final Map<String, Object> handshake;
  /** Completed with the reason once the pool has been told the process exited. */
  final java.util.concurrent.CompletableFuture<String> exited = new java.util.concurrent.CompletableFuture<>();
  /**
   * Completed with the parts of the recorded start this backend answered otherwise once started
   * ({@link StartCheck}); empty when they agreed, or when no recording was compared.
   */
  final java.util.concurrent.CompletableFuture<java.util.List<String>> checked =
      new java.util.concurrent.CompletableFuture<>();

  MuxBackend(ServerSession session, Multiplexer mux, int generation, Map<String, Object> handshake) {
    this.session = Objects.requireNonNull(session, "session");
    this.mux = Objects.requireNonNull(mux, "mux");
    this.generation = generation;
    this.handshake = Map.copyOf(handshake);
  }

  /** The capabilities the backend's handshake declared. */
  @SuppressWarnings("unchecked")
  Map<String, Object> capabilities() {
    return handshake.get("capabilities") instanceof Map<?, ?> c ? (Map<String, Object>) c : Map.of();
  }

  /** The protocol version the backend negotiated, when it answered {@code initialize} with one. */
  String protocolVersion() {
    Object v = handshake.get("protocolVersion");
    return v instanceof String ? (String) v : "";
  }

  @Override
  public OptionalLong pid() {
    return session.pid();
  }

  /** Closes the multiplexer (every call in flight is interrupted), then the process tree. */
  @Override
  public void close() {
    try {
      mux.close();
    } finally {
      session.close();
    }
  }

  @Override
  public long calls() {
    return mux.calls();
  }

  @Override
  public int hazards() {
    return mux.hazards();
  }
}
