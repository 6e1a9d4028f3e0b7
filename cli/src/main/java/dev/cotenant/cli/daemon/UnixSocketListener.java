package dev.cotenant.cli.daemon;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.CancelledKeyException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The daemon's Unix domain socket, closed to other users twice over:
 *
 * <ul>
 *   <li><b>Mode 0600 from the first moment</b> ({@link OwnerOnlySocket}).
 *   <li><b>Peer credentials.</b> Each accepted connection's peer ({@code SO_PEERCRED}) must be
 *       the daemon's own user, in the daemon's own user and mount namespaces ({@link PeerCheck});
 *       any other is closed at once (root bypasses file modes; a sandbox may reach the socket).
 * </ul>
 *
 * <p>A stale socket left by a daemon that was killed is replaced (the caller holds the
 * {@link DaemonLock}, so it is not another daemon's).
 *
 * <p>One thread ({@value #THREAD}) accepts, reads and writes every connection, in non-blocking
 * mode; each connection's lines are handled in order by a {@link SocketConnection.Handler} on a
 * pool of workers ({@value #WORKERS}-N) that holds a thread only while a connection has a line
 * to handle (an idle worker ends after {@value #WORKER_IDLE_SECONDS} s). A session costs no
 * thread of its own while it waits, which is most of a session's life.
 */
final class UnixSocketListener implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(UnixSocketListener.class);

  /** The name of the socket's thread. */
  static final String THREAD = "cotenant-socket";
  /** The name prefix of the workers that handle lines. */
  static final String WORKERS = "cotenant-session";
  /** How long an idle worker waits for a line before it ends. */
  static final int WORKER_IDLE_SECONDS = 30;
  /** The socket's thread reads into one buffer for every connection. */
  private static final int READ_BUFFER = 64 * 1024;

  private final Path path;
  private final ServerSocketChannel server;
  private final Selector selector;
  private final ThreadPoolExecutor workers;
  private final Function<SocketConnection, SocketConnection.Handler> handlers;
  private final Thread thread;
  private volatile boolean closed;

  private UnixSocketListener(Path path, ServerSocketChannel server, Selector selector,
      Function<SocketConnection, SocketConnection.Handler> handlers) {
    this.path = path;
    this.server = server;
    this.selector = selector;
    this.handlers = handlers;
    AtomicInteger n = new AtomicInteger();
    this.workers = new ThreadPoolExecutor(0, Integer.MAX_VALUE, WORKER_IDLE_SECONDS, TimeUnit.SECONDS,
        new SynchronousQueue<>(), r -> {
          Thread t = new Thread(r, WORKERS + "-" + n.incrementAndGet());
          t.setDaemon(true);
          return t;
        });
    this.thread = new Thread(this::run, THREAD);
    thread.setDaemon(true);
  }

  /**
   * Binds {@code path} (replacing a stale socket there) and starts accepting; each connection's
   * handler is what {@code handlers} returns for it (called on the socket's thread: it must not
   * block).
   */
  static UnixSocketListener open(Path path, Function<SocketConnection, SocketConnection.Handler> handlers)
      throws IOException {
    ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
    Selector selector;
    try {
      OwnerOnlySocket.bind(path, 'b', at -> server.bind(UnixDomainSocketAddress.of(at), 64));
      server.configureBlocking(false);
      selector = Selector.open();
      server.register(selector, SelectionKey.OP_ACCEPT);
    } catch (IOException | RuntimeException e) {
      server.close();
      throw e;
    }
    UnixSocketListener l = new UnixSocketListener(path, server, selector, handlers);
    l.thread.start();
    return l;
  }

  private void run() {
    ByteBuffer buffer = ByteBuffer.allocateDirect(READ_BUFFER);
    try {
      while (true) {
        selector.select();
        if (closed && selector.keys().isEmpty()) {
          return;
        }
        Iterator<SelectionKey> it = selector.selectedKeys().iterator();
        while (it.hasNext()) {
          SelectionKey k = it.next();
          it.remove();
          try {
            if (k.channel() == server) {
              if (k.isAcceptable()) {
                acceptAll(k);
              }
              continue;
            }
            SocketConnection c = (SocketConnection) k.attachment();
            if (k.isWritable()) {
              c.writable();
            }
            if (k.isValid() && k.isReadable()) {
              c.readable(buffer);
            }
          } catch (CancelledKeyException e) {
            // Closed by another thread meanwhile.
          }
        }
      }
    } catch (IOException | RuntimeException e) {
      if (!closed) {
        LOG.warn("the socket {} failed: {}; its connections are closed", path, e.toString());
      }
      for (SelectionKey k : selector.keys()) {
        if (k.attachment() instanceof SocketConnection c) {
          c.close();
        }
      }
    } finally {
      try {
        selector.close();
      } catch (IOException e) {
        LOG.debug("closing the selector of {}: {}", path, e.getMessage());
      }
      workers.shutdown();
    }
  }

  /**
   * Accepts every connection waiting. When accepting fails (other than by {@link #close}), this
   * stops accepting, as the socket's earlier blocking acceptor did, and says so; the connections
   * already open are still served.
   */
  private void acceptAll(SelectionKey acceptKey) {
    while (!closed) {
      SocketChannel ch;
      try {
        ch = server.accept();
      } catch (IOException e) {
        if (!closed) {
          LOG.warn("accepting on {} failed: {}; no new connection is accepted", path, e.getMessage());
          acceptKey.cancel();
        }
        return;
      }
      if (ch == null) {
        return;
      }
      try {
        PeerCheck.admit(ch, path.toString());
      } catch (IOException refused) {
        continue;
      }
      try {
        ch.configureBlocking(false);
        SocketConnection c = new SocketConnection(ch, selector, workers);
        SelectionKey key = ch.register(selector, 0, c);
        c.start(handlers.apply(c), key);
        if (key.isValid()) {
          key.interestOps(SelectionKey.OP_READ);
        }
      } catch (CancelledKeyException e) {
        // Its handler closed it at once (the daemon is stopping).
      } catch (IOException | RuntimeException e) {
        LOG.warn("a connection on {} could not be set up: {}", path, e.toString());
        try {
          ch.close();
        } catch (IOException closing) {
          // Closed already.
        }
      }
    }
  }

  /** The socket's path. */
  Path path() {
    return path;
  }

  /**
   * Stops accepting and removes the socket file. Connections already open are still read and
   * written until each is closed; the socket's thread ends with the last.
   */
  @Override
  public void close() {
    closed = true;
    try {
      server.close();
    } catch (IOException e) {
      LOG.debug("closing {}: {}", path, e.getMessage());
    }
    selector.wakeup();
    try {
      Files.deleteIfExists(path);
    } catch (IOException e) {
      LOG.warn("could not remove {}: {}", path, e.getMessage());
    }
  }
}
