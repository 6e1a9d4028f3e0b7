package dev.cotenant.gateway.providers;

/**
 * Providers could not be loaded or selected. The message names the SPI, the provider classes
 * involved, the configuration key when one applies, and what to add or remove
 * ({@code META-INF/services/<spi>}); the cause, when there is one, is the provider's own error.
 */
public final class ProviderLoadingException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** A selection problem with no underlying error. */
  public ProviderLoadingException(String message) {
    super(message);
  }

  /** A provider's own error, explained. */
  public ProviderLoadingException(String message, Throwable cause) {
    super(message, cause);
  }
}
