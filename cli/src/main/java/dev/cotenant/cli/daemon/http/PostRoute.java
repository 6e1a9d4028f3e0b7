package dev.cotenant.cli.daemon.http;

import static dev.cotenant.cli.daemon.http.HttpReplies.reply;

import dev.cotenant.api.LogSafe;
import dev.cotenant.api.ServerDescription;
import dev.cotenant.gateway.pool.PoolException;
import dev.cotenant.gateway.sharing.Sharing;
import dev.cotenant.spi.Mcp;
import dev.cotenant.spi.rpc.Envelope;
import dev.cotenant.spi.rpc.ErrorCode;
import dev.cotenant.spi.rpc.RequestId;
import dev.cotenant.spi.rpc.RpcMessage;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.core.JacksonException;

/**
 * {@code POST /mcp/{server}}: one JSON-RPC message, read and classified once. A request of a
 * session goes to its {@link HttpClientSession} and is answered on its own response; a
 * notification or a response of a session is {@code 202}; {@code initialize} without a session
 * opens one; a stateless request is served by a session of its own, closed once it is answered.
 * See {@link McpHttpEndpoint} for the refusals. Thread-safe.
 */
final class PostRoute {
  private static final Logger LOG = LoggerFactory.getLogger(PostRoute.class);

  private final Sharing sharing;
  private final ServerLookup servers;
  private final HttpSessions sessions;

  PostRoute(Sharing sharing, ServerLookup servers, HttpSessions sessions) {
    this.sharing = sharing;
    this.servers = servers;
    this.sessions = sessions;
  }

  /** Serves a POST to server {@code name}. */
  void post(String name, Request request, Response response, Callback callback) throws InterruptedException {
    if (!McpHttpRules.versionSupported(request, response, callback)) {
      return;
    }
    byte[] body;
    try {
      body = McpHttpRules.readBody(request);
    } catch (IOException e) {
      reply(response, callback, 400, null, ErrorCode.INVALID_REQUEST, "the request body could not be read: "
          + LogSafe.escape(String.valueOf(e.getMessage()), 200));
      return;
    }
    if (body.length > McpHttpEndpoint.MAX_BODY_BYTES) {
      reply(response, callback, 413, null, ErrorCode.INVALID_REQUEST, "the request body is larger than "
          + McpHttpEndpoint.MAX_BODY_BYTES + " bytes");
      return;
    }
    Object parsed;
    try {
      parsed = JsonRpc.parse(body);
    } catch (JacksonException e) {
      reply(response, callback, 400, ReadableId.in(body), ErrorCode.PARSE_ERROR,
          "Parse error: the body is not one JSON value: "
          + LogSafe.escape(String.valueOf(e.getOriginalMessage()), 200));
      return;
    }
    if (parsed instanceof List<?>) {
      reply(response, callback, 400, null, ErrorCode.INVALID_REQUEST,
          "Invalid Request: JSON-RPC batches are not supported (removed in MCP 2025-06-18); send one message per POST");
      return;
    }
    RpcMessage message;
    try {
      message = RpcMessage.read(parsed);
    } catch (RpcMessage.InvalidMessage e) {
      invalid(e.id(), response, callback);
      return;
    }
    // A client's response always names the request of the server's that it answers.
    if (!Envelope.isVersion2(message.json()) || (message instanceof RpcMessage.Response r && r.id() == null)) {
      invalid(idOf(message), response, callback);
      return;
    }
    RpcMessage.Request call = message instanceof RpcMessage.Request q ? q : null;
    RequestId id = call == null ? null : call.id();
    if (call != null && !(McpHttpRules.accepts(request, "application/json")
        && McpHttpRules.accepts(request, "text/event-stream"))) {
      reply(response, callback, 400, id, ErrorCode.INVALID_REQUEST,
          "Bad Request: the Accept header must list both application/json and text/event-stream");
      return;
    }
    String sessionId = request.getHeaders().get(McpHttpEndpoint.SESSION_HEADER);
    if (sessionId != null) {
      Optional<HttpClientSession> session = sessions.find(name, sessionId);
      if (session.isEmpty()) {
        reply(response, callback, 404, id, ErrorCode.SESSION_NOT_FOUND, "Session not found: it ended or never"
            + " existed; start a new one with initialize");
        return;
      }
      if (call != null) {
        forward(session.get(), call, request, response, callback, answer -> {});
      } else {
        session.get().touch();
        session.get().connection().fromClient(message.json());
        HttpReplies.accepted(response, callback);
      }
      return;
    }
    boolean stateless = Mcp.MODERN_VERSION.equals(request.getHeaders().get(McpHttpEndpoint.VERSION_HEADER))
        || HttpClientSession.meta(params(message)).containsKey(Mcp.META_PROTOCOL_VERSION);
    if (call != null && "initialize".equals(call.method())) {
      open(name, call, request, response, callback);
    } else if (call != null && (stateless || "server/discover".equals(call.method()))) {
      oneShot(name, call, request, response, callback);
    } else if (call == null && stateless) {
      // Nothing stateless is listening for it.
      HttpReplies.accepted(response, callback);
    } else {
      reply(response, callback, 400, id, ErrorCode.INVALID_REQUEST, "Bad Request: the "
          + McpHttpEndpoint.SESSION_HEADER + " header is required; start a session with initialize");
    }
  }

  private static void invalid(@Nullable RequestId id, Response response, Callback callback) {
    reply(response, callback, 400, id, ErrorCode.INVALID_REQUEST,
        "Invalid Request: not a JSON-RPC 2.0 request, notification or response");
  }

