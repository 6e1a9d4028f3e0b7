package dev.cotenant.cli.daemon.http;

/** The configured servers could not be read; its message is one line that says why. */
public final class LookupException extends Exception {
  private static final long serialVersionUID = 1L;

  /** A failure described by {@code message}. */
  public LookupException(String message) {
    super(message);
  }

  /** A failure described by {@code message}, caused by {@code cause}. */
  public LookupException(String message, Throwable cause) {
    super(message, cause);
  }
}
