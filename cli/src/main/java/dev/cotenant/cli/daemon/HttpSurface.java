package dev.cotenant.cli.daemon;

import dev.cotenant.cli.daemon.dashboard.DashboardHandler;
import dev.cotenant.cli.daemon.http.DaemonHttpServer;
import dev.cotenant.cli.daemon.http.HttpGuard;
import dev.cotenant.cli.daemon.http.LookupException;
import dev.cotenant.cli.daemon.http.McpHttpEndpoint;
import dev.cotenant.cli.daemon.http.ServerLookup;
import dev.cotenant.gateway.config.ConfigException;
import dev.cotenant.gateway.sharing.Sharing;
import java.io.IOException;
import java.nio.channels.ServerSocketChannel;
import org.eclipse.jetty.server.Handler;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The daemon's HTTP side on 127.0.0.1: MCP over Streamable HTTP at {@code /mcp/{server}}
 * ({@link McpHttpEndpoint}), the handlers the daemon mounts beside it (the API at
 * {@code /api}) and the dashboard's page at {@code /} ({@link DashboardHandler}), behind the bearer token and the {@code Origin}/{@code Host} checks
 * ({@link HttpGuard}), with servers looked up in the daemon's configuration files.
 */
final class HttpSurface implements AutoCloseable {
  private final DaemonHttpServer server;

  private HttpSurface(DaemonHttpServer server) {
    this.server = server;
  }

  /**
   * Serves {@code channel}, a TCP socket bound to 127.0.0.1 already, with {@code mounts} (context
   * path to handler) beside the MCP endpoint; connections pending on it are accepted first.
   *
   * @throws IOException when Jetty does not start (the channel is closed then)
   */
  static HttpSurface start(ServerSocketChannel channel, Sharing sharing, ServerDirectory directory, String token,
      Map<String, Handler> mounts) throws IOException {
    McpHttpEndpoint endpoint = new McpHttpEndpoint(sharing, lookup(directory), new HttpGuard(token));
    DaemonHttpServer server = new DaemonHttpServer(endpoint, channel);
    mounts.forEach(server::mount);
    // The dashboard's page at "/": the longer context paths (/mcp, /api) still win.
    server.mount("/", new DashboardHandler());
    try {
      server.start();
    } catch (Exception e) {
      channel.close();
      throw e instanceof IOException io ? io : new IOException(e.getMessage(), e);
    }
    return new HttpSurface(server);
  }

  static ServerLookup lookup(ServerDirectory directory) {
    return name -> {
      try {
        return Optional.of(directory.find(name, List.of()).description());
      } catch (ServerDirectory.UnknownServerException e) {
        return Optional.empty();
      } catch (ConfigException e) {
        throw new LookupException(e.file() + ": " + e.problem(), e);
      }
    };
  }

  int sessions() {
    return server.endpoint().sessionCount();
  }

  @Override
  public void close() {
    server.close();
  }
}