  private static @Nullable RequestId idOf(RpcMessage message) {
    if (message instanceof RpcMessage.Request r) {
      return r.id();
    }
    return message instanceof RpcMessage.Response r ? r.id() : null;
  }

  private static @Nullable Map<String, Object> params(RpcMessage message) {
    if (message instanceof RpcMessage.Request r) {
      return r.params();
    }
    return message instanceof RpcMessage.Notification n ? n.params() : null;
  }

  /** {@code initialize} without a session: a new session, answered with its id. */
  private void open(String name, RpcMessage.Request call, Request request, Response response, Callback callback)
      throws InterruptedException {
    Optional<ServerDescription> server = server(name, call.id(), response, callback);
    if (server.isEmpty()) {
      return;
    }
    String sessionId = sessions.newId();
    HttpClientSession session = new HttpClientSession(sessionId, name);
    if (!connect(server.get(), session, call.paramsOrEmpty(), call.id(), response, callback)) {
      return;
    }
    sessions.add(session);
    if (sessions.isClosed()) {
      sessions.discard(session, "the endpoint is closed");
      reply(response, callback, 503, call.id(), ErrorCode.INTERNAL_ERROR, "the daemon is stopping");
      return;
    }
    LOG.info("HTTP session {} of {} opened", sessionId, LogSafe.escape(name));
    response.getHeaders().put(McpHttpEndpoint.SESSION_HEADER, sessionId);
    forward(session, call, request, response, callback, answer -> {
      if (answer.isError()) {
        // No session comes of an initialize that failed.
        response.getHeaders().remove(McpHttpEndpoint.SESSION_HEADER);
        sessions.later(() -> sessions.discard(session, "its initialize failed"));
      }
    });
  }

  /** A stateless request: a session of its own, closed once it is answered. */
  private void oneShot(String name, RpcMessage.Request call, Request request, Response response, Callback callback)
      throws InterruptedException {
    Optional<ServerDescription> server = server(name, call.id(), response, callback);
    if (server.isEmpty()) {
      return;
    }
    HttpClientSession session = new HttpClientSession("stateless-" + sessions.newId(), name);
    if (!connect(server.get(), session, Map.of(), call.id(), response, callback)) {
      return;
    }
    sessions.addOneShot(session);
    EventStream stream = new EventStream(request, response, callback,
        gone -> sessions.later(() -> sessions.endOneShot(session, "answered")));
    if (sessions.isClosed()) {
      sessions.endOneShot(session, "the daemon is stopping");
    }
    hand(session, call, stream, answer -> {});
  }

  /** Hands a request of a session to its connection; its answer ends {@code response}. */
  private void forward(HttpClientSession session, RpcMessage.Request call, Request request, Response response,
      Callback callback, Consumer<RpcMessage.Response> onAnswer) throws InterruptedException {
    EventStream stream = new EventStream(request, response, callback, session::streamGone);
    hand(session, call, stream, onAnswer);
  }

  private void hand(HttpClientSession session, RpcMessage.Request call, EventStream stream,
      Consumer<RpcMessage.Response> onAnswer) throws InterruptedException {
    HttpClientSession.Await a = session.await(call, stream, onAnswer);
    if (a != HttpClientSession.Await.AWAITING) {
      String why = a == HttpClientSession.Await.CLOSED ? "the session was closed"
          : "a request with id " + LogSafe.escape(String.valueOf(call.id().json()), 60)
              + " is already in flight in this session";
      stream.finish(JsonRpc.encode(Envelope.error(call.id(), ErrorCode.INVALID_REQUEST, "Invalid Request: " + why)));
      return;
    }
    try {
      session.connection().fromClient(call.json());
    } catch (RuntimeException e) {
      session.forget(call.id(), stream);
      LOG.warn("session {} of {}: a request could not be handed to its backend: {}", session.id(),
          LogSafe.escape(session.serverName()), LogSafe.escape(String.valueOf(e.getMessage()), 200));
      stream.finish(JsonRpc.encode(Envelope.error(call.id(), ErrorCode.INTERNAL_ERROR, "Internal error: the request"
          + " could not be handed to the server")));
    }
  }

  /** The server {@code name}; empty after answering 404 or 500. */
  private Optional<ServerDescription> server(String name, RequestId id, Response response, Callback callback) {
    try {
      Optional<ServerDescription> server = servers.find(name);
      if (server.isEmpty()) {
        reply(response, callback, 404, id, ErrorCode.INVALID_REQUEST, "unknown server '" + LogSafe.escape(name, 100)
            + "': no server of that name is configured");
      }
      return server;
    } catch (LookupException e) {
      reply(response, callback, 500, id, ErrorCode.INTERNAL_ERROR, "the configured servers could not be read: "
          + LogSafe.escape(String.valueOf(e.getMessage()), 300));
      return Optional.empty();
    }
  }

  /** Connects {@code session}; false after answering 503 when no backend can be had. */
  private boolean connect(ServerDescription server, HttpClientSession session, Map<String, Object> initializeParams,
      RequestId id, Response response, Callback callback) throws InterruptedException {
    try {
      session.attach(sharing.connect(server, "http-" + session.id(), initializeParams, session));
      return true;
    } catch (PoolException e) {
      LOG.warn("no backend for {}: {}", LogSafe.escape(server.name()), LogSafe.escape(String.valueOf(e.getMessage()), 300));
      reply(response, callback, 503, id, ErrorCode.NO_BACKEND, "no backend for " + LogSafe.escape(server.name(), 100)
          + ": " + LogSafe.escape(String.valueOf(e.getMessage()), 300));
      return false;
    }
  }
}
