package dev.cotenant.spi;

/** Which protocol era a client speaks to a server ({@value CoreSettings#ERA}). */
public enum HandshakeEra {
  /**
   * Ask {@code server/discover} first; on any error, on silence past the discover timeout, or when
   * the server does not offer {@value Mcp#MODERN_VERSION}, fall back to {@code initialize} (on
   * the same process if it survived, on a new one otherwise). When that {@code initialize} is
   * refused after a discover timeout, a late {@code server/discover} answer on the same process
   * that offers {@value Mcp#MODERN_VERSION} (a server that was only slow to start) is used.
   */
  AUTO,
  /** Only {@code initialize} + {@code notifications/initialized} (2024-11-05 … 2025-11-25). */
  INITIALIZE,
  /** Only {@code server/discover} with per-request {@code _meta} (2026-07-28). */
  DISCOVER
}
