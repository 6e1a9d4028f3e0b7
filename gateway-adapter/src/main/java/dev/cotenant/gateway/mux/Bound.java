package dev.cotenant.gateway.mux;

import dev.cotenant.spi.HandshakeEra;
import dev.cotenant.spi.ServerSession;
import java.util.Map;

/**
 * The backend a {@link Multiplexer} is bound to, and what its handshake said.
 *
 * @param backend the session speaking to the backend
 * @param handshake the handshake's answer (frozen): the {@code initialize} or {@code server/discover} result
 * @param era the era of the handshake completed
 * @param version the protocol version the backend negotiated; empty in the discover era when it named none
 * @param logging whether the backend advertises {@code logging}
 */
record Bound(ServerSession backend, Map<String, Object> handshake, HandshakeEra era, String version, boolean logging) {
  /** Whether the backend speaks the 2026-07-28 era ({@code server/discover}). */
  boolean discover() {
    return era == HandshakeEra.DISCOVER;
  }
}
