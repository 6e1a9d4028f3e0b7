package dev.cotenant.spi;

/**
 * A {@link ServerSession} could not do what was asked: the server could not be started, went
 * away, stayed silent past a deadline, answered outside the protocol, or broke a bound. The
 * message is short, already escaped and bounded where it quotes the server.
 */
public final class SessionException extends Exception {
  private static final long serialVersionUID = 1L;

  /** What went wrong. */
  public enum Kind {
    /** The process could not be started. */
    START,
    /** The process closed its output or exited. */
    EXITED,
    /** Nothing arrived before the deadline. */
    TIMEOUT,
    /** The server answered with an error or an answer that does not fit the protocol. */
    ANSWER,
    /** A bound was exceeded or the output was not JSON-RPC. */
    GARBAGE
  }

  private final Kind kind;

  /** A failure of {@code kind} with a short reason. */
  public SessionException(Kind kind, String reason) {
    super(reason, null, false, false);
    this.kind = java.util.Objects.requireNonNull(kind, "kind");
  }

  /** What went wrong. */
  public Kind kind() {
    return kind;
  }
}
