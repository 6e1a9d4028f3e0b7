package dev.cotenant.cli.archfixture;

import java.util.Map;

/** Writes a JSON-RPC envelope by hand: what the envelope rule must reject. */
public final class BuildsItsOwnEnvelope {
  private BuildsItsOwnEnvelope() {}

  /** A ping request written without the vocabulary. */
  public static Map<String, Object> ping() {
    return Map.of("jsonrpc", "2.0", "id", 1, "method", "ping");
  }
}
