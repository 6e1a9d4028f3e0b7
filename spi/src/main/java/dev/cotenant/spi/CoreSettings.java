package dev.cotenant.spi;

import dev.cotenant.api.SecretPatterns;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;

/**
 * The configuration keys read by more than one party (the runtime and several providers), each
 * parsed here once so that every reader agrees on its meaning and on its error messages.
 *
 * <table>
 *   <caption>Keys</caption>
 *   <tr><th>key</th><th>default</th><th>meaning</th></tr>
 *   <tr><td>{@value #SECRET_PATTERNS}</td><td>{@link SecretPatterns#DEFAULT_GLOBS}</td>
 *       <td>comma-separated env name globs treated as secrets</td></tr>
 *   <tr><td>{@value #POOL_IDENTITY_ENV}</td><td>none</td>
 *       <td>env names that count in the launch identity even when they look secret</td></tr>
 *   <tr><td>{@value #CALLER_IDENTITY_KEYS}</td><td>none</td>
 *       <td>extra {@code capabilities.experimental} keys recognised as a caller-identity
 *       declaration, beside {@value #DEFAULT_CALLER_IDENTITY_KEY}</td></tr>
 *   <tr><td>{@value #TIMEOUT_MS}</td><td>15000</td>
 *       <td>the whole conversation with one server, in milliseconds: the pre-flight's handshake and
 *       listings, each batch of the statelessness probe's calls</td></tr>
 *   <tr><td>{@value #ERA}</td><td>{@code auto}</td>
 *       <td>the protocol era spoken to a server: {@code auto}, {@code initialize} or
 *       {@code discover}</td></tr>
 * </table>
 */
public final class CoreSettings {
  /** The secret env-name globs (comma-separated), replacing {@link SecretPatterns#DEFAULT_GLOBS}. */
  public static final String SECRET_PATTERNS = "cotenant.secret-patterns";

  /** Env names that are part of the launch identity even when they look secret (comma-separated). */
  public static final String POOL_IDENTITY_ENV = "cotenant.pool-identity-env";

  /** Extra caller-identity keys (comma-separated), added to {@link #DEFAULT_CALLER_IDENTITY_KEY}. */
  public static final String CALLER_IDENTITY_KEYS = "cotenant.evidence.caller-identity-keys";

  /** The caller-identity key every host recognises. */
  public static final String DEFAULT_CALLER_IDENTITY_KEY = "cotenant.caller-identity";

  /** The protocol era spoken to servers by the pre-flight and the statelessness probe. */
  public static final String ERA = "cotenant.preflight.era";

  /** The per-conversation time limit of the pre-flight and the probe, in milliseconds. */
  public static final String TIMEOUT_MS = "cotenant.preflight.timeout-ms";

  /** The default of {@value #TIMEOUT_MS}. */
  public static final long DEFAULT_TIMEOUT_MS = 15_000;

  private CoreSettings() {}

  /**
   * The duration of {@value #TIMEOUT_MS}, or 15 s when unset.
   *
   * @throws IllegalArgumentException naming the key when it is not a positive integer
   */
  public static java.time.Duration timeout(ProviderConfig config) {
    return config.getMillis(TIMEOUT_MS, java.time.Duration.ofMillis(DEFAULT_TIMEOUT_MS), java.time.Duration.ofMillis(1));
  }

  /**
   * The secret patterns of {@value #SECRET_PATTERNS}, or the defaults when unset.
   *
   * @throws IllegalArgumentException naming the key when a pattern is blank
   */
  public static SecretPatterns secretPatterns(ProviderConfig config) {
    if (config.get(SECRET_PATTERNS).isEmpty()) {
      return SecretPatterns.defaults();
    }
    String raw = config.get(SECRET_PATTERNS).get();
    for (String part : raw.split(",", -1)) {
      if (part.isBlank()) {
        throw new IllegalArgumentException("configuration key " + SECRET_PATTERNS + " has a blank pattern in '" + raw + "'");
      }
    }
    return SecretPatterns.of(config.getList(SECRET_PATTERNS, List.of()));
  }

  /** The env names of {@value #POOL_IDENTITY_ENV}; empty when unset. */
  public static List<String> poolIdentityEnv(ProviderConfig config) {
    return config.getList(POOL_IDENTITY_ENV, List.of());
  }

  /** {@value #DEFAULT_CALLER_IDENTITY_KEY} and the keys of {@value #CALLER_IDENTITY_KEYS}, sorted. */
  public static Set<String> callerIdentityKeys(ProviderConfig config) {
    Set<String> keys = new TreeSet<>();
    keys.add(DEFAULT_CALLER_IDENTITY_KEY);
    keys.addAll(config.getList(CALLER_IDENTITY_KEYS, List.of()));
    return java.util.Collections.unmodifiableSet(keys);
  }

  /**
   * The era of {@value #ERA}, ignoring case and surrounding blanks; {@link HandshakeEra#AUTO} when
   * unset.
   *
   * @throws IllegalArgumentException naming the key and the accepted values
   */
  public static HandshakeEra era(ProviderConfig config) {
    if (config.get(ERA).isEmpty()) {
      return HandshakeEra.AUTO;
    }
    String value = config.get(ERA).get();
    String v = value.strip().toLowerCase(Locale.ROOT);
    for (HandshakeEra e : HandshakeEra.values()) {
      if (e.name().toLowerCase(Locale.ROOT).equals(v)) {
        return e;
      }
    }
    throw new IllegalArgumentException(
        "configuration key " + ERA + " must be one of auto, initialize, discover; got '" + value + "'");
  }
}
