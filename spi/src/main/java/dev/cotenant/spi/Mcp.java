package dev.cotenant.spi;

import java.util.LinkedHashMap;
import java.util.Map;

/** Protocol constants and the per-request {@code _meta} of the 2026-07-28 era. Stateless. */
public final class Mcp {
  /** The stateless revision spoken through {@code server/discover}. */
  public static final String MODERN_VERSION = "2026-07-28";

  /** The version offered in {@code initialize}; the server may negotiate an older one. */
  public static final String LEGACY_VERSION = "2025-11-25";

  /** The {@code _meta} key of the protocol version in the discover era. */
  public static final String META_PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion";

  /** The {@code _meta} key of the client capabilities in the discover era. */
  public static final String META_CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";

  /** The {@code _meta} key of the client info in the discover era. */
  public static final String META_CLIENT_INFO = "io.modelcontextprotocol/clientInfo";

  private Mcp() {}

  /** The {@code _meta} entries every request of the discover era carries (a new mutable map). */
  public static Map<String, Object> modernMeta(Map<String, Object> clientInfo, Map<String, Object> capabilities) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put(META_PROTOCOL_VERSION, MODERN_VERSION);
    m.put(META_CLIENT_CAPABILITIES, capabilities);
    m.put(META_CLIENT_INFO, clientInfo);
    return m;
  }
}
