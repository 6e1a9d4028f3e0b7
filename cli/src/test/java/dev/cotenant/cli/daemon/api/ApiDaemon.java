package dev.cotenant.cli.daemon.api;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.cotenant.api.ServerDescription;
import dev.cotenant.cli.daemon.CotenantHome;
import dev.cotenant.cli.daemon.Daemon;
import dev.cotenant.cli.daemon.LineChannel;
import dev.cotenant.cli.daemon.ServerDirectory;
import dev.cotenant.gateway.Cotenant;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URI;
import java.net.UnixDomainSocketAddress;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A real {@link Daemon} in this JVM for the API's tests: a temporary home, a configuration file
 * naming real stdio servers (the kit's fake server), HTTP on a free port of 127.0.0.1, and
 * clients for it: the JDK {@link HttpClient} with the token, and plain HTTP/1.1 over
 * {@code api.sock}.
 */
final class ApiDaemon implements AutoCloseable {
  static final JsonMapper JSON = JsonMapper.builder().build();

  /** The longest any wait of these tests polls before it fails. */
  static final Duration DEADLINE = Duration.ofSeconds(60);

  final Path dir;
  final Path config;
  final Path records;
  /** The daemon's runtime: its record stores are the ones it reads. */
  Cotenant runtime;
  final CotenantHome home;
  final Daemon daemon;
  final String token;
  final URI base;
  private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

  private ApiDaemon(Path dir, Path config, Path records, CotenantHome home, Daemon daemon) throws IOException {
    this.dir = dir;
    this.config = config;
    this.records = records;
    this.home = home;
    this.daemon = daemon;
    this.token = Files.readString(home.token(), StandardCharsets.US_ASCII).strip();
    this.base = URI.create("http://127.0.0.1:" + daemon.httpPort().orElseThrow());
  }

  /**
   * Writes {@code servers} (name to description) into {@code dir/mcp.json}, with {@code cotenant}
   * as the file's own section when not empty, and starts a daemon over it with {@code settings}.
   */
  static ApiDaemon start(Path dir, Map<String, ServerDescription> servers, Map<String, Object> cotenant,
      Map<String, String> settings) throws IOException {
    Path config = dir.resolve("mcp.json");
    writeConfig(config, servers, cotenant);
    return start(dir, config, List.of(config), settings);
  }

  /**
   * Starts a daemon without a configuration file of its own, as a shim starts one: it knows only
   * the servers of the files its shims name ({@link #shim}).
   */
  static ApiDaemon startWithoutConfig(Path dir, Map<String, String> settings) throws IOException {
    return start(dir, dir.resolve("mcp.json"), List.of(), settings);
  }

  /** Writes {@code servers} (name to description) into {@code file}, with {@code cotenant} as its own section when not empty. */
  static void writeConfig(Path file, Map<String, ServerDescription> servers, Map<String, Object> cotenant) throws IOException {
    Map<String, Object> entries = new LinkedHashMap<>();
    servers.forEach((name, s) -> {
      Map<String, Object> entry = new LinkedHashMap<>();
      entry.put("command", s.command());
      entry.put("args", s.args());
      entry.put("env", s.env());
      entries.put(name, entry);
    });
    Map<String, Object> root = new LinkedHashMap<>();
    root.put("mcpServers", entries);
    if (!cotenant.isEmpty()) {
      root.put("cotenant", cotenant);
    }
    Files.write(file, JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(root));
  }

  private static ApiDaemon start(Path dir, Path config, List<Path> daemonFiles, Map<String, String> settings)
      throws IOException {
    Path records = dir.resolve("records");
    Map<String, String> all = new LinkedHashMap<>(Map.of("cotenant.pool.drain-grace-ms", "0"));
    all.putAll(settings);
    Cotenant runtime = Cotenant.builder().config(all).recordsDirectory(records).build();
    CotenantHome home = new CotenantHome(dir.resolve("home"));
    Daemon d = new Daemon(home, runtime, new ServerDirectory(daemonFiles), 0, "");
    d.start();
    try {
      ApiDaemon a = new ApiDaemon(dir, config, records, home, d);
      a.runtime = runtime;
      return a;
    } catch (IOException | RuntimeException e) {
      d.stop();
      throw e;
    }
  }

  /** An answer: status, headers, body text and, when it is JSON, the parsed body. */
  record Answer(int status, Map<String, String> headers, String text) {
    JsonNode json() {
      return JSON.readTree(text);
    }

    String code() {
      return json().path("code").asString();
    }

    @Override
    public String toString() {
      return status + " " + text;
    }
  }

  Answer get(String path) throws IOException, InterruptedException {
    return send("GET", path, null, Map.of());
  }

  /** {@code GET /api/measure}, for polling. */
  JsonNode progress() {
    try {
      Answer a = get("/api/measure");
      assertEquals(200, a.status(), a.toString());
      return a.json();
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  Answer post(String path, String body) throws IOException, InterruptedException {
    return send("POST", path, body, Map.of());
  }

  Answer delete(String path) throws IOException, InterruptedException {
    return send("DELETE", path, null, Map.of());
  }

  /** A request over TCP with the token, plus {@code headers}. */
  Answer send(String method, String path, String body, Map<String, String> headers) throws IOException, InterruptedException {
    Map<String, String> all = new LinkedHashMap<>();
    all.put("Authorization", "Bearer " + token);
    all.putAll(headers);
    return sendRaw(method, path, body, all);
  }

  /** A request over TCP with exactly {@code headers} (no token unless given). */
  Answer sendRaw(String method, String path, String body, Map<String, String> headers) throws IOException, InterruptedException {
    HttpRequest.Builder b = HttpRequest.newBuilder(base.resolve(path)).timeout(Duration.ofSeconds(120))
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
    if (body != null) {
      b.header("Content-Type", "application/json");
    }
    headers.forEach(b::header);
    HttpRequest request = b.build();
    HttpResponse<String> r;
    try {
      r = client.send(request, HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      // The server closes a connection after refusing a request whose body it did not read; the
      // JDK client can take that connection from its pool just before it sees the close, and the
      // request then meets a closed socket without reaching the server. Once more, on a new one.
      if (!String.valueOf(e.getMessage()).contains("received no bytes")) {
        throw e;
      }
      r = client.send(request, HttpResponse.BodyHandlers.ofString());
    }
    Map<String, String> h = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
    r.headers().map().forEach((k, v) -> h.put(k, String.join(", ", v)));
    return new Answer(r.statusCode(), h, r.body());
  }

  /** A request over {@code api.sock}: plain HTTP/1.1, no token, the connection closed after the answer. */
  Answer unix(String method, String path, String body) throws IOException {
    return raw(UnixDomainSocketAddress.of(home.apiSocket()), method, path, body, Map.of("Host", "localhost"));
  }

  /** A request over TCP written by hand, with exactly {@code headers} ({@code Host} included): for what the JDK client will not send. */
  Answer tcp(String method, String path, String body, Map<String, String> headers) throws IOException {
    return raw(new java.net.InetSocketAddress("127.0.0.1", base.getPort()), method, path, body, headers);
  }

  /** Plain HTTP/1.1 to {@code address}, the connection closed after the answer. */
  static Answer raw(java.net.SocketAddress address, String method, String path, String body, Map<String, String> headers)
      throws IOException {
    byte[] content = body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8);
    StringBuilder req = new StringBuilder(method + " " + path + " HTTP/1.1\r\nConnection: close\r\n");
    headers.forEach((k, v) -> req.append(k).append(": ").append(v).append("\r\n"));
    if (body != null) {
      req.append("Content-Type: application/json\r\nContent-Length: ").append(content.length).append("\r\n");
    }
    req.append("\r\n");
    ByteArrayOutputStream got = new ByteArrayOutputStream();
    try (SocketChannel ch = SocketChannel.open(address)) {
      ByteBuffer out = ByteBuffer.allocate(req.length() + content.length);
      out.put(req.toString().getBytes(StandardCharsets.US_ASCII)).put(content).flip();
      while (out.hasRemaining()) {
        ch.write(out);
      }
      ByteBuffer in = ByteBuffer.allocate(8192);
      while (ch.read(in) >= 0) {
        in.flip();
        got.write(in.array(), 0, in.limit());
        in.clear();
      }
    }
    String raw = got.toString(StandardCharsets.UTF_8);
    int end = raw.indexOf("\r\n\r\n");
    String[] lines = raw.substring(0, end).split("\r\n");
    int status = Integer.parseInt(lines[0].split(" ")[1]);
    Map<String, String> h = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
    for (int i = 1; i < lines.length; i++) {
      int colon = lines[i].indexOf(':');
      h.put(lines[i].substring(0, colon).trim(), lines[i].substring(colon + 1).trim());
    }
    String rest = raw.substring(end + 4);
    if ("chunked".equals(h.getOrDefault("Transfer-Encoding", "").toLowerCase(Locale.ROOT))) {
      StringBuilder text = new StringBuilder();
      for (int i = 0;;) {
        int eol = rest.indexOf("\r\n", i);
        int n = Integer.parseInt(rest.substring(i, eol).trim(), 16);
        if (n == 0) {
          break;
        }
        text.append(rest, eol + 2, eol + 2 + n);
        i = eol + 2 + n + 2;
      }
      rest = text.toString();
    }
    return new Answer(status, h, rest);
  }

  /**
   * What {@code cotenant ARGS --json --records-dir RECORDS} prints, run in this JVM from a
   * directory outside this one (so files are shown by their absolute paths, as the daemon shows them).
   */
  JsonNode cli(String... args) throws IOException {
    java.io.StringWriter out = new java.io.StringWriter();
    java.io.StringWriter err = new java.io.StringWriter();
    Path cwd = Files.createDirectories(dir.resolve("elsewhere"));
    List<String> all = new java.util.ArrayList<>(List.of(args));
    all.add("--json");
    all.add("--records-dir");
    all.add(records.toString());
    int status = new dev.cotenant.cli.Cli(dev.cotenant.cli.CliContext.of(new java.io.PrintWriter(out, true),
        new java.io.PrintWriter(err, true), Map.of(CotenantHome.ENV, home.dir().toString()), cwd, dir))
        .run(all.toArray(new String[0]));
    assertEquals(0, status, "cotenant " + all + ": " + err);
    return JSON.readTree(out.toString());
  }

  /** Every file under the records directory and the configuration file, with its bytes. */
  Map<Path, String> written() throws IOException {
    Map<Path, String> out = new TreeMap<>();
    if (Files.exists(config)) {
      out.put(config, bytes(config));
    }
    if (Files.isDirectory(records)) {
      try (Stream<Path> files = Files.walk(records)) {
        for (Path p : files.filter(Files::isRegularFile).toList()) {
          out.put(p, bytes(p));
        }
      }
    }
    return out;
  }

  /** The file's bytes, one character each. */
  private static String bytes(Path p) throws IOException {
    return new String(Files.readAllBytes(p), StandardCharsets.ISO_8859_1);
  }

  /**
   * A shim's session over the daemon's socket: the hello naming {@code server}, {@code configs}
   * and, when {@code pid} is positive, that process id; the daemon's answer is read. Close it to
   * end the session.
   */
  LineChannel shim(String server, long pid, Path... configs) throws IOException {
    SocketChannel ch = dev.cotenant.cli.daemon.DaemonStarter.tryConnect(home.socket()).orElseThrow();
    LineChannel c = new LineChannel(ch);
    Map<String, Object> hello = new LinkedHashMap<>();
    hello.put("cotenant", "connect");
    hello.put("version", dev.cotenant.cli.daemon.Wire.VERSION);
    hello.put("server", server);
    hello.put("configs", Stream.of(configs).map(Path::toString).toList());
    if (pid > 0) {
      hello.put("pid", pid);
    }
    c.writeLine(JSON.writeValueAsBytes(hello));
    byte[] answer = c.readLine();
    JsonNode a = answer == null ? null : JSON.readTree(answer);
    if (a == null || !"connected".equals(a.path("cotenant").asString())) {
      c.close();
      throw new AssertionError("the daemon did not connect " + server + ": " + (a == null ? "no answer" : a));
    }
    return c;
  }

  /** Polls {@code condition} until it holds; fails with {@code what} at the {@link #DEADLINE}. */
  static void await(String what, BooleanSupplier condition) throws InterruptedException {
    long end = System.nanoTime() + DEADLINE.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > end) {
        throw new AssertionError("waited " + DEADLINE.toSeconds() + " s for " + what);
      }
      Thread.sleep(50);
    }
  }

  /** Asserts that the files of {@link #written()} are as they were in {@code before}, naming those that changed. */
  void assertUnchanged(Map<Path, String> before, String why) throws IOException {
    Map<Path, String> now = written();
    java.util.Set<Path> changed = new java.util.TreeSet<>();
    before.forEach((p, b) -> {
      if (!b.equals(now.get(p))) {
        changed.add(p);
      }
    });
    now.keySet().stream().filter(p -> !before.containsKey(p)).forEach(changed::add);
    assertEquals(java.util.Set.of(), changed, why);
  }

  /** Asserts an error answer's status and code. */
  static void assertError(int status, String code, Answer a) {
    assertEquals(status, a.status(), a.toString());
    assertEquals(code, a.code(), a.toString());
    assertEquals(2, a.json().size(), "an error is {code, message}: " + a);
  }

  @Override
  public void close() {
    daemon.stop();
  }
}
