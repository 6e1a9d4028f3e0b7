package dev.cotenant.gateway.archfixture;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;

/** Breaks {@code NO_CLI_FRAMEWORK_OR_HTTP_SERVER} on purpose. */
public final class RunsAnHttpServer {
  private RunsAnHttpServer() {}

  /** An HTTP server inside the embeddable runtime. */
  public static HttpServer serve() throws IOException {
    return HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
  }
}
