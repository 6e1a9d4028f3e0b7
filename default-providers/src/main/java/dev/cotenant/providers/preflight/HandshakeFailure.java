package dev.cotenant.providers.preflight;

/**
 * One caller's handshake could not complete; the message is the short reason a
 * {@code PreflightResult.notRun} carries. Already escaped and bounded where it quotes the server.
 */
final class HandshakeFailure extends Exception {
  private static final long serialVersionUID = 1L;

  /** What kind of failure, so {@link dev.cotenant.spi.HandshakeEra#AUTO} knows whether a fallback is worth trying. */
  enum Kind {
    /** The process could not be started at all. */
    START,
    /** The process closed stdout or exited. */
    EXITED,
    /** Nothing arrived before the deadline. */
    TIMEOUT,
    /** The server answered with an error or an answer that does not fit the protocol. */
    ANSWER,
    /** A bound was exceeded or the output was not JSON-RPC. */
    GARBAGE
  }

  private final Kind kind;

  HandshakeFailure(Kind kind, String reason) {
    super(reason, null, false, false);
    this.kind = kind;
  }

  Kind kind() {
    return kind;
  }
}
