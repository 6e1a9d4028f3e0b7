package dev.cotenant.cli.daemon.http;

import static dev.cotenant.cli.daemon.http.HttpReplies.reply;

import dev.cotenant.api.LogSafe;
import dev.cotenant.spi.rpc.ErrorCode;
import java.util.Optional;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code GET /mcp/{server}} opens a session's standalone event stream (one at a time);
 * {@code DELETE /mcp/{server}} ends a session. Both name the session in {@code Mcp-Session-Id}.
 * Thread-safe.
 */
final class SessionRoutes {
  private static final Logger LOG = LoggerFactory.getLogger(SessionRoutes.class);

  private final HttpSessions sessions;

  SessionRoutes(HttpSessions sessions) {
    this.sessions = sessions;
  }

  /** Opens the standalone stream of the session the request names. */
  void get(String name, Request request, Response response, Callback callback) {
    if (!McpHttpRules.accepts(request, "text/event-stream")) {
      response.getHeaders().put(HttpHeader.ALLOW, "POST, DELETE");
      reply(response, callback, 405, null, ErrorCode.INVALID_REQUEST,
          "Method Not Allowed: a GET must accept text/event-stream");
      return;
    }
    if (!McpHttpRules.versionSupported(request, response, callback)) {
      return;
    }
    Optional<HttpClientSession> session = named(name, request, response, callback);
    if (session.isEmpty()) {
      return;
    }
    HttpClientSession s = session.get();
    if (!s.openStandalone(() -> new EventStream(request, response, callback, s::streamGone))) {
      reply(response, callback, 409, null, ErrorCode.INVALID_REQUEST,
          "Conflict: this session already has its GET stream open");
    }
  }

  /** Ends the session the request names: {@code 204}. */
  void delete(String name, Request request, Response response, Callback callback) {
    Optional<HttpClientSession> session = named(name, request, response, callback);
    if (session.isEmpty()) {
      return;
    }
    if (!sessions.remove(session.get())) {
      notFound(response, callback);
      return;
    }
    // No request of the session is taken from now on; those in flight are answered first.
    session.get().closeWhenAnswered("the client ended it");
    LOG.info("HTTP session {} of {} ended by its client", session.get().id(), LogSafe.escape(name));
    response.setStatus(204);
    callback.succeeded();
  }

  /** The session the request's {@code Mcp-Session-Id} names; empty after answering 400 or 404. */
  private Optional<HttpClientSession> named(String name, Request request, Response response, Callback callback) {
    String sessionId = request.getHeaders().get(McpHttpEndpoint.SESSION_HEADER);
    if (sessionId == null) {
      reply(response, callback, 400, null, ErrorCode.INVALID_REQUEST, "Bad Request: the "
          + McpHttpEndpoint.SESSION_HEADER + " header is required");
      return Optional.empty();
    }
    Optional<HttpClientSession> session = sessions.find(name, sessionId);
    if (session.isEmpty()) {
      notFound(response, callback);
    }
    return session;
  }

  private static void notFound(Response response, Callback callback) {
    reply(response, callback, 404, null, ErrorCode.SESSION_NOT_FOUND, "Session not found");
  }
}
