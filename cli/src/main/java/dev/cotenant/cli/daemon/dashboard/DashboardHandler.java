package dev.cotenant.cli.daemon.dashboard;

import dev.cotenant.cli.daemon.http.HttpGuard;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpMethod;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * Serves the dashboard: {@code GET /} answers {@code index.html}, {@code GET /views.js} (what
 * the page's parts look like), {@code GET /app.js} (its state and its calls to the API) and
 * {@code GET /style.css} their files, all read once from {@value #RESOURCES} on the class path.
 * Anything else is 404, a method other than {@code GET} or {@code HEAD} is 405.
 *
 * <p>No token is asked for: the four files hold no secret (the page reads the token from its
 * URL fragment, which a browser never sends). The {@code Host} header must still name a loopback
 * host, and an {@code Origin}, when present, a loopback origin ({@link HttpGuard}), else 403, so a
 * rebound DNS name cannot serve the page under a foreign origin. Every answer carries
 * {@value #CSP} as its {@code Content-Security-Policy} (scripts, styles and requests only from the
 * daemon itself; no framing), {@code X-Content-Type-Options: nosniff}, {@code Cache-Control:
 * no-store} and {@code Referrer-Policy: no-referrer}.
 *
 * <p>Mount it at {@code "/"}: more specific contexts ({@code /mcp}, {@code /api}) still take
 * their own paths. Immutable after construction and thread-safe; it never blocks.
 */
public final class DashboardHandler extends Handler.Abstract.NonBlocking {
  /** Where the files are on the class path. */
  public static final String RESOURCES = "/dashboard/";

  /** The {@code Content-Security-Policy} of every answer. */
  public static final String CSP = "default-src 'self'; frame-ancestors 'none'";

  private record Asset(String contentType, byte[] body) {}

  private final Map<String, Asset> assets;

  /**
   * Reads the four files.
   *
   * @throws IllegalStateException when one is missing from the class path (a broken build)
   */
  public DashboardHandler() {
    this.assets = Map.of(
        "/", asset("index.html", "text/html; charset=utf-8"),
        "/views.js", asset("views.js", "text/javascript; charset=utf-8"),
        "/app.js", asset("app.js", "text/javascript; charset=utf-8"),
        "/style.css", asset("style.css", "text/css; charset=utf-8"));
  }

  private static Asset asset(String file, String contentType) {
    String name = RESOURCES + file;
    try (InputStream in = DashboardHandler.class.getResourceAsStream(name)) {
      if (in == null) {
        throw new IllegalStateException(name + " is missing from the class path; rebuild the cli module");
      }
      return new Asset(contentType, in.readAllBytes());
    } catch (IOException e) {
      throw new UncheckedIOException("reading " + name + ": " + e.getMessage(), e);
    }
  }

  @Override
  public boolean handle(Request request, Response response, Callback callback) {
    response.getHeaders().put("Content-Security-Policy", CSP);
    response.getHeaders().put("X-Content-Type-Options", "nosniff");
    response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-store");
    response.getHeaders().put("Referrer-Policy", "no-referrer");
    String origin = request.getHeaders().get(HttpHeader.ORIGIN);
    String host = request.getHeaders().get(HttpHeader.HOST);
    if (host == null) {
      host = request.getHttpURI().getAuthority();
    }
    if (host == null || !HttpGuard.isLoopbackHost(host) || origin != null && !HttpGuard.isLoopbackOrigin(origin)) {
      text(response, callback, 403, "forbidden: the dashboard is served to loopback hosts and origins only");
      return true;
    }
    String method = request.getMethod();
    boolean head = HttpMethod.HEAD.is(method);
    if (!head && !HttpMethod.GET.is(method)) {
      response.getHeaders().put(HttpHeader.ALLOW, "GET, HEAD");
      text(response, callback, 405, "method not allowed");
      return true;
    }
    Asset asset = assets.get(Request.getPathInContext(request));
    if (asset == null) {
      text(response, callback, 404, "not found");
      return true;
    }
    response.setStatus(200);
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, asset.contentType());
    response.getHeaders().put(HttpHeader.CONTENT_LENGTH, asset.body().length);
    if (head) {
      callback.succeeded();
    } else {
      response.write(true, ByteBuffer.wrap(asset.body()), callback);
    }
    return true;
  }

  private static void text(Response response, Callback callback, int status, String message) {
    response.setStatus(status);
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, "text/plain; charset=utf-8");
    response.write(true, ByteBuffer.wrap((message + "\n").getBytes(StandardCharsets.UTF_8)), callback);
  }

  @Override
  public String toString() {
    return "DashboardHandler[/, /views.js, /app.js, /style.css]";
  }
}
