package dev.cotenant.cli.daemon;

import dev.cotenant.gateway.config.ConfigException;
import dev.cotenant.gateway.config.ConfiguredServer;
import dev.cotenant.gateway.pool.PoolException;
import dev.cotenant.gateway.sharing.ClientSession;
import dev.cotenant.gateway.sharing.Sharing;
import dev.cotenant.spi.rpc.Envelope;
import dev.cotenant.spi.rpc.ErrorCode;
import dev.cotenant.spi.rpc.RequestId;
import dev.cotenant.spi.rpc.RpcMessage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The socket adapter of one shim: the hello ({@link Wire}), then the lines of one
 * {@link ClientSession} of one server through {@link Sharing}. Each line is parsed and classified
 * once, here ({@link RpcMessage#read}), and handed on as it was read: the message is the
 * daemon's from then on (see {@link Wire}). The session connects at the client's first message (its
 * {@code initialize} carries the parameters placement needs; a 2026-07-28 client sends none).
 *
 * <p>It holds no thread: its {@link SocketConnection} hands it the shim's lines one at a time on a
 * worker of the socket ({@link UnixSocketListener}), and what the backend sends the client is
 * written on the thread that has it, without blocking (what the socket does not take yet waits,
 * at most {@value #OUTBOUND} messages), so a client that stops reading never holds up a shared
 * backend: when that many wait, its session is ended. Ends when the daemon ends it or the socket
 * fails, and, when the shim closes its side at its client's end of input, once the calls in
 * flight are answered ({@link ClientSession#closeWhenAnswered}) and written.
 */
final class SocketSession implements SocketConnection.Handler {
  private static final Logger LOG = LoggerFactory.getLogger(SocketSession.class);

  /** The most messages waiting for a client that is not reading. */
  static final int OUTBOUND = 10_000;

  private final SocketConnection connection;
  private final Sharing sharing;
  private final ServerDirectory directory;
  private final String sessionId;
  private final Consumer<SocketSession> onEnd;
  private final Control control;
  private volatile @Nullable ClientSession clientSession;
  private volatile @Nullable String serverName;
  /** The server the hello named, once the hello was accepted. */
  private volatile @Nullable ConfiguredServer server;
  /** Whether the first line (the hello) was handled; the handler's calls are serial. */
  private boolean helloRead;
  private volatile long shimPid = -1;
  /** True once the hello named a server the daemon found (the shim was answered {@code connected}). */
  private volatile boolean accepted;
  private volatile boolean ended;
  /** The client's {@code initialize} a resuming shim sent in its hello; null for a new session. */
  private volatile @Nullable Map<String, Object> resume;
  /** The placement the shim was told last ({@link Wire#placed}); null before the first notice. */
  private volatile @Nullable String lastPlaced;

  /**
   * The id under which a resumed session's {@code initialize} is sent again; its answer goes to
   * nobody. The multiplexer's own requests to a client are numbered ({@code "cotenant-<n>"}), so
   * a message to the client with this id can only be that answer.
   */
  static final String RESUME_ID = "cotenant-resume";

  /** What a control hello may ask of the daemon. */
  interface Control {
    /** The daemon's state and accounting, as JSON values. */
    Map<String, Object> status();

    /** Stops the daemon, off the caller's thread. */
    void stopSoon();
  }

  SocketSession(SocketConnection connection, Sharing sharing, ServerDirectory directory, String sessionId,
      Consumer<SocketSession> onEnd, Control control) {
    this.control = control;
    this.connection = connection;
    this.sharing = sharing;
    this.directory = directory;
    this.sessionId = sessionId;
    this.onEnd = onEnd;
  }

  String sessionId() {
    return sessionId;
  }

  /** True once a shim's hello named a server (not a control connection). */
  boolean isClientSession() {
    return serverName != null && !ended;
  }

  /**
   * The server of this client session while it lives, once its hello was accepted (attached to a
   * backend or not yet); empty for a control connection, a refused hello or an ended session.
   */
  java.util.Optional<String> acceptedServer() {
    String name = serverName;
    return accepted && !ended && name != null ? java.util.Optional.of(name) : java.util.Optional.empty();
  }

  /**
   * True while the session is attached to a backend: its client's first message placed it, and its
   * start is not answered from the records with no backend yet (a deferred session).
   */
  boolean isAttached() {
    ClientSession c = clientSession;
    return c != null && !ended && !c.deferred();
  }

  /** The client session this socket session carries, once its first message connected it. */
  java.util.Optional<ClientSession> connection() {
    return java.util.Optional.ofNullable(clientSession);
  }

  /** The process id the shim named in its hello; empty when it named none. */
  java.util.OptionalLong shimPid() {
    long p = shimPid;
    return p > 0 ? java.util.OptionalLong.of(p) : java.util.OptionalLong.empty();
  }

  @Override
  public void line(byte[] line) {
    if (ended) {
      return;
    }
    try {
      if (!helloRead) {
        helloRead = true;
        hello(line);
        return;
      }
      ConfiguredServer s = java.util.Objects.requireNonNull(server);
      Map<String, Object> json;
      try {
        json = Wire.object(line);
      } catch (IOException e) {
        send(Envelope.error(dev.cotenant.cli.daemon.http.ReadableId.in(line), ErrorCode.PARSE_ERROR, "parse error: " + e.getMessage()));
        return;
      }
      RpcMessage message;
      try {
        message = RpcMessage.read(json);
      } catch (RpcMessage.InvalidMessage e) {
        ClientSession c = clientSession != null ? clientSession : connect(s, null);
        if (c != null) {
          c.invalid(json, e);
        }
        return;
      }
      ClientSession c = clientSession;
      if (c == null) {
        c = connect(s, message);
        if (c == null) {
          return;
        }
      }
      c.fromClient(message);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      end();
    } catch (RuntimeException e) {
      LOG.warn("session {} of {} failed: {}", sessionId, serverName, e.toString());
      end();
    }
  }

  @Override
  public void ended(@Nullable String why) {
    if (why != null && !ended) {
      LOG.debug("session {}: {}", sessionId, why);
    }
    ClientSession c = clientSession;
    if (why == null && c != null && !ended && !connection.isClosed()) {
      // The client closed its input (its shim half-closes the socket), and may still read: the
      // calls it has in flight are answered, or told they were interrupted, before the session
      // ends, and the socket closes once what waits for the shim is written.
      c.closeWhenAnswered(ClientSession.ANSWER_WAIT).whenComplete((v, e) -> endAfterWritten());
      return;
    }
    end();
  }

  /**
   * The first line: a shim's hello, answered; a resumed session is connected at once. A control
   * hello ({@code status}, {@code stop}) or a refused one ends the session once its answer is
   * written.
   */
  private void hello(byte[] line) throws InterruptedException {
    ConfiguredServer s = accepted(line);
    if (s == null) {
      endAfterWritten();
      return;
    }
    server = s;
    Map<String, Object> resumed = resume;
    if (resumed != null) {
      // The client has its initialize answer from the daemon that went away: the session is
      // connected with that initialize, whose answer goes to nobody.
      @SuppressWarnings("unchecked")
      Map<String, Object> params = (Map<String, Object>) resumed.get("params");
      RpcMessage init = RpcMessage.Request.of(RequestId.of(RESUME_ID), "initialize", params);
      ClientSession c = connect(s, init);
      if (c == null) {
        return;
      }
      c.fromClient(init);
      c.fromClient(RpcMessage.Notification.of("notifications/initialized", null));
    }
  }

  /** The server a hello names when it is accepted; null when it was answered otherwise (status, stop, refused). */
  private @Nullable ConfiguredServer accepted(byte[] line) {
    Map<String, Object> hello;
    try {
      hello = Wire.object(line);
    } catch (IOException e) {
      refuse("the first line is not a Cotenant hello: " + e.getMessage());
      return null;
    }
    Object version = hello.get("version");
    if (!(version instanceof Number) || ((Number) version).intValue() != Wire.VERSION) {
      refuse("this daemon speaks version " + Wire.VERSION + " of the shim protocol; the shim sent " + version
          + ": restart the daemon, or use the same cotenant for both");
      return null;
    }
    if ("status".equals(hello.get("cotenant"))) {
      Map<String, Object> status = new java.util.LinkedHashMap<>(control.status());
      status.put("cotenant", "status");
      write(Wire.line(status));
      return null;
    }
    if ("stop".equals(hello.get("cotenant"))) {
      LOG.info("stopping: asked to over the socket");
      write(Wire.line(Map.of("cotenant", "stopping", "pid", ProcessHandle.current().pid())));
      control.stopSoon();
      return null;
    }
    if (!"connect".equals(hello.get("cotenant")) || !(hello.get("server") instanceof String)) {
      refuse("the first line is not a Cotenant hello (\"cotenant\": \"connect\", \"status\" or \"stop\")");
      return null;
    }
    String name = (String) hello.get("server");
    serverName = name;
    if (hello.get("pid") instanceof Number n && n.longValue() > 0) {
      shimPid = n.longValue();
    }
    List<Path> files = new ArrayList<>();
    if (hello.get("configs") instanceof List) {
      for (Object o : (List<?>) hello.get("configs")) {
        if (o instanceof String && Path.of((String) o).isAbsolute()) {
          files.add(Path.of((String) o));
        }
      }
    }
    try {
      ConfiguredServer s = directory.find(name, files);
      Object r = hello.get("resume");
      if (r != null) {
        ConfiguredServer resumedServer = resumed(s, r);
        accepted = resumedServer != null;
        return resumedServer;
      }
      accepted = true;
      write(Wire.connected(sessionId));
      return s;
    } catch (ConfigException e) {
      refuse(e.file() + ": " + e.problem());
    } catch (ServerDirectory.UnknownServerException e) {
      refuse(e.getMessage());
    }
    return null;
  }

  /**
   * A shim whose daemon went away resumes its session here when the server's sessions are shared
   * now: what a session of a stateless server held, a new backend holds too. A server whose
   * sessions are dedicated is refused, since its session's state ended with the backend.
   */
  @SuppressWarnings("unchecked")
  private @Nullable ConfiguredServer resumed(ConfiguredServer s, Object init) {
    if (!(init instanceof Map) || !"initialize".equals(((Map<String, Object>) init).get("method"))
        || !(((Map<String, Object>) init).get("params") instanceof Map)) {
      refuse("the hello's \"resume\" is not the client's initialize request");
      return null;
    }
    Object resumeParams = ((Map<String, Object>) init).get("params");
    dev.cotenant.gateway.sharing.PlacementDecision d = sharing.placement(s.description(),
        dev.cotenant.gateway.sharing.ClientShape.of((Map<String, Object>) resumeParams));
    if (d.placement() != dev.cotenant.gateway.pool.Placement.SHARED) {
      refuse(s.name() + "'s sessions get a backend of their own (" + d.why() + "): its session's state ended with the"
          + " daemon that went away, so it cannot resume; restart " + s.name() + " in the client");
      return null;
    }
    resume = (Map<String, Object>) init;
    LOG.info("session {} of {}: resuming a session whose daemon went away", sessionId, s.name());
    write(Wire.connected(sessionId, true));
    return s;
  }

  private void refuse(String why) {
    LOG.info("refused a shim: {}", why);
    write(Wire.refused(why));
  }

  /** Queues a line of the daemon's own for the shim. */
  private void write(byte[] line) {
    connection.write(line, OUTBOUND);
  }

  /**
   * Connects the session at the client's first message: its {@code initialize} params place it
   * (none for a 2026-07-28 client, or a first message that is not a JSON-RPC message).
   */
  private @Nullable ClientSession connect(ConfiguredServer server, @Nullable RpcMessage first)
      throws InterruptedException {
    Map<String, Object> params = Map.of();
    if (first instanceof RpcMessage.Request r && "initialize".equals(r.method()) && r.params() != null) {
      params = r.params();
    }
    try {
      ClientSession c = sharing.connect(server.description(), sessionId, params, this::send);
      clientSession = c;
      if (c.deferred()) {
        LOG.info("session {} of {}: deferred ({}); {} at its first call ({})", sessionId, server.name(),
            c.start().why(), c.placement().placement().name().toLowerCase(java.util.Locale.ROOT), c.placement().why());
      } else {
        LOG.info("session {} of {}: {} ({}), backend pid {}; not deferred: {}", sessionId, server.name(),
            c.placement().placement().name().toLowerCase(java.util.Locale.ROOT), c.placement().why(),
            c.backendPid().isPresent() ? c.backendPid().getAsLong() : "unknown", c.start().why());
      }
      // Before the initialize answer: the shim learns whether its session could resume on a new daemon.
      placed(c.placement());
      // And again each time the session lands elsewhere (a deferred start, a move after a hazard
      // or a drain), before the message that moved it is forwarded: the shim's notice is always
      // where the session is.
      c.onPlaced(this::placed);
      return c;
    } catch (PoolException e) {
      LOG.warn("session {} of {}: no backend: {}", sessionId, server.name(), e.getMessage());
      if (first instanceof RpcMessage.Request r) {
        write(Wire.line(Envelope.error(r.id(), ErrorCode.NO_BACKEND,
            "no backend for " + server.name() + ": " + e.getMessage())));
      }
      endAfterWritten();
      return null;
    }
  }

  /** Tells the shim where the session is placed, when that is not what it was told last. */
  private void placed(dev.cotenant.gateway.sharing.PlacementDecision d) {
    String placement = d.placement().name().toLowerCase(java.util.Locale.ROOT);
    if (!placement.equals(lastPlaced)) {
      lastPlaced = placement;
      write(Wire.placed(placement));
    }
  }

  /** Queues one message for the client; ends the session when the client has stopped reading. */
  private void send(Map<String, Object> message) {
    if (ended) {
      return;
    }
    if (resume != null && RESUME_ID.equals(message.get("id"))) {
      // The answer to a resumed session's initialize: the client has had its own.
      return;
    }
    if (!connection.write(Wire.line(message), OUTBOUND) && !connection.isClosed()) {
      LOG.warn("session {} of {}: the client has not read its last {} messages; ending its session", sessionId,
          serverName, OUTBOUND);
      end();
    }
  }

  /**
   * Ends the session of a daemon that is stopping: tells the shim so ({@link Wire#stopping}, so
   * that it does not start a new daemon) in place of what still waited for it, waits a moment for
   * that line to be written, then ends.
   */
  void stopping(String reason) {
    if (server != null && !ended && connection.replaceQueued(Wire.stopping(reason))) {
      try {
        connection.awaitWritten(1000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    end();
  }

  /** Ends the session: closes its connection (releasing its backend) and the socket. Idempotent. */
  void end() {
    if (markEnded()) {
      connection.close();
      onEnd.accept(this);
    }
  }

  /** Ends the session as {@link #end} does, but closes the socket only once what waits for the shim is written. */
  private void endAfterWritten() {
    if (markEnded()) {
      connection.closeWhenWritten();
      onEnd.accept(this);
    }
  }

  /** Marks the session ended and releases its backend; false when it had ended already. */
  private boolean markEnded() {
    synchronized (this) {
      if (ended) {
        return false;
      }
      ended = true;
    }
    ClientSession c = clientSession;
    if (c != null) {
      c.close();
    }
    return true;
  }
}
