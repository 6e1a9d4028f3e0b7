package dev.cotenant.cli.daemon.http;

import dev.cotenant.api.LogSafe;
import dev.cotenant.api.ServerDescription;
import dev.cotenant.gateway.pool.PoolException;
import dev.cotenant.gateway.sharing.ClientSession;
import dev.cotenant.gateway.sharing.Sharing;
import dev.cotenant.spi.Mcp;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpMethod;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.core.JacksonException;

/**
 * MCP over Streamable HTTP (MCP 2025-11-25, "Transports") for every configured server: a Jetty
 * handler serving {@code /{server}} within its context ({@link DaemonHttpServer} mounts it at
 * {@code /mcp}), each session a {@link ClientSession} of the {@link Sharing} runtime.
 *
 * <p>Every request first passes the {@link HttpGuard}. Then:
 *
 * <ul>
 *   <li><b>POST</b> carries one JSON-RPC message (a batch is refused with 400: 2025-06-18 removed
 *       batching; malformed JSON is 400 with {@code -32700}). A request must accept
 *       both {@code application/json} and {@code text/event-stream} (400 otherwise; a request
 *       without {@code Accept} accepts anything, RFC 9110). {@code initialize} without
 *       {@code Mcp-Session-Id} opens a session: a random 128-bit id in the answer's
 *       {@code Mcp-Session-Id}. A request of a session is answered on its own response: plain
 *       {@code application/json} when its answer is the first thing for it, else an event stream
 *       that carries the progress, server requests and notifications sent while it is in flight
 *       and ends with its answer. A notification or a response (the client's answer to a server
 *       request) is 202 with no body.
 *   <li><b>Stateless requests (2026-07-28).</b> A request without a session whose
 *       {@code params._meta} carries {@value Mcp#META_PROTOCOL_VERSION}, or whose
 *       {@code MCP-Protocol-Version} is {@value Mcp#MODERN_VERSION}, and {@code server/discover},
 *       is served by a session of its own that is closed once it is answered.
 *   <li><b>GET</b> with a session opens its standalone event stream, for what the server sends
 *       outside any request ({@code notifications/tools/list_changed}, {@code
 *       notifications/resources/updated}): at most one per session (409 for a second), 405 for a
 *       GET that does not accept {@code text/event-stream}. What a session is sent while no
 *       stream can carry it waits for it, up to 1,000 messages (the oldest dropped).
 *   <li><b>DELETE</b> with a session closes its connection and forgets it: 204.
 *   <li>An unknown or ended session is 404; a missing one, on anything but {@code initialize}
 *       and stateless requests, is 400. An {@code MCP-Protocol-Version} other than
 *       {@link #SUPPORTED_VERSIONS} is 400. An unknown server is 404 with a JSON-RPC error naming
 *       it; servers that cannot be read are 500 with one line saying why; no backend to be had
 *       is 503 with {@link dev.cotenant.spi.rpc.ErrorCode#NO_BACKEND}.
 * </ul>
 *
 * <p>Streams are written asynchronously: an open stream holds no thread. Each open stream gets a
 * keep-alive comment every 15 seconds (which also ends the streams of clients that went away); a
 * session with nothing in flight, no open stream and no request for the session idle timeout
 * (30 minutes) is closed. Not supported: resuming a stream ({@code Last-Event-ID}); messages a
 * stream could not deliver are lost with it. Thread-safe.
 */
