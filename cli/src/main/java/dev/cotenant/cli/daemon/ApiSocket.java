package dev.cotenant.cli.daemon;

import dev.cotenant.cli.daemon.api.ApiHandler;
import dev.cotenant.cli.daemon.http.DaemonHttpServer;
import java.io.Closeable;
import java.io.IOException;
import java.nio.channels.SelectableChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicReference;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.io.ManagedSelector;
import org.eclipse.jetty.io.SelectorManager;
import org.eclipse.jetty.io.SocketChannelEndPoint;
import org.eclipse.jetty.server.AbstractConnector;
import org.eclipse.jetty.server.ConnectionFactory;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.handler.ContextHandler;
import org.eclipse.jetty.util.IO;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The API over HTTP/1.1 on a Unix domain socket ({@code api.sock} in the Cotenant home), for
 * local programs that should not need the bearer token: the socket is closed to other users the
 * way the daemon's {@code cotenant.sock} is.
 *
 * <ul>
 *   <li><b>Mode 0600 from the first moment.</b> The socket is bound inside a fresh directory only
 *       its owner can enter (0700), set to 0600 and only then renamed to its public path
 *       ({@link OwnerOnlySocket}), so no other user can connect through a window between bind and
 *       chmod.
 *   <li><b>Peer credentials.</b> A connection whose peer user ({@code SO_PEERCRED}) is not the
 *       daemon's own is closed at once (root bypasses file modes).
 * </ul>
 *
 * <p>The daemon binds the socket when it starts and serves it from its first connection
 * ({@link HttpListeners}, {@link #serve}): Jetty then accepts on the channel bound already, the
 * pending connection first. A stale socket left at the path by a daemon that was killed is
 * replaced (the caller holds the daemon lock). {@link #close()} stops Jetty and removes the
 * socket. Thread-safe once open.
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
   * Binds a socket at {@code path} and serves {@code handler} at {@value ApiHandler#PATH} there.
   *
   * @throws IOException when the socket cannot be bound or Jetty does not start
   */
  public static ApiSocket open(Path path, Handler handler) throws IOException {
    ServerSocketChannel channel = HttpListeners.bindUnix(path);
    try {
      ApiSocket socket = serve(path, channel, handler);
      LOG.info("API listening on {}", path);
      return socket;
    } catch (IOException | RuntimeException e) {
      channel.close();
      Files.deleteIfExists(path);
      throw e;
    }
  }

  /**
   * Serves {@code handler} at {@value ApiHandler#PATH} on {@code channel}, the socket bound at
   * {@code path} already; connections pending on it are accepted first.
   *
   * @throws IOException when Jetty does not start (the channel is closed then)
   */
  static ApiSocket serve(Path path, ServerSocketChannel channel, Handler handler) throws IOException {
    Server server = new Server(DaemonHttpServer.localThreads(THREAD_PREFIX, MAX_THREADS));
    HttpConfiguration http = new HttpConfiguration();
    http.setSendServerVersion(false);
    http.setSendXPoweredBy(false);
    server.addConnector(new OwnerOnlyConnector(server, channel, new HttpConnectionFactory(http)));
    server.setHandler(DaemonHttpServer.closingAfterAnUnreadBody(new ContextHandler(handler, ApiHandler.PATH)));
    try {
      server.start();
    } catch (Exception e) {
      stopQuietly(server);
      channel.close();
      throw new IOException("cannot serve the API on " + path + ": " + e.getMessage(), e);
    }
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

  /**
   * A connector on a Unix domain socket bound already (Jetty's own connector binds its socket
   * itself), which closes every connection whose peer is another user. No acceptor thread: its
   * one selector accepts.
   */
  private static final class OwnerOnlyConnector extends AbstractConnector {
    private final ServerSocketChannel channel;
    private final SelectorManager selectors;
    private final AtomicReference<Closeable> acceptor = new AtomicReference<>();

    OwnerOnlyConnector(Server server, ServerSocketChannel channel, ConnectionFactory factory) {
      super(server, null, null, null, 0, factory);
      this.channel = channel;
      this.selectors = new Selectors();
      installBean(selectors, true);
    }

    @Override
    protected void doStart() throws Exception {
      super.doStart();
      channel.configureBlocking(false);
      acceptor.set(selectors.acceptor(channel));
    }

    @Override
    protected void doStop() throws Exception {
      IO.close(acceptor.getAndSet(null));
      super.doStop();
      channel.close();
    }

    /** Not called: with no acceptor thread, the selector accepts. */
    @Override
    protected void accept(int acceptorId) throws IOException {
      SocketChannel accepted = channel.accept();
      if (accepted != null) {
        accepted(accepted);
      }
    }

    private void accepted(SocketChannel accepted) throws IOException {
      accepted.configureBlocking(false);
      checkPeer(accepted);
      selectors.accept(accepted);
    }

    /** Its user, in its own user and mount namespaces ({@link PeerCheck}); closed otherwise. */
    private void checkPeer(SocketChannel accepted) throws IOException {
      PeerCheck.admit(accepted, "the API socket");
    }

    @Override
    public Object getTransport() {
      return channel;
    }

    private final class Selectors extends SelectorManager {
      Selectors() {
        super(OwnerOnlyConnector.this.getExecutor(), OwnerOnlyConnector.this.getScheduler(), 1);
      }

      @Override
      protected void accepted(SelectableChannel accepted) throws IOException {
        OwnerOnlyConnector.this.accepted((SocketChannel) accepted);
      }

      @Override
      protected EndPoint newEndPoint(SelectableChannel accepted, ManagedSelector selector, SelectionKey key) {
        SocketChannelEndPoint endPoint = new SocketChannelEndPoint((SocketChannel) accepted, selector, key, getScheduler());
        endPoint.setIdleTimeout(OwnerOnlyConnector.this.getIdleTimeout());
        return endPoint;
      }

      @Override
      public Connection newConnection(SelectableChannel accepted, EndPoint endPoint, Object attachment) {
        return OwnerOnlyConnector.this.getDefaultConnectionFactory().newConnection(OwnerOnlyConnector.this, endPoint);
      }

      @Override
      protected void endPointOpened(EndPoint endPoint) {
        super.endPointOpened(endPoint);
        OwnerOnlyConnector.this.onEndPointOpened(endPoint);
      }

      @Override
      protected void endPointClosed(EndPoint endPoint) {
        OwnerOnlyConnector.this.onEndPointClosed(endPoint);
        super.endPointClosed(endPoint);
      }
    }
  }
}
