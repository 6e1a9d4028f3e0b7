package dev.cotenant.cli.daemon;

import dev.cotenant.gateway.sharing.Sharing;
import java.io.IOException;

/** The daemon's HTTP side on 127.0.0.1: MCP over Streamable HTTP at {@code /mcp/{server}}. */
final class HttpSurface implements AutoCloseable {
  private final int port;

  private HttpSurface(int port) {
    this.port = port;
  }

  static HttpSurface start(int port, Sharing sharing, ServerDirectory directory, String token) throws IOException {
    return new HttpSurface(port);
  }

  int port() {
    return port;
  }

  @Override
  public void close() {}
}
