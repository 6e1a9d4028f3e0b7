package dev.cotenant.providers.preflight;

import java.util.Locale;

/**
 * Which protocol era the pre-flight speaks to a server ({@code cotenant.preflight.era}).
 */
public enum Era {
  /**
   * Ask {@code server/discover} first; on any error, on silence past the discover timeout, or when
   * the server does not offer {@value StdioPreflightTransport#MODERN_VERSION}, fall back to
   * {@code initialize} (on the same process if it survived, on a new one otherwise). When that
   * {@code initialize} is refused after a discover timeout, a late {@code server/discover} answer
   * on the same process that offers {@value StdioPreflightTransport#MODERN_VERSION} (a server that
   * was only slow to start) is used instead.
   */
  AUTO,
  /** Only the {@code initialize} + {@code notifications/initialized} handshake (2024-11-05 … 2025-11-25). */
  INITIALIZE,
  /** Only {@code server/discover} with per-request {@code _meta} (2026-07-28). */
  DISCOVER;

  /**
   * Parses a configured value, ignoring case and surrounding blanks.
   *
   * @throws IllegalArgumentException naming the key and the accepted values
   */
  static Era parse(String key, String value) {
    String v = value.strip().toLowerCase(Locale.ROOT);
    for (Era e : values()) {
      if (e.name().toLowerCase(Locale.ROOT).equals(v)) {
        return e;
      }
    }
    throw new IllegalArgumentException(
        "configuration key " + key + " must be one of auto, initialize, discover; got '" + value + "'");
  }
}
