package dev.cotenant.cli;

/**
 * Bad usage the command line parser could not catch (a server name that is not configured, two
 * options that exclude each other). Exit status 2; the message is shown as is, on one line.
 */
public final class UsageException extends Exception {
  private static final long serialVersionUID = 1L;

  /** Bad usage described by {@code message}. */
  public UsageException(String message) {
    super(message);
  }
}
