package dev.cotenant.providers.preflight;

import dev.cotenant.spi.Mcp;
import java.util.List;
import java.util.Map;

/**
 * One of the two synthetic identities the pre-flight presents. They differ in {@code clientInfo},
 * in the protocol version their {@code initialize} asks for, and in what they declare: the first
 * nothing, the second {@code roots}, {@code sampling}, {@code elicitation} and the MCP Apps
 * extension. A server whose surface depends on any of these is caller-sensitive for a pooled
 * backend, which replays one answer to every later client; a server that answers both alike has
 * a start a daemon may answer from the records for clients within that variation.
 *
 * @param label a short label for thread names
 * @param clientInfo the {@code clientInfo} (or {@code io.modelcontextprotocol/clientInfo}) sent
 * @param capabilities the client capabilities declared
 * @param protocolVersion the version its {@code initialize} asks for
 */
record Caller(String label, Map<String, Object> clientInfo, Map<String, Object> capabilities, String protocolVersion) {
  /** The first caller: its answer becomes the recorded handshake facts. */
  static final Caller FIRST = new Caller(
      "a", Map.of("name", "cotenant-preflight-a", "version", "1.0.0"), Map.of(), Mcp.LEGACY_VERSION);

  /**
   * The second caller: another name and version, the previous protocol revision, and every client
   * capability a server may read.
   */
  static final Caller SECOND = new Caller(
      "b",
      Map.of("name", "cotenant-preflight-b", "version", "2.0.0"),
      Map.of("roots", Map.of("listChanged", true), "sampling", Map.of(), "elicitation", Map.of(),
          "extensions", Map.of(Mcp.APPS_EXTENSION, Map.of("mimeTypes", List.of("text/html;profile=mcp-app")))),
      Mcp.PRIOR_VERSION);
}
