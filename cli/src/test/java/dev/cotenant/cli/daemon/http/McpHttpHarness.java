package dev.cotenant.cli.daemon.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.api.ServerDescription;
import dev.cotenant.gateway.Cotenant;
import dev.cotenant.gateway.sharing.Sharing;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import tools.jackson.databind.json.JsonMapper;

/**
 * A daemon HTTP server on an ephemeral loopback port over a real sharing runtime, and a JDK
 * {@link HttpClient} speaking MCP Streamable HTTP to it. Closing it closes the server and the runtime.
 */
final class McpHttpHarness implements AutoCloseable {
  static final String TOKEN = "test-token-0123456789";
  static final Duration WAIT = Duration.ofSeconds(30);
  static final JsonMapper JSON = JsonMapper.builder().build();

  final Sharing sharing;
  final McpHttpEndpoint endpoint;
  final DaemonHttpServer server;
  final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(10)).build();

  /**
   * @param config runtime configuration, key then value
   */
  McpHttpHarness(Path records, List<ServerDescription> servers, String... config) throws Exception {
    this(records, ServerLookup.of(servers), config);
  }

  /**
   * @param config runtime configuration, key then value
   */
  McpHttpHarness(Path records, ServerLookup servers, String... config) throws Exception {
    this(records, servers, McpHttpEndpoint.KEEP_ALIVE, McpHttpEndpoint.SESSION_IDLE_TIMEOUT, config);
  }

  /**
   * As above, with the endpoint's keep-alive period and session idle timeout.
   *
   * @param config runtime configuration, key then value
   */
  McpHttpHarness(Path records, ServerLookup servers, Duration keepAlive, Duration sessionIdle, String... config)
      throws Exception {
    Map<String, String> c = new LinkedHashMap<>();
    c.put("cotenant.pool.drain-grace-ms", "0");
    for (int i = 0; i < config.length; i += 2) {
      c.put(config[i], config[i + 1]);
    }
    this.sharing = Cotenant.builder().config(c).recordsDirectory(records).build().sharing();
    this.endpoint = new McpHttpEndpoint(sharing, servers, new HttpGuard(TOKEN), keepAlive, sessionIdle);
    this.server = new DaemonHttpServer(endpoint, 0);
    try {
      server.start();
    } catch (Exception e) {
      close();
      throw e;
    }
  }

  URI uri(String serverName) {
    // Percent-encoded as a client must: "my server?" is "/mcp/my%20server%3F".
    return URI.create("http://127.0.0.1:" + server.port() + "/mcp/" + org.eclipse.jetty.util.URIUtil.encodePath(serverName));
  }

  /** A POST with the token and both Accept types, plus {@code headers} (name, value, ...). */
  HttpRequest.Builder post(String serverName, String body, String... headers) {
    HttpRequest.Builder b = HttpRequest.newBuilder(uri(serverName)).timeout(WAIT)
        .header("Authorization", "Bearer " + TOKEN)
        .header("Accept", "application/json, text/event-stream")
        .header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(body));
    for (int i = 0; i < headers.length; i += 2) {
      b.setHeader(headers[i], headers[i + 1]);
    }
    return b;
  }

  HttpResponse<String> send(HttpRequest.Builder request) throws IOException, InterruptedException {
    return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  HttpResponse<String> post(String serverName, String sessionId, Map<String, Object> message)
      throws IOException, InterruptedException {
    return send(post(serverName, json(message), McpHttpEndpoint.SESSION_HEADER, sessionId));
  }

  /** Opens a session of {@code serverName}; returns its id. */
  String initialize(String serverName) throws IOException, InterruptedException {
    HttpResponse<String> r = send(post(serverName, json(initializeRequest(0))));
    assertEquals(200, r.statusCode(), r.body());
    String id = r.headers().firstValue(McpHttpEndpoint.SESSION_HEADER).orElseThrow(
        () -> new AssertionError("no " + McpHttpEndpoint.SESSION_HEADER + " on " + r.headers().map()));
    HttpResponse<String> n = post(serverName, id, Map.of("jsonrpc", "2.0", "method", "notifications/initialized"));
    assertEquals(202, n.statusCode(), n.body());
    return id;
  }

  /**
   * Opens a session of {@code serverName} and asks it for its tools (request {@code id}): asserts
   * the answer is 200 and lists the {@code echo} tool.
   */
  void assertListsEcho(String serverName, int id) throws IOException, InterruptedException {
    String session = initialize(serverName);
    HttpResponse<String> list = post(serverName, session, request(id, "tools/list", Map.of()));
    assertEquals(200, list.statusCode(), list.body());
    assertTrue(list.body().contains("\"echo\""), list.body());
  }

  static Map<String, Object> initializeRequest(int id) {
    return Map.of("jsonrpc", "2.0", "id", id, "method", "initialize", "params", Map.of(
        "protocolVersion", "2025-11-25", "capabilities", Map.of(),
        "clientInfo", Map.of("name", "http-test", "version", "1")));
  }

  static Map<String, Object> request(int id, String method, Map<String, Object> params) {
    return Map.of("jsonrpc", "2.0", "id", id, "method", method, "params", params);
  }

  static Map<String, Object> echo(int id, Map<String, Object> arguments) {
    return request(id, "tools/call", Map.of("name", "echo", "arguments", arguments));
  }

  static String json(Object value) {
    return JSON.writeValueAsString(value);
  }

  @SuppressWarnings("unchecked")
  static Map<String, Object> parse(String json) {
    return JSON.readValue(json, Map.class);
  }

  /**
   * The JSON-RPC messages of a response body: the one object of {@code application/json}, or the
   * {@code data} of each event of {@code text/event-stream}, in order.
   */
  static List<Map<String, Object>> messages(HttpResponse<String> r) {
    String type = r.headers().firstValue("Content-Type").orElse("");
    if (type.startsWith("application/json")) {
      return List.of(parse(r.body()));
    }
    assertEquals("text/event-stream", type.split(";")[0].trim(), "content type of " + r.body());
    List<Map<String, Object>> out = new ArrayList<>();
    for (String line : r.body().split("\n")) {
      if (line.startsWith("data:")) {
        out.add(parse(line.substring(5).trim()));
      }
    }
    return out;
  }

  /** The last message of a response: its answer. */
  static Map<String, Object> answer(HttpResponse<String> r) {
    List<Map<String, Object>> all = messages(r);
    return all.get(all.size() - 1);
  }

  /** The {@code error.code} of an error body. */
  static int errorCode(HttpResponse<String> r) {
    return ((Number) ((Map<?, ?>) parse(r.body()).get("error")).get("code")).intValue();
  }

  /** The text of the first content item of a {@code tools/call} answer. */
  static String text(Map<String, Object> answer) {
    Map<?, ?> result = (Map<?, ?>) answer.get("result");
    if (result == null) {
      throw new AssertionError("not a result: " + answer);
    }
    return String.valueOf(((Map<?, ?>) ((List<?>) result.get("content")).get(0)).get("text"));
  }

  /** Polls {@code condition} until it holds or {@link #WAIT} passes. */
  static void await(String what, BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError(what + " did not happen within " + WAIT.toSeconds() + " s");
      }
      Thread.sleep(20);
    }
  }

  /** A GET event stream, read line by line on a thread of its own. */
  final class EventReader implements AutoCloseable {
    final HttpResponse<InputStream> response;
    private final BlockingQueue<Map<String, Object>> messages = new LinkedBlockingQueue<>();
    private final List<Map<String, Object>> skipped = new ArrayList<>();
    private final Thread reader;

    EventReader(String serverName, String sessionId) throws IOException, InterruptedException {
      response = client.send(HttpRequest.newBuilder(uri(serverName))
          .header("Authorization", "Bearer " + TOKEN).header("Accept", "text/event-stream")
          .header(McpHttpEndpoint.SESSION_HEADER, sessionId).GET().build(), HttpResponse.BodyHandlers.ofInputStream());
      reader = new Thread(() -> {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(response.body(), StandardCharsets.UTF_8))) {
          for (String line = in.readLine(); line != null; line = in.readLine()) {
            if (line.startsWith("data:")) {
              messages.add(parse(line.substring(5).trim()));
            }
          }
        } catch (IOException e) {
          // The stream was closed.
        }
      }, "event-reader");
      reader.setDaemon(true);
      if (response.statusCode() == 200) {
        reader.start();
      }
    }

    Map<String, Object> next(Predicate<Map<String, Object>> which) throws InterruptedException {
      long deadline = System.nanoTime() + WAIT.toNanos();
      while (System.nanoTime() < deadline) {
        Map<String, Object> m = messages.poll(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        if (m != null && which.test(m)) {
          return m;
        }
        if (m != null) {
          skipped.add(m);
        }
      }
      throw new AssertionError("nothing matching arrived on the GET stream within " + WAIT.toSeconds() + " s; got "
          + skipped);
    }

    @Override
    public void close() throws IOException {
      response.body().close();
    }
  }

  @Override
  public void close() {
    try {
      server.close();
    } finally {
      sharing.close();
    }
  }
}
