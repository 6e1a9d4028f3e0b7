package dev.cotenant.cli.daemon;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The daemon's HTTP listeners ({@code api.sock} and the loopback port), bound when the daemon
 * starts and served from their first connection: the HTTP server (Jetty) is loaded and started
 * only when a client connects, on the channel bound already, so a daemon that only serves
 * sessions over {@code cotenant.sock} never pays for it.
 *
 * <p>Until then one thread ({@value #THREAD}) waits on a selector until one of the channels has a
 * connection pending. It takes the channel off its selector and hands it to that listener's
 * {@link Starter} (on the same thread); the pending connection stays in the channel's backlog
 * until the started server accepts it, so the first client's request is served. Each listener
 * starts on its own first connection; the thread ends when every listener has started.
 *
 * <p>This class loads no class of the HTTP server: the {@link Starter}s do, when they run.
 * Thread-safe.
 */
final class HttpListeners implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(HttpListeners.class);

  /** The name of the thread that waits for the first connections. */
  static final String THREAD = "cotenant-http-wait";

  /** Starts serving a channel whose first connection is pending. */
  @FunctionalInterface
  interface Starter {
    /**
     * Serves {@code channel} (bound, in blocking mode, registered with no selector) from now on;
     * what it returns stops serving when closed.
     */
    AutoCloseable start(ServerSocketChannel channel) throws Exception;
  }

  private static final class Listener {
    final String name;
    final ServerSocketChannel channel;
    final @Nullable Path file;
    final Starter starter;
    @Nullable AutoCloseable served;

    Listener(String name, ServerSocketChannel channel, @Nullable Path file, Starter starter) {
      this.name = name;
      this.channel = channel;
      this.file = file;
      this.starter = starter;
    }
  }

  private final Selector selector;
  private final List<Listener> listeners = new ArrayList<>();
  private final Thread thread;
  private boolean closed;

  /** Listeners to come ({@link #watch}); the thread starts with {@link #start}. */
  HttpListeners() throws IOException {
    this.selector = Selector.open();
    this.thread = new Thread(this::run, THREAD);
    thread.setDaemon(true);
  }

  /**
   * A Unix domain socket at {@code path}, its owner's only ({@link OwnerOnlySocket}), with the
   * default backlog; a stale socket there is replaced.
   *
   * @throws IOException when it cannot be bound
   */
  static ServerSocketChannel bindUnix(Path path) throws IOException {
    ServerSocketChannel channel = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
    try {
      OwnerOnlySocket.bind(path, 'a', at -> channel.bind(UnixDomainSocketAddress.of(at), 0));
      return channel;
    } catch (IOException | RuntimeException e) {
      channel.close();
      throw e;
    }
  }

  /**
   * A TCP socket on {@code port} of {@code host} (0: a free port), with {@code SO_REUSEADDR} and
   * the default backlog, as the HTTP server would bind it.
   *
   * @throws IOException when it cannot be bound ("Failed to bind to /HOST:PORT", the
   *     {@link java.net.BindException} as cause when the port is in use)
   */
  static ServerSocketChannel bindTcp(String host, int port) throws IOException {
    InetSocketAddress address = new InetSocketAddress(host, port);
    ServerSocketChannel channel = ServerSocketChannel.open();
    try {
      channel.setOption(StandardSocketOptions.SO_REUSEADDR, true);
      channel.bind(address, 0);
      return channel;
    } catch (IOException | RuntimeException e) {
      channel.close();
      throw new IOException("Failed to bind to " + address, e);
    }
  }

  /**
   * Waits for {@code channel}'s first connection, then serves it with {@code starter}. On
   * {@link #close} the channel is closed (and {@code file}, its socket file, removed) whether it
   * was served or not: it is this object's from now on, even when this throws.
   */
  synchronized void watch(String name, ServerSocketChannel channel, @Nullable Path file, Starter starter)
      throws IOException {
    Listener l = new Listener(name, channel, file, starter);
    listeners.add(l);
    if (closed) {
      throw new IOException("the listeners are closed");
    }
    channel.configureBlocking(false);
    channel.register(selector, SelectionKey.OP_ACCEPT, l);
  }

  /** Starts waiting for the first connections. */
  void start() {
    thread.start();
  }

  /** Whether the listener {@code name} has started serving. */
  synchronized boolean serving(String name) {
    return listeners.stream().anyMatch(l -> l.name.equals(name) && l.served != null);
  }

  private void run() {
    try {
      while (true) {
        selector.select();
        synchronized (this) {
          if (closed) {
            return;
          }
          List<Listener> pending = new ArrayList<>();
          for (SelectionKey k : selector.selectedKeys()) {
            k.cancel();
            pending.add((Listener) k.attachment());
          }
          selector.selectedKeys().clear();
          // Deregisters the cancelled keys: only then may their channels be made blocking again.
          selector.selectNow();
          for (Listener l : pending) {
            serve(l);
          }
          if (selector.keys().isEmpty()) {
            return;
          }
        }
      }
    } catch (IOException | ClosedSelectorException e) {
      synchronized (this) {
        if (!closed) {
          LOG.warn("waiting for the first HTTP connections failed: {}; the HTTP listeners are closed", e.toString());
          closeAll();
        }
      }
    } finally {
      closeSelector();
    }
  }

  /** Starts {@code l}'s server; when it cannot start, closes the channel (its clients are refused, not kept waiting). */
  private void serve(Listener l) {
    long t0 = System.nanoTime();
    try {
      l.channel.configureBlocking(true);
      l.served = l.starter.start(l.channel);
      LOG.info("{} served from its first connection (the server started in {} ms)", l.name,
          (System.nanoTime() - t0) / 1_000_000);
    } catch (Exception e) {
      LOG.error("{} could not be served: {}; it is closed", l.name, String.valueOf(e.getMessage()), e);
      closeQuietly(l.channel);
    }
  }

  /**
   * Stops serving: a server started is stopped, a channel never served is closed, and each
   * socket file is removed. Waits for a server being started to have started. Idempotent.
   */
  @Override
  public void close() {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
      closeAll();
    }
    selector.wakeup();
    if (thread.getState() == Thread.State.NEW) {
      // Never started: no thread is there to close the selector.
      closeSelector();
    }
  }

  private void closeAll() {
    for (Listener l : listeners) {
      closeQuietly(l.served);
      closeQuietly(l.channel);
      if (l.file != null) {
        try {
          Files.deleteIfExists(l.file);
        } catch (IOException e) {
          LOG.warn("could not remove {}: {}", l.file, e.getMessage());
        }
      }
    }
  }

  private void closeSelector() {
    try {
      selector.close();
    } catch (IOException e) {
      LOG.debug("closing the selector of the HTTP listeners: {}", e.getMessage());
    }
  }

  private static void closeQuietly(@Nullable AutoCloseable c) {
    Daemon.closeQuietly(c);
  }
}
