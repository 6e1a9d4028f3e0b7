package dev.cotenant.providers.evidence;

/** The configuration keys the default evidence sources read. */
public final class EvidenceKeys {
  /**
   * Extra {@code capabilities.experimental} keys recognised as a caller-identity declaration
   * (comma-separated), added to {@link #DEFAULT_CALLER_IDENTITY_KEY}.
   */
  public static final String CALLER_IDENTITY_KEYS = "cotenant.evidence.caller-identity-keys";

  /** The caller-identity key every host recognises. */
  public static final String DEFAULT_CALLER_IDENTITY_KEY = "cotenant.caller-identity";

  /**
   * The secret env-name globs (comma-separated), replacing the defaults of
   * {@link dev.cotenant.api.SecretPatterns#DEFAULT_GLOBS}.
   */
  public static final String SECRET_PATTERNS = "cotenant.secret-patterns";

  /**
   * Env names that are part of the pool key even when they look secret (comma-separated); the
   * operator's way of saying a server really authenticates from env.
   */
  public static final String POOL_IDENTITY_ENV = "cotenant.pool-identity-env";

  private EvidenceKeys() {}
}
