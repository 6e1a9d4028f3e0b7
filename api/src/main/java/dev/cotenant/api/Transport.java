package dev.cotenant.api;

import java.util.Locale;
import java.util.Optional;

/** How a host reaches an MCP server. Only {@link #STDIO} servers can share a spawned backend. */
public enum Transport {
  /** A child process speaking newline-delimited JSON-RPC over stdin and stdout. */
  STDIO,
  /** Streamable HTTP. */
  HTTP,
  /** The legacy HTTP+SSE transport. */
  SSE;

  private final String wireName = name().toLowerCase(Locale.ROOT);

  /** The name used in configuration files. */
  public String wireName() {
    return wireName;
  }

  /**
   * Looks a configuration name up ({@code stdio}, {@code http}, {@code streamable-http},
   * {@code streamableHttp}, {@code sse}), ignoring case.
   */
  public static Optional<Transport> fromConfig(String name) {
    String n = name.toLowerCase(Locale.ROOT).replace("-", "").replace("_", "");
    switch (n) {
      case "stdio":
        return Optional.of(STDIO);
      case "http":
      case "streamablehttp":
        return Optional.of(HTTP);
      case "sse":
        return Optional.of(SSE);
      default:
        return Optional.empty();
    }
  }
}
