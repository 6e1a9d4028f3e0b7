package dev.cotenant.providers.preflight;

import java.util.Map;

/**
 * One of the two synthetic identities the pre-flight presents. They differ in {@code clientInfo},
 * and the second also declares {@code roots}, {@code sampling} and {@code elicitation}: a server
 * whose surface depends on either is caller-sensitive for a pooled backend, which replays the
 * first caller's answer to every later one.
 *
 * @param label a short label for thread names
 * @param clientInfo the {@code clientInfo} (or {@code io.modelcontextprotocol/clientInfo}) sent
 * @param capabilities the client capabilities declared
 */
record Caller(String label, Map<String, Object> clientInfo, Map<String, Object> capabilities) {
  /** The first caller: its answer becomes the recorded handshake facts. */
  static final Caller FIRST = new Caller(
      "a", Map.of("name", "cotenant-preflight-a", "version", "1.0.0"), Map.of());

  /** The second caller: another name and version, and every client capability a server may read. */
  static final Caller SECOND = new Caller(
      "b",
      Map.of("name", "cotenant-preflight-b", "version", "2.0.0"),
      Map.of("roots", Map.of("listChanged", true), "sampling", Map.of(), "elicitation", Map.of()));
}