public final class McpHttpEndpoint extends Handler.Abstract implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(McpHttpEndpoint.class);

  /** The protocol versions an {@code MCP-Protocol-Version} header may name. */
  public static final Set<String> SUPPORTED_VERSIONS =
      Set.of("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", Mcp.MODERN_VERSION);

  /** The session header. */
  public static final String SESSION_HEADER = "Mcp-Session-Id";

  /** The protocol version header. */
  public static final String VERSION_HEADER = "MCP-Protocol-Version";

  /** The largest POST body accepted, in bytes. */
  static final int MAX_BODY_BYTES = 4 * 1024 * 1024;

  static final Duration KEEP_ALIVE = Duration.ofSeconds(15);
  static final Duration SESSION_IDLE_TIMEOUT = Duration.ofMinutes(30);

  private final Sharing sharing;
  private final ServerLookup servers;
  private final HttpGuard guard;
  private final Duration sessionIdleTimeout;
  private final SecureRandom random = new SecureRandom();
  private final Map<String, McpSession> sessions = new ConcurrentHashMap<>();
  /** The sessions of stateless requests in flight. */
  private final Set<McpSession> oneShots = ConcurrentHashMap.newKeySet();
  private final ScheduledExecutorService timers;
  private volatile boolean closed;

  /**
   * An endpoint over {@code sharing}, serving the servers {@code servers} finds, behind {@code guard}.
   */
  public McpHttpEndpoint(Sharing sharing, ServerLookup servers, HttpGuard guard) {
    this(sharing, servers, guard, KEEP_ALIVE, SESSION_IDLE_TIMEOUT);
  }

  McpHttpEndpoint(Sharing sharing, ServerLookup servers, HttpGuard guard, Duration keepAlive, Duration sessionIdleTimeout) {
    this.sharing = Objects.requireNonNull(sharing, "sharing");
    this.servers = Objects.requireNonNull(servers, "servers");
    this.guard = Objects.requireNonNull(guard, "guard");
    this.sessionIdleTimeout = Objects.requireNonNull(sessionIdleTimeout, "sessionIdleTimeout");
    this.timers = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "cotenant-http-timers");
      t.setDaemon(true);
      return t;
    });
    long every = keepAlive.toMillis();
    timers.scheduleWithFixedDelay(this::tick, every, every, TimeUnit.MILLISECONDS);
  }

  /** The sessions open now. */
  public int sessionCount() {
    return sessions.size();
  }

  @Override
  public boolean handle(Request request, Response response, Callback callback) {
    if (guard.check(request) instanceof HttpGuard.Refused r) {
      r.headers().forEach((k, v) -> response.getHeaders().put(k, v));
      reply(response, callback, r.status(), null, JsonRpc.INVALID_REQUEST, r.message());
      return true;
    }
    String path = Request.getPathInContext(request);
    if (path.length() < 2 || path.charAt(0) != '/' || path.indexOf('/', 1) >= 0) {
      return false;
    }
    // The path is still percent-encoded: "/mcp/my%20server" names "my server".
    String name;
    try {
      name = org.eclipse.jetty.util.URIUtil.decodePath(path.substring(1));
    } catch (RuntimeException e) {
      reply(response, callback, 400, null, JsonRpc.INVALID_REQUEST, "the server name in the path is not"
          + " percent-encoded correctly: " + LogSafe.escape(path.substring(1), 120));
      return true;
    }
    try {
      String method = request.getMethod();
      if (HttpMethod.POST.is(method)) {
        post(name, request, response, callback);
      } else if (HttpMethod.GET.is(method)) {
        get(name, request, response, callback);
      } else if (HttpMethod.DELETE.is(method)) {
        delete(name, request, response, callback);
      } else {
        response.getHeaders().put(HttpHeader.ALLOW, "GET, POST, DELETE");
        reply(response, callback, 405, null, JsonRpc.INVALID_REQUEST, "method not allowed: " + LogSafe.escape(method, 20));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      reply(response, callback, 503, null, JsonRpc.INTERNAL_ERROR, "the daemon is stopping");
    }
    return true;
  }

  private void post(String name, Request request, Response response, Callback callback) throws InterruptedException {
    if (!versionSupported(request, response, callback)) {
      return;
    }
    byte[] body;
    try {
      body = readBody(request);
    } catch (IOException e) {
      reply(response, callback, 400, null, JsonRpc.INVALID_REQUEST, "the request body could not be read: "
          + LogSafe.escape(String.valueOf(e.getMessage()), 200));
      return;
    }
    if (body.length > MAX_BODY_BYTES) {
      reply(response, callback, 413, null, JsonRpc.INVALID_REQUEST, "the request body is larger than "
          + MAX_BODY_BYTES + " bytes");
      return;
    }
    Object parsed;
    try {
      parsed = JsonRpc.parse(body);
    } catch (JacksonException e) {
      reply(response, callback, 400, null, JsonRpc.PARSE_ERROR, "Parse error: the body is not one JSON value: "
          + LogSafe.escape(String.valueOf(e.getOriginalMessage()), 200));
      return;
    }
    if (parsed instanceof List<?>) {
      reply(response, callback, 400, null, JsonRpc.INVALID_REQUEST,
          "Invalid Request: JSON-RPC batches are not supported (removed in MCP 2025-06-18); send one message per POST");
      return;
    }
    Map<String, Object> message = JsonRpc.object(parsed);
    boolean hasMethod = message.get("method") instanceof String;
    boolean hasId = message.get("id") instanceof String || message.get("id") instanceof Number;
    boolean isRequest = hasMethod && hasId;
    boolean isNotification = hasMethod && !message.containsKey("id");
    boolean isResponse = !message.containsKey("method") && hasId
        && (message.containsKey("result") || message.containsKey("error"));
    if (!(parsed instanceof Map<?, ?>) || !"2.0".equals(message.get("jsonrpc"))
        || !(isRequest || isNotification || isResponse)) {
      reply(response, callback, 400, hasId ? message.get("id") : null, JsonRpc.INVALID_REQUEST,
          "Invalid Request: not a JSON-RPC 2.0 request, notification or response");
      return;
    }
    Object id = isRequest ? message.get("id") : null;
    if (isRequest && !(accepts(request, "application/json") && accepts(request, "text/event-stream"))) {
      reply(response, callback, 400, id, JsonRpc.INVALID_REQUEST,
          "Bad Request: the Accept header must list both application/json and text/event-stream");
      return;
    }
    String sessionId = request.getHeaders().get(SESSION_HEADER);
    if (sessionId != null) {
      Optional<McpSession> session = session(name, sessionId);
      if (session.isEmpty()) {
        reply(response, callback, 404, id, JsonRpc.SESSION_NOT_FOUND, "Session not found: it ended or never existed;"
            + " start a new one with initialize");
        return;
      }
      if (isRequest) {
        forward(session.get(), message, request, response, callback, answer -> {});
      } else {
        session.get().touch();
        session.get().connection().fromClient(message);
        accepted(response, callback);
      }
      return;
    }
    String method = isRequest || isNotification ? (String) message.get("method") : "";
    boolean stateless = Mcp.MODERN_VERSION.equals(request.getHeaders().get(VERSION_HEADER))
        || JsonRpc.object(JsonRpc.object(message.get("params")).get("_meta")).containsKey(Mcp.META_PROTOCOL_VERSION);
    if (isRequest && "initialize".equals(method)) {
      open(name, message, request, response, callback);
    } else if (isRequest && (stateless || "server/discover".equals(method))) {
      oneShot(name, message, request, response, callback);
    } else if (!isRequest && stateless) {
      // Nothing stateless is listening for it.
      accepted(response, callback);
    } else {
      reply(response, callback, 400, id, JsonRpc.INVALID_REQUEST, "Bad Request: the " + SESSION_HEADER
          + " header is required; start a session with initialize");
    }
  }

  /** {@code initialize} without a session: a new session, answered with its id. */
  private void open(String name, Map<String, Object> message, Request request, Response response, Callback callback)
      throws InterruptedException {
    Object id = message.get("id");
    Optional<ServerDescription> server = server(name, id, response, callback);
    if (server.isEmpty()) {
      return;
    }
    String sessionId = newSessionId();
    McpSession session = new McpSession(sessionId, name);
    if (!connect(server.get(), session, JsonRpc.object(message.get("params")), id, response, callback)) {
      return;
    }
    sessions.put(sessionId, session);
    if (closed) {
      discard(session, "the endpoint is closed");
      reply(response, callback, 503, id, JsonRpc.INTERNAL_ERROR, "the daemon is stopping");
      return;
    }
    LOG.info("HTTP session {} of {} opened", sessionId, LogSafe.escape(name));
    response.getHeaders().put(SESSION_HEADER, sessionId);
    forward(session, message, request, response, callback, answer -> {
      if (answer.containsKey("error")) {
        // No session comes of an initialize that failed.
        response.getHeaders().remove(SESSION_HEADER);
        later(() -> discard(session, "its initialize failed"));
      }
    });
  }

  /** A stateless request: a session of its own, closed once it is answered. */
  private void oneShot(String name, Map<String, Object> message, Request request, Response response, Callback callback)
      throws InterruptedException {
    Object id = message.get("id");
    Optional<ServerDescription> server = server(name, id, response, callback);
    if (server.isEmpty()) {
      return;
    }
    McpSession session = new McpSession("stateless-" + newSessionId(), name);
    if (!connect(server.get(), session, Map.of(), id, response, callback)) {
      return;
    }
    oneShots.add(session);
    EventStream stream = new EventStream(request, response, callback, gone -> later(() -> {
      oneShots.remove(session);
      session.close("answered");
    }));
    if (closed) {
      oneShots.remove(session);
      session.close("the daemon is stopping");
    }
    hand(session, message, stream, answer -> {});
  }

  /** Hands a request of a session to its connection; its answer ends {@code response}. */
  private void forward(McpSession session, Map<String, Object> message, Request request, Response response,
      Callback callback, Consumer<Map<String, Object>> onAnswer) throws InterruptedException {
    EventStream stream = new EventStream(request, response, callback, session::streamGone);
    hand(session, message, stream, onAnswer);
  }

  private void hand(McpSession session, Map<String, Object> message, EventStream stream,
      Consumer<Map<String, Object>> onAnswer) throws InterruptedException {
    Object id = message.get("id");
    McpSession.Await a = session.await(message, stream, onAnswer);
    if (a != McpSession.Await.AWAITING) {
      String why = a == McpSession.Await.CLOSED ? "the session was closed"
          : "a request with id " + LogSafe.escape(String.valueOf(id), 60) + " is already in flight in this session";
      stream.finish(JsonRpc.encode(JsonRpc.error(id, JsonRpc.INVALID_REQUEST, "Invalid Request: " + why)));
      return;
    }
    try {
      session.connection().fromClient(message);
    } catch (RuntimeException e) {
      session.forget(id, stream);
      LOG.warn("session {} of {}: a request could not be handed to its backend: {}", session.id(),
          LogSafe.escape(session.serverName()), LogSafe.escape(String.valueOf(e.getMessage()), 200));
      stream.finish(JsonRpc.encode(JsonRpc.error(id, JsonRpc.INTERNAL_ERROR, "Internal error: the request could not"
          + " be handed to the server")));
    }
  }

  private void get(String name, Request request, Response response, Callback callback) {
    if (!accepts(request, "text/event-stream")) {
      response.getHeaders().put(HttpHeader.ALLOW, "POST, DELETE");
      reply(response, callback, 405, null, JsonRpc.INVALID_REQUEST,
          "Method Not Allowed: a GET must accept text/event-stream");
      return;
    }
    if (!versionSupported(request, response, callback)) {
      return;
    }
    String sessionId = request.getHeaders().get(SESSION_HEADER);
    if (sessionId == null) {
      reply(response, callback, 400, null, JsonRpc.INVALID_REQUEST, "Bad Request: the " + SESSION_HEADER
          + " header is required");
      return;
    }
    Optional<McpSession> session = session(name, sessionId);
    if (session.isEmpty()) {
      reply(response, callback, 404, null, JsonRpc.SESSION_NOT_FOUND, "Session not found");
      return;
    }
    McpSession s = session.get();
    if (!s.openStandalone(() -> new EventStream(request, response, callback, s::streamGone))) {
      reply(response, callback, 409, null, JsonRpc.INVALID_REQUEST,
          "Conflict: this session already has its GET stream open");
    }
  }

  private void delete(String name, Request request, Response response, Callback callback) {
    String sessionId = request.getHeaders().get(SESSION_HEADER);
    if (sessionId == null) {
      reply(response, callback, 400, null, JsonRpc.INVALID_REQUEST, "Bad Request: the " + SESSION_HEADER
          + " header is required");
      return;
    }
    Optional<McpSession> session = session(name, sessionId);
    if (session.isEmpty() || !sessions.remove(sessionId, session.get())) {
      reply(response, callback, 404, null, JsonRpc.SESSION_NOT_FOUND, "Session not found");
      return;
    }
    session.get().close("the client ended it");
    LOG.info("HTTP session {} of {} ended by its client", sessionId, LogSafe.escape(name));
    response.setStatus(204);
    callback.succeeded();
  }

  /** The session {@code id} of server {@code name}, if it is open. */
  private Optional<McpSession> session(String name, String id) {
    McpSession s = sessions.get(id);
    return s != null && s.serverName().equals(name) ? Optional.of(s) : Optional.empty();
  }

  /** The server {@code name}; empty after answering 404 or 500. */
  private Optional<ServerDescription> server(String name, @Nullable Object id, Response response, Callback callback) {
    try {
      Optional<ServerDescription> server = servers.find(name);
      if (server.isEmpty()) {
        reply(response, callback, 404, id, JsonRpc.INVALID_REQUEST, "unknown server '" + LogSafe.escape(name, 100)
            + "': no server of that name is configured");
      }
      return server;
    } catch (LookupException e) {
      reply(response, callback, 500, id, JsonRpc.INTERNAL_ERROR, "the configured servers could not be read: "
          + LogSafe.escape(String.valueOf(e.getMessage()), 300));
      return Optional.empty();
    }
  }

  /** Connects {@code session}; false after answering 503 when no backend can be had. */
  private boolean connect(ServerDescription server, McpSession session, Map<String, Object> initializeParams,
      Object id, Response response, Callback callback) throws InterruptedException {
    try {
      session.attach(sharing.connect(server, "http-" + session.id(), initializeParams, session));
      return true;
    } catch (PoolException e) {
      LOG.warn("no backend for {}: {}", LogSafe.escape(server.name()), LogSafe.escape(String.valueOf(e.getMessage()), 300));
      reply(response, callback, 503, id, dev.cotenant.spi.rpc.ErrorCode.NO_BACKEND.code(), "no backend for " + LogSafe.escape(server.name(), 100)
          + ": " + LogSafe.escape(String.valueOf(e.getMessage()), 300));
      return false;
    }
  }

  private boolean versionSupported(Request request, Response response, Callback callback) {
    String version = request.getHeaders().get(VERSION_HEADER);
    if (version == null || SUPPORTED_VERSIONS.contains(version.trim())) {
      return true;
    }
    reply(response, callback, 400, null, JsonRpc.INVALID_REQUEST, "Bad Request: unsupported " + VERSION_HEADER + " "
        + LogSafe.escape(version, 40) + "; supported: " + SUPPORTED_VERSIONS.stream().sorted().toList());
    return false;
  }

  /** Whether the request's {@code Accept} admits {@code type}; a request without one admits anything. */
  static boolean accepts(Request request, String type) {
    List<String> values = request.getHeaders().getValuesList(HttpHeader.ACCEPT);
    if (values.isEmpty()) {
      return true;
    }
    String wildcard = type.substring(0, type.indexOf('/')) + "/*";
    for (String value : values) {
      for (String range : value.split(",")) {
        String[] parts = range.split(";");
        String media = parts[0].trim().toLowerCase(Locale.ROOT);
        boolean refused = false;
        for (int i = 1; i < parts.length; i++) {
          String p = parts[i].trim().toLowerCase(Locale.ROOT).replace(" ", "");
          refused |= p.equals("q=0") || p.matches("q=0\\.0{0,3}");
        }
        if (!refused && (media.equals(type) || media.equals(wildcard) || media.equals("*/*"))) {
          return true;
        }
      }
    }
    return false;
  }

  /**
   * The body, or {@value #MAX_BODY_BYTES} + 1 bytes when it is larger. A body over the limit by
   * at most {@link #DRAIN_BYTES} is read to its end and discarded before the refusal: a client
   * still sending it would otherwise find the connection reset under it and lose the 413.
   */
  private static byte[] readBody(Request request) throws IOException {
    long length = request.getLength();
    if (length > MAX_BODY_BYTES + DRAIN_BYTES) {
      return new byte[MAX_BODY_BYTES + 1];
    }
    try (InputStream in = Content.Source.asInputStream(request)) {
      if (length > MAX_BODY_BYTES) {
        drain(in, length);
        return new byte[MAX_BODY_BYTES + 1];
      }
      byte[] body = in.readNBytes(MAX_BODY_BYTES + 1);
      if (body.length > MAX_BODY_BYTES) {
        drain(in, DRAIN_BYTES);
      }
      return body;
    }
  }

  /** How far over the limit a body is still read to its end before it is refused. */
  static final long DRAIN_BYTES = MAX_BODY_BYTES;

  /** Reads and discards at most {@code most} bytes, stopping at the end of the body. */
  private static void drain(InputStream in, long most) throws IOException {
    byte[] buffer = new byte[64 * 1024];
    long left = most;
    while (left > 0) {
      int n = in.read(buffer, 0, (int) Math.min(buffer.length, left));
      if (n < 0) {
        return;
      }
      left -= n;
    }
  }

  private String newSessionId() {
    byte[] bytes = new byte[16];
    random.nextBytes(bytes);
    return HexFormat.of().formatHex(bytes);
  }

  private static void accepted(Response response, Callback callback) {
    response.setStatus(202);
    callback.succeeded();
  }

  /** Answers with {@code status} and a JSON-RPC error body. */
  private static void reply(Response response, Callback callback, int status, @Nullable Object id, int code,
      String message) {
    response.setStatus(status);
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
    response.write(true, ByteBuffer.wrap(JsonRpc.encode(JsonRpc.error(id, code, message)).getBytes(StandardCharsets.UTF_8)),
        callback);
  }

  /** Runs {@code work} off the caller's thread (a backend's reader must not wait for a close). */
  private void later(Runnable work) {
    try {
      timers.execute(work);
    } catch (RejectedExecutionException e) {
      work.run();
    }
  }

  private void discard(McpSession session, String why) {
    sessions.remove(session.id(), session);
    session.close(why);
  }

  /** Keep-alives, and closing the sessions left idle. */
  private void tick() {
    try {
      long cutoff = System.nanoTime() - sessionIdleTimeout.toNanos();
      for (McpSession s : List.copyOf(sessions.values())) {
        if (s.idleSince(cutoff)) {
          LOG.info("HTTP session {} of {} closed after {} s idle", s.id(), LogSafe.escape(s.serverName()),
              sessionIdleTimeout.toSeconds());
          discard(s, "it was idle for " + sessionIdleTimeout.toSeconds() + " s");
        } else {
          s.keepAlive();
        }
      }
    } catch (RuntimeException e) {
      LOG.warn("HTTP keep-alive failed: {}", LogSafe.escape(String.valueOf(e.getMessage()), 200));
    }
  }

  /** Closes every session's connection; later requests find no session, and new ones are refused. */
  @Override
  public void close() {
    closed = true;
    timers.shutdownNow();
    for (McpSession s : List.copyOf(sessions.values())) {
      discard(s, "the daemon is stopping");
    }
    for (McpSession s : List.copyOf(oneShots)) {
      oneShots.remove(s);
      s.close("the daemon is stopping");
    }
  }

  @Override
  public String toString() {
    return "McpHttpEndpoint[" + sessions.size() + " sessions]";
  }
}
