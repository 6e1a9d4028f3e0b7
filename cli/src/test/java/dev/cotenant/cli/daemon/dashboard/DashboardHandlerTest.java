package dev.cotenant.cli.daemon.dashboard;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.cli.daemon.http.DaemonHttpServer;
import dev.cotenant.cli.daemon.http.HttpGuard;
import dev.cotenant.cli.daemon.http.McpHttpEndpoint;
import dev.cotenant.gateway.Cotenant;
import dev.cotenant.gateway.sharing.Sharing;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The dashboard's files as the daemon's HTTP server serves them (a {@link DaemonHttpServer} on an
 * ephemeral loopback port, the handler at {@code /}, a stand-in at {@code /api}), through the
 * JDK's HTTP client: content types, security headers, no token needed, 404 and 405, refusals of
 * foreign hosts and origins, and the more specific contexts still winning over {@code /}.
 */
class DashboardHandlerTest {
  private static final String TOKEN = "dashboard-test-token";
  private static final Duration WAIT = Duration.ofSeconds(20);

  @TempDir Path dir;
  private Sharing sharing;
  private DaemonHttpServer server;
  private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(10)).build();

  /** Answers every {@code /api} request with 418, so a test can see which context took a path. */
  private static final class ApiStandIn extends Handler.Abstract.NonBlocking {
    @Override
    public boolean handle(Request request, Response response, Callback callback) {
      response.setStatus(418);
      response.write(true, ByteBuffer.wrap("api".getBytes(StandardCharsets.UTF_8)), callback);
      return true;
    }
  }

  @BeforeEach
  void start() throws Exception {
    sharing = Cotenant.builder().config(Map.of("cotenant.pool.drain-grace-ms", "0")).recordsDirectory(dir).build().sharing();
    McpHttpEndpoint endpoint = new McpHttpEndpoint(sharing, name -> Optional.empty(), new HttpGuard(TOKEN));
    server = new DaemonHttpServer(endpoint, 0).mount("/", new DashboardHandler()).mount("/api", new ApiStandIn());
    server.start();
  }

  @AfterEach
  void stop() {
    try {
      server.close();
    } finally {
      sharing.close();
    }
  }

  private HttpRequest.Builder request(String path) {
    return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path)).timeout(WAIT);
  }

  private HttpResponse<String> get(String path) throws Exception {
    return client.send(request(path).GET().build(), HttpResponse.BodyHandlers.ofString());
  }

  private static void assertSecurityHeaders(HttpResponse<?> r) {
    assertEquals(Optional.of("default-src 'self'; frame-ancestors 'none'"), r.headers().firstValue("Content-Security-Policy"));
    assertEquals(Optional.of("nosniff"), r.headers().firstValue("X-Content-Type-Options"));
    assertEquals(Optional.of("no-store"), r.headers().firstValue("Cache-Control"));
    assertEquals(Optional.of("no-referrer"), r.headers().firstValue("Referrer-Policy"));
  }

  @Test
  void theFourFilesAreServedWithTheirContentTypesAndTheSecurityHeadersWithoutAToken() throws Exception {
    Map<String, String> types = Map.of(
        "/", "text/html; charset=utf-8",
        "/views.js", "text/javascript; charset=utf-8",
        "/app.js", "text/javascript; charset=utf-8",
        "/style.css", "text/css; charset=utf-8");
    for (Map.Entry<String, String> e : types.entrySet()) {
      HttpResponse<String> r = get(e.getKey());
      assertEquals(200, r.statusCode(), e.getKey());
      assertEquals(Optional.of(e.getValue()), r.headers().firstValue("Content-Type"), e.getKey());
      assertSecurityHeaders(r);
      assertTrue(r.body().length() > 100, e.getKey() + ": " + r.body());
    }
    assertTrue(get("/").body().contains("<script src=\"views.js\" defer></script>\n  <script src=\"app.js\" defer></script>"),
        "views.js loads before app.js, which takes its parts");
  }

  @Test
  void headAnswersTheHeadersWithoutABody() throws Exception {
    HttpResponse<String> r = client.send(request("/style.css").method("HEAD", HttpRequest.BodyPublishers.noBody()).build(),
        HttpResponse.BodyHandlers.ofString());
    assertEquals(200, r.statusCode());
    assertEquals("", r.body());
    assertEquals(Optional.of("text/css; charset=utf-8"), r.headers().firstValue("Content-Type"));
    assertSecurityHeaders(r);
  }

  @Test
  void anythingElseIs404AndAnotherMethod405() throws Exception {
    for (String path : List.of("/index.html", "/nope", "/app.js/x", "/dashboard/app.js", "/../pom.xml", "/style.css?x=1/..")) {
      HttpResponse<String> r = get(path);
      if (path.startsWith("/style.css?")) {
        assertEquals(200, r.statusCode(), "a query does not change the file");
        continue;
      }
      assertEquals(path.equals("/../pom.xml") ? 400 : 404, r.statusCode(), path + ": " + r.body());
    }
    HttpResponse<String> missing = get("/nope");
    assertEquals(Optional.of("text/plain; charset=utf-8"), missing.headers().firstValue("Content-Type"));
    assertSecurityHeaders(missing);
    HttpResponse<String> post = client.send(request("/").POST(HttpRequest.BodyPublishers.ofString("{}")).build(),
        HttpResponse.BodyHandlers.ofString());
    assertEquals(405, post.statusCode());
    assertEquals(Optional.of("GET, HEAD"), post.headers().firstValue("Allow"));
  }

  @Test
  void aForeignOriginIsRefused() throws Exception {
    HttpResponse<String> r = client.send(request("/").header("Origin", "http://evil.example").GET().build(),
        HttpResponse.BodyHandlers.ofString());
    assertEquals(403, r.statusCode());
    assertSecurityHeaders(r);
    HttpResponse<String> loopback = client.send(request("/").header("Origin", "http://127.0.0.1:" + server.port()).GET().build(),
        HttpResponse.BodyHandlers.ofString());
    assertEquals(200, loopback.statusCode());
  }

  /**
   * A foreign {@code Host}, as a rebound DNS name would send. Written on a plain socket: the JDK
   * client does not let a caller set {@code Host}.
   */
  @Test
  void aForeignHostIsRefused() throws Exception {
    assertTrue(rawStatusLine("evil.example:" + server.port()).startsWith("HTTP/1.1 403 "));
    assertTrue(rawStatusLine("localhost:" + server.port()).startsWith("HTTP/1.1 200 "));
  }

  private String rawStatusLine(String host) throws Exception {
    try (Socket s = new Socket("127.0.0.1", server.port())) {
      s.setSoTimeout((int) WAIT.toMillis());
      OutputStream out = s.getOutputStream();
      out.write(("GET / HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
      out.flush();
      InputStream in = s.getInputStream();
      String answer = new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
      return answer.substring(0, answer.indexOf("\r\n"));
    }
  }

  @Test
  void mcpAndApiKeepTheirPaths() throws Exception {
    HttpResponse<String> mcp = client.send(request("/mcp/echo").header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream").POST(HttpRequest.BodyPublishers.ofString("{}")).build(),
        HttpResponse.BodyHandlers.ofString());
    assertEquals(401, mcp.statusCode(), "the MCP endpoint, not the dashboard, answers /mcp: " + mcp.body());
    assertEquals(418, get("/api/rows").statusCode(), "the /api context, not the dashboard, answers /api");
  }
}
