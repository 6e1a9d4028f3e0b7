package dev.cotenant.cli.daemon.http;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpHeaderValue;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.handler.ContextHandler;
import org.eclipse.jetty.server.handler.ContextHandlerCollection;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The daemon's HTTP server: Jetty with one connector bound to {@value #HOST} only (never to every
 * interface), the {@link McpHttpEndpoint} mounted at {@value #MCP_PATH}, and room for more
 * handlers at their own context paths ({@link #mount}, before {@link #start}), such as an HTTP
 * API or a dashboard.
 *
 * <p><b>Why Jetty 12.</b> An MCP stream stays open while a call runs or a client listens: Jetty's
 * core handlers write responses asynchronously, so an open stream holds no thread, where the
 * JDK's {@code com.sun.net.httpserver} blocks a thread per stream and cannot listen on a
 * Unix-domain socket. Jetty can ({@code jetty-unixdomain-server}), should the daemon serve HTTP
 * there too, and its servlet layer is what the MCP Java SDK's servlet transports run on, should
 * one ever be mounted beside this endpoint. Jetty's core API is used here without servlets.
 *
 * <p>An answer given before its request's body was read whole (a refused origin, a missing token,
 * a body over the limit) says {@code Connection: close}, and the connection is closed after it:
 * the unread rest of the body cannot be told apart from a next request, and a client that kept
 * the connection for its next request would find it closed under it.
 *
 * <p>Requests run on a bounded pool of daemon threads named {@value #THREAD_PREFIX}. Not
 * thread-safe until started; then {@link #port} and {@link #close} may be called from any thread.
 */
public final class DaemonHttpServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(DaemonHttpServer.class);

  /** The only address the server listens on. */
  public static final String HOST = "127.0.0.1";

  /** Where the MCP endpoint is mounted. */
  public static final String MCP_PATH = "/mcp";

  /** The name prefix of the request threads. */
  public static final String THREAD_PREFIX = "cotenant-http";

  private static final int MAX_THREADS = 32;

  private final McpHttpEndpoint endpoint;
  private final Server server;
  private final ServerConnector connector;
  private final List<ContextHandler> contexts = new ArrayList<>();
  private boolean started;

  /**
   * A server for {@code endpoint} on {@code port} of {@value #HOST}; not started.
   *
   * @param port the TCP port; 0 for one the system picks ({@link #port()} says which)
   */
  public DaemonHttpServer(McpHttpEndpoint endpoint, int port) {
    this(endpoint, port, null);
  }

  /**
   * A server for {@code endpoint} on {@code channel}, a TCP socket bound to {@value #HOST}
   * already (connections pending on it are accepted first once started); not started. Stopping
   * the server closes the channel.
   */
  public DaemonHttpServer(McpHttpEndpoint endpoint, ServerSocketChannel channel) throws IOException {
    this(endpoint, boundPort(channel), channel);
  }

  private DaemonHttpServer(McpHttpEndpoint endpoint, int port, @Nullable ServerSocketChannel channel) {
    this.endpoint = Objects.requireNonNull(endpoint, "endpoint");
    if (port < 0 || port > 65_535) {
      throw new IllegalArgumentException("the HTTP port must be 0 to 65535, got " + port);
    }
    this.server = new Server(localThreads(THREAD_PREFIX, MAX_THREADS));
    HttpConfiguration http = new HttpConfiguration();
    http.setSendServerVersion(false);
    http.setSendXPoweredBy(false);
    // No acceptor thread: the selector accepts.
    HttpConnectionFactory factory = new HttpConnectionFactory(http);
    this.connector = channel == null ? new ServerConnector(server, 0, 1, factory) : new ServerConnector(server, 0, 1, factory) {
      @Override
      protected ServerSocketChannel openAcceptChannel() {
        return channel;
      }
    };
    connector.setHost(HOST);
    connector.setPort(port);
    server.addConnector(connector);
    mount(MCP_PATH, endpoint);
  }

  private static int boundPort(ServerSocketChannel channel) throws IOException {
    if (!(channel.getLocalAddress() instanceof InetSocketAddress bound) || !bound.getAddress().isLoopbackAddress()) {
      throw new IllegalArgumentException("the HTTP server's channel must be bound to " + HOST + ", is " + channel.getLocalAddress());
    }
    return bound.getPort();
  }

  /**
   * The thread pool of a server that only local clients use, a few at a time: daemon threads named
   * {@code name}, at most {@code max}; one kept while idle (the selector's, which also accepts),
   * and none parked in reserve for a quicker hand-off. Idle threads beyond it end after a minute.
   */
  public static QueuedThreadPool localThreads(String name, int max) {
    QueuedThreadPool threads = new QueuedThreadPool(max, 1);
    threads.setReservedThreads(0);
    threads.setName(name);
    threads.setDaemon(true);
    return threads;
  }

  /**
   * Mounts {@code handler} at {@code contextPath} ({@code "/api"}, or {@code "/"} for everything
   * no other context takes). The handler does its own checks: the {@link HttpGuard} guards only
   * what chooses to use it.
   *
   * @throws IllegalStateException after {@link #start}
   * @throws IllegalArgumentException when the path is taken already
   */
  public synchronized DaemonHttpServer mount(String contextPath, Handler handler) {
    Objects.requireNonNull(contextPath, "contextPath");
    Objects.requireNonNull(handler, "handler");
    if (started) {
      throw new IllegalStateException("handlers are mounted before the HTTP server starts");
    }
    for (ContextHandler c : contexts) {
      if (c.getContextPath().equals(contextPath)) {
        throw new IllegalArgumentException("the context path " + contextPath + " is taken already");
      }
    }
    ContextHandler context = new ContextHandler(handler, contextPath);
    contexts.add(context);
    return this;
  }

  /**
   * Starts listening.
   *
   * @throws Exception when the port cannot be bound, or Jetty does not start
   */
  public synchronized void start() throws Exception {
    if (started) {
      throw new IllegalStateException("the HTTP server was started already");
    }
    started = true;
    server.setHandler(closingAfterAnUnreadBody(new ContextHandlerCollection(contexts.toArray(new ContextHandler[0]))));
    try {
      server.start();
    } catch (Exception e) {
      server.stop();
      throw e;
    }
    LOG.info("HTTP listening on {}:{} (MCP at {}/<server>)", HOST, port(), MCP_PATH);
  }

  /** The port bound; -1 before {@link #start}. */
  public int port() {
    return connector.getLocalPort();
  }

  /** The host the connector is bound to: always {@value #HOST}. */
  public String host() {
    return Objects.requireNonNull(connector.getHost());
  }

  /** The MCP endpoint. */
  public McpHttpEndpoint endpoint() {
    return endpoint;
  }

  /**
   * Closes the endpoint (every session's connection; requests in flight are answered with an
   * error, streams are ended), then stops Jetty.
   */
  @Override
  public void close() {
    try {
      endpoint.close();
    } finally {
      try {
        server.stop();
      } catch (Exception e) {
        LOG.warn("the HTTP server did not stop cleanly: {}", String.valueOf(e.getMessage()));
      }
    }
  }

  @Override
  public String toString() {
    return "DaemonHttpServer[" + HOST + ":" + port() + "]";
  }

  /**
   * {@code handler}, whose answers say {@code Connection: close} when they are given before the
   * request's body was read whole: before an answer is committed, what has arrived of the body is
   * read, and when that is not all of it the header is added. (Jetty closes such a connection
   * anyway, but once the answer is committed it can no longer say so, and a client that reuses the
   * connection reads nothing.) Every server of the daemon's, over TCP or {@code api.sock}, wraps
   * its handlers in it.
   */
  public static Handler closingAfterAnUnreadBody(Handler handler) {
    return new ClosesAfterAnUnreadBody(Objects.requireNonNull(handler, "handler"));
  }

  private static final class ClosesAfterAnUnreadBody extends Handler.Wrapper {
    ClosesAfterAnUnreadBody(Handler handler) {
      super(handler);
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) throws Exception {
      return super.handle(request, new Response.Wrapper(request, response) {
        @Override
        public void write(boolean last, ByteBuffer content, Callback written) {
          if (!isCommitted() && !request.consumeAvailable()) {
            getHeaders().put(HttpHeader.CONNECTION, HttpHeaderValue.CLOSE.asString());
          }
          super.write(last, content, written);
        }
      }, callback);
    }
  }
}
