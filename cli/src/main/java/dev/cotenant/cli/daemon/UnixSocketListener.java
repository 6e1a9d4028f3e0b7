package dev.cotenant.cli.daemon;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Consumer;
import jdk.net.ExtendedSocketOptions;
import jdk.net.UnixDomainPrincipal;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The daemon's Unix domain socket, closed to other users twice over:
 *
 * <ul>
 *   <li><b>Mode 0600 from the first moment</b> ({@link OwnerOnlySocket}).
 *   <li><b>Peer credentials.</b> Each accepted connection's peer user ({@code SO_PEERCRED}) must
 *       be the daemon's own user; any other is closed at once (root bypasses file modes).
 * </ul>
 *
 * <p>A stale socket left by a daemon that was killed is replaced (the caller holds the
 * {@link DaemonLock}, so it is not another daemon's). Each connection is handed to the handler on
 * a thread of its own.
 */
final class UnixSocketListener implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(UnixSocketListener.class);

  private final Path path;
  private final ServerSocketChannel server;
  private final Thread acceptor;
  private volatile boolean closed;

  private UnixSocketListener(Path path, ServerSocketChannel server, Consumer<SocketChannel> handler) {
    this.path = path;
    this.server = server;
    this.acceptor = new Thread(() -> accept(handler), "cotenant-socket-accept");
    acceptor.setDaemon(true);
  }

  /** Binds {@code path} (replacing a stale socket there) and starts accepting. */
  static UnixSocketListener open(Path path, Consumer<SocketChannel> handler) throws IOException {
    ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
    try {
      OwnerOnlySocket.bind(path, 'b', at -> server.bind(UnixDomainSocketAddress.of(at), 64));
    } catch (IOException | RuntimeException e) {
      server.close();
      throw e;
    }
    UnixSocketListener l = new UnixSocketListener(path, server, handler);
    l.acceptor.start();
    return l;
  }

  private void accept(Consumer<SocketChannel> handler) {
    String self = System.getProperty("user.name");
    while (!closed) {
      SocketChannel ch;
      try {
        ch = server.accept();
      } catch (ClosedChannelException e) {
        return;
      } catch (IOException e) {
        if (!closed) {
          LOG.warn("accepting on {} failed: {}", path, e.getMessage());
        }
        return;
      }
      try {
        UnixDomainPrincipal peer = ch.getOption(ExtendedSocketOptions.SO_PEERCRED);
        if (!peer.user().getName().equals(self)) {
          LOG.warn("refused a connection from user {}: the socket is {}'s", peer.user().getName(), self);
          ch.close();
          continue;
        }
      } catch (IOException | UnsupportedOperationException e) {
        LOG.debug("no peer credentials ({}); the socket's mode 0600 guards it", e.toString());
      }
      Thread t = new Thread(() -> handler.accept(ch), "cotenant-session");
      t.setDaemon(true);
      t.start();
    }
  }

  /** The socket's path. */
  Path path() {
    return path;
  }

  /** Stops accepting and removes the socket file. */
  @Override
  public void close() {
    closed = true;
    try {
      server.close();
    } catch (IOException e) {
      LOG.debug("closing {}: {}", path, e.getMessage());
    }
    try {
      Files.deleteIfExists(path);
    } catch (IOException e) {
      LOG.warn("could not remove {}: {}", path, e.getMessage());
    }
  }
}
