package dev.cotenant.spi;

import java.util.LinkedHashMap;
import java.util.Map;

/** Protocol constants and the per-request {@code _meta} of the 2026-07-28 era. Stateless. */
public final class Mcp {
  /** The stateless revision spoken through {@code server/discover}. */
  public static final String MODERN_VERSION = "2026-07-28";

  /** The version offered in {@code initialize}; the server may negotiate an older one. */
  public static final String LEGACY_VERSION = "2025-11-25";

  /**
   * The revision before {@link #LEGACY_VERSION}, which many clients still ask for: the pre-flight's
   * second caller asks for it, so that its evidence covers clients of both.
   */
  public static final String PRIOR_VERSION = "2025-06-18";

  /** The extension a client declares to show MCP Apps (user interfaces a server ships as resources). */
  public static final String APPS_EXTENSION = "io.modelcontextprotocol/ui";

  /** The {@code _meta} key of the protocol version in the discover era. */
  public static final String META_PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion";

  /** The {@code _meta} key of the client capabilities in the discover era. */
  public static final String META_CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";

  /** The {@code _meta} key of the client info in the discover era. */
  public static final String META_CLIENT_INFO = "io.modelcontextprotocol/clientInfo";

  /**
   * The client capabilities a server uses by asking its client something ({@code roots/list},
   * {@code sampling/createMessage}, {@code elicitation/create}): requests that name no session, so
   * a backend serving several sessions cannot tell whose they are. Evidence for sharing a server
   * with a client declaring one of them must have been gathered by callers declaring it too.
   */
  public static final java.util.List<String> ASKED_OF_CLIENTS = java.util.List.of("roots", "sampling", "elicitation");

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
