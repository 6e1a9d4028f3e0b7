package dev.cotenant.cli.daemon.http;

import static dev.cotenant.cli.daemon.http.HttpReplies.reply;

import dev.cotenant.api.LogSafe;
import dev.cotenant.gateway.sharing.ClientSession;
import dev.cotenant.gateway.sharing.Sharing;
import dev.cotenant.spi.Mcp;
import dev.cotenant.spi.rpc.ErrorCode;
import java.time.Duration;
import java.util.Objects;
import java.util.Set;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpMethod;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * MCP over Streamable HTTP (MCP 2025-11-25, "Transports") for every configured server: a Jetty
 * handler serving {@code /{server}} within its context ({@link DaemonHttpServer} mounts it at
 * {@code /mcp}), each client session an {@link HttpClientSession} holding a {@link ClientSession} of the
 * {@link Sharing} runtime. The POST is {@link PostRoute}'s, GET and DELETE {@link SessionRoutes}',
 * the session table and its expiry {@link HttpSessions}', the header and body rules
 * {@link McpHttpRules}'.
 *
 * <p>Every request first passes the {@link HttpGuard}. Then:
 *
 * <ul>
 *   <li><b>POST</b> carries one JSON-RPC message (a batch is refused with 400: 2025-06-18 removed
 *       batching; malformed JSON is 400 with {@link ErrorCode#PARSE_ERROR}). A request must accept
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
 *       is 503 with {@link ErrorCode#NO_BACKEND}; JSON-RPC error codes are those of {@link ErrorCode}.
 * </ul>
 *
 * <p>Streams are written asynchronously: an open stream holds no thread. Each open stream gets a
 * keep-alive comment every 15 seconds (which also ends the streams of clients that went away); a
 * session with nothing in flight, no open stream and no request for the session idle timeout
 * (30 minutes) is closed. Not supported: resuming a stream ({@code Last-Event-ID}); messages a
 * stream could not deliver are lost with it. Thread-safe.
 */
public final class McpHttpEndpoint extends Handler.Abstract implements AutoCloseable {
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

  private final HttpGuard guard;
  private final HttpSessions sessions;
  private final PostRoute post;
  private final SessionRoutes sessionRoutes;

  /**
   * An endpoint over {@code sharing}, serving the servers {@code servers} finds, behind {@code guard}.
   */
  public McpHttpEndpoint(Sharing sharing, ServerLookup servers, HttpGuard guard) {
    this(sharing, servers, guard, KEEP_ALIVE, SESSION_IDLE_TIMEOUT);
  }

  McpHttpEndpoint(Sharing sharing, ServerLookup servers, HttpGuard guard, Duration keepAlive, Duration sessionIdleTimeout) {
    this.guard = Objects.requireNonNull(guard, "guard");
    this.sessions = new HttpSessions(keepAlive, Objects.requireNonNull(sessionIdleTimeout, "sessionIdleTimeout"));
    this.post = new PostRoute(Objects.requireNonNull(sharing, "sharing"), Objects.requireNonNull(servers, "servers"),
        sessions);
    this.sessionRoutes = new SessionRoutes(sessions);
  }

  /** The sessions open now. */
  public int sessionCount() {
    return sessions.count();
  }

  @Override
  public boolean handle(Request request, Response response, Callback callback) {
    if (guard.check(request) instanceof HttpGuard.Refused r) {
      r.headers().forEach((k, v) -> response.getHeaders().put(k, v));
      reply(response, callback, r.status(), null, ErrorCode.INVALID_REQUEST, r.message());
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
      reply(response, callback, 400, null, ErrorCode.INVALID_REQUEST, "the server name in the path is not"
          + " percent-encoded correctly: " + LogSafe.escape(path.substring(1), 120));
      return true;
    }
    try {
      String method = request.getMethod();
      if (HttpMethod.POST.is(method)) {
        post.post(name, request, response, callback);
      } else if (HttpMethod.GET.is(method)) {
        sessionRoutes.get(name, request, response, callback);
      } else if (HttpMethod.DELETE.is(method)) {
        sessionRoutes.delete(name, request, response, callback);
      } else {
        response.getHeaders().put(HttpHeader.ALLOW, "GET, POST, DELETE");
        reply(response, callback, 405, null, ErrorCode.INVALID_REQUEST, "method not allowed: "
            + LogSafe.escape(method, 20));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      reply(response, callback, 503, null, ErrorCode.INTERNAL_ERROR, "the daemon is stopping");
    }
    return true;
  }

  /** Closes every session's connection; later requests find no session, and new ones are refused. */
  @Override
  public void close() {
    sessions.close();
  }

  @Override
  public String toString() {
    return "McpHttpEndpoint[" + sessions.count() + " sessions]";
  }
}
