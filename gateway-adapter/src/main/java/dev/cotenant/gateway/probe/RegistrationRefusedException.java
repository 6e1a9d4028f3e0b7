package dev.cotenant.gateway.probe;

/** A concurrency registration was refused; the message says why and what to do. */
public final class RegistrationRefusedException extends Exception {
  private static final long serialVersionUID = 1L;

  /** A refusal with its reason. */
  public RegistrationRefusedException(String message) {
    super(message);
  }

  /** A refusal with its reason and the rule that refused it. */
  public RegistrationRefusedException(String message, Throwable cause) {
    super(message, cause);
  }
}
