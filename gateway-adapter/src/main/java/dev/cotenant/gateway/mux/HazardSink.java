package dev.cotenant.gateway.mux;

import dev.cotenant.api.HazardCode;

/**
 * Receives what a {@link Multiplexer} observed that makes its backend unsafe to share: a server
 * request it could not route ({@link HazardCode#UNROUTABLE_SERVER_REQUEST}) or a request-scoped
 * notification it could not attribute ({@link HazardCode#UNATTRIBUTABLE_NOTIFICATION}). Called
 * only while more than one session is attached: a backend serving one session legitimately owns
 * it, so the same frame there proves nothing. The caller records it in the hazard ledger under the
 * backend's identity.
 *
 * <p>Called on the backend session's reading thread; it must not block for long. An exception it
 * throws is logged and routing goes on.
 */
@FunctionalInterface
public interface HazardSink {
  /**
   * One observation.
   *
   * @param code what was observed
   * @param sessionsAttached the client sessions attached to the backend at that moment (at least 2)
   * @param detail a short description: the method and how many sessions had calls in flight
   */
  void observed(HazardCode code, int sessionsAttached, String detail);

  /** A sink that drops every observation. */
  static HazardSink ignoring() {
    return (code, sessionsAttached, detail) -> {};
  }
}
