package dev.cotenant.cli.daemon;

import dev.cotenant.cli.daemon.api.ApiHandler;
import dev.cotenant.cli.daemon.http.DaemonHttpServer;
import java.io.IOException;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import jdk.net.ExtendedSocketOptions;
import jdk.net.UnixDomainPrincipal;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.handler.ContextHandler;
import org.eclipse.jetty.unixdomain.server.UnixDomainServerConnector;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The API over HTTP/1.1 on a Unix domain socket ({@code api.sock} in the Cotenant home), for
 * local programs that should not need the bearer token: the socket is closed to other users the
 * way the daemon's {@code cotenant.sock} is.
 *
 * <ul>
 *   <li><b>Mode 0600 from the first moment.</b> Jetty binds the socket inside a fresh directory
 *       only its owner can enter (0700); it is set to 0600 and only then renamed to its public
 *       path, so no other user can connect through a window between bind and chmod.
 *   <li><b>Peer credentials.</b> A connection whose peer user ({@code SO_PEERCRED}) is not the
 *       daemon's own is closed at once (root bypasses file modes).
 * </ul>
 *
 * <p>A stale socket left at the path by a daemon that was killed is replaced (the caller holds
 * the daemon lock). {@link #close()} stops Jetty and removes the socket. Thread-safe once open.
 */
public final class ApiSocket implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ApiSocket.class);

  /** The name prefix of the request threads. */
  public static final String THREAD_PREFIX = "cotenant-api-sock";

  private static final int MAX_THREADS = 12;

  private final Path path;
  private final Server server;

  private ApiSocket(Path path, Server server) {
    this.path = path;
    this.server = server;
  }

  /**
   * Serves {@code handler} at {@value ApiHandler#PATH} on a socket at {@code path}.
   *
   * @throws IOException when the socket cannot be bound or Jetty does not start
   */
  public static ApiSocket open(Path path, Handler handler) throws IOException {
    Server server = new Server(DaemonHttpServer.localThreads(THREAD_PREFIX, MAX_THREADS));
    HttpConfiguration http = new HttpConfiguration();
    http.setSendServerVersion(false);
    http.setSendXPoweredBy(false);
    UnixDomainServerConnector connector = new OwnerOnlyConnector(server, new HttpConnectionFactory(http));
    server.setHandler(DaemonHttpServer.closingAfterAnUnreadBody(new ContextHandler(handler, ApiHandler.PATH)));
    try {
      OwnerOnlySocket.bind(path, 'a', at -> {
        connector.setUnixDomainPath(at);
        server.addConnector(connector);
        try {
          server.start();
        } catch (Exception e) {
          stopQuietly(server);
          throw e;
        }
      });
    } catch (IOException e) {
      stopQuietly(server);
      throw e;
    }
    LOG.info("API listening on {}", path);
    return new ApiSocket(path, server);
  }

  /** The socket's path. */
  public Path path() {
    return path;
  }

  /** Stops serving and removes the socket file. */
  @Override
  public void close() {
    stopQuietly(server);
    try {
      Files.deleteIfExists(path);
    } catch (IOException e) {
      LOG.warn("could not remove {}: {}", path, e.getMessage());
    }
  }

  private static void stopQuietly(Server server) {
    try {
      server.stop();
    } catch (Exception e) {
      LOG.warn("the API socket's server did not stop cleanly: {}", String.valueOf(e.getMessage()));
    }
  }

  @Override
  public String toString() {
    return "ApiSocket[" + path + "]";
  }

  /** Closes every connection whose peer is another user. */
  private static final class OwnerOnlyConnector extends UnixDomainServerConnector {
    private final String self = System.getProperty("user.name");

    /** No acceptor thread: the selector accepts, and {@link #configure} checks the peer either way. */
    OwnerOnlyConnector(Server server, HttpConnectionFactory factory) {
      super(server, 0, 1, factory);
    }

    @Override
    protected void configure(SocketChannel channel) throws IOException {
      PeerCheck.admit(channel, "the API socket"); // its user, and its user and mount namespaces
      try {
        UnixDomainPrincipal peer = channel.getOption(ExtendedSocketOptions.SO_PEERCRED);
        if (!peer.user().getName().equals(self)) {
          LOG.warn("refused an API connection from user {}: the socket is {}'s", peer.user().getName(), self);
          channel.close();
          throw new IOException("a connection from another user was refused");
        }
      } catch (UnsupportedOperationException e) {
        LOG.debug("no peer credentials ({}); the socket's mode 0600 guards it", e.toString());
      }
      super.configure(channel);
    }
  }
}
