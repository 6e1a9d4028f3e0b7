package dev.cotenant.examples.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.testkit.process.ChecksProcessLeaks;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpSchema;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * The daemon as users run it: the packaged jar, real MCP clients (the MCP Java SDK over stdio
 * through {@code cotenant connect}, and over Streamable HTTP), the SDK sample servers and
 * {@code @modelcontextprotocol/server-everything} as backends.
 */
@ChecksProcessLeaks(waitMillis = 60_000)
class DaemonIT {
  private static final String SAMPLES = "cotenant-sample-servers.jar";
  private static final String EVERYTHING = "server-everything";
  private static final Duration GONE = Duration.ofSeconds(30);

  private static String call(McpSyncClient c, String tool, Map<String, Object> args) {
    return DaemonFixture.text(c.callTool(new McpSchema.CallToolRequest(tool, args)));
  }

  /** Each client calls {@code tool} with its own marker, all at once; each answer must carry only its own. */
  private static void eachAnswerReachesOnlyItsCaller(List<McpSyncClient> clients, String tool, String argument)
      throws Exception {
    List<CompletableFuture<String>> answers = new ArrayList<>();
    CountDownLatch go = new CountDownLatch(1);
    for (int i = 0; i < clients.size(); i++) {
      McpSyncClient c = clients.get(i);
      String marker = "client-" + i + "-marker";
      answers.add(CompletableFuture.supplyAsync(() -> {
        try {
          go.await();
        } catch (InterruptedException e) {
          throw new IllegalStateException(e);
        }
        return call(c, tool, Map.of(argument, marker));
      }));
    }
    go.countDown();
    for (int i = 0; i < clients.size(); i++) {
      String text = answers.get(i).get(DaemonFixture.BOUND.toSeconds(), TimeUnit.SECONDS);
      assertTrue(text.contains("client-" + i + "-marker"), "client " + i + " got " + text);
      for (int other = 0; other < clients.size(); other++) {
        if (other != i) {
          assertFalse(text.contains("client-" + other + "-marker"), "client " + i + " saw client " + other + ": " + text);
        }
      }
    }
  }

  @Test
  void aServerRegisteredSharedRunsOneBackendForEveryClientAMeasuredOneRunsOnePerClient() throws Exception {
    try (DaemonFixture f = new DaemonFixture()) {
      String config = DaemonFixture.CONFIG.toString();
      DaemonFixture.Run measure = f.run("measure", config, "--server", "echo", "--server", EVERYTHING);
      assertEquals(0, measure.code(), measure.err());
      DaemonFixture.Run probe = f.run("probe-stateless", "echo", config);
      assertEquals(0, probe.code(), probe.out() + probe.err());
      DaemonFixture.Run register = f.run("register", "echo", config, "--model", "shared", "--max-concurrent", "8");
      assertEquals(0, register.code(), register.err());
      JsonNode rows = DaemonFixture.JSON.readTree(f.run("assess", config, "--json").out());
      for (JsonNode row : rows.path("servers")) {
        String name = row.path("name").asString();
        if (name.equals("echo")) {
          assertTrue(row.path("recommendShare").asBoolean(), row.toString());
        } else if (name.equals(EVERYTHING)) {
          // Measured (a pre-flight ran), and the measurement does not recommend sharing.
          assertNotEquals("unknown", row.path("strength").asString(), row.toString());
          assertFalse(row.path("recommendShare").asBoolean(), row.toString());
        }
      }

      Process daemon = f.serve();
      long pid = daemon.pid();
      List<McpSyncClient> echo = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        echo.add(f.stdioClient("echo", "stdio-" + i));
      }
      echo.add(f.httpClient("echo", "http-0"));
      eachAnswerReachesOnlyItsCaller(echo, "echo", "text");
      eachAnswerReachesOnlyItsCaller(echo, "echo", "text");
      List<ProcessHandle> echoBackends = DaemonFixture.backends(pid, SAMPLES);
      assertEquals(1, echoBackends.size(), "one echo backend for 4 clients: " + echoBackends);

      List<McpSyncClient> everything = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        everything.add(f.stdioClient(EVERYTHING, "stdio-" + i));
      }
      everything.add(f.httpClient(EVERYTHING, "http-0"));
      eachAnswerReachesOnlyItsCaller(everything, "echo", "message");
      List<ProcessHandle> nodes = DaemonFixture.backends(pid, "node");
      assertEquals(4, nodes.size(), "one server-everything backend per client: " + nodes);
      assertEquals(1, DaemonFixture.backends(pid, SAMPLES).size(), "still one echo backend");

      // Stopping the daemon (SIGTERM) drains every backend and leaves nothing running.
      List<ProcessHandle> all = new ArrayList<>(ProcessHandle.of(pid).orElseThrow().descendants().toList());
      daemon.destroy();
      assertTrue(daemon.waitFor(DaemonFixture.BOUND.toSeconds(), TimeUnit.SECONDS), "the daemon stopped");
      assertEquals(0, daemon.exitValue(), "a daemon stopped by SIGTERM exits 0");
      assertEquals(List.of(), DaemonFixture.awaitGone(all, GONE), "every backend and the watchdog are gone");
      assertFalse(Files.exists(f.home.resolve("cotenant.sock")), "the socket is removed");
      assertFalse(Files.exists(f.home.resolve("daemon.json")), "daemon.json is removed");
    }
  }

  @Test
  void eightShimsStartedAtOnceWithNoDaemonEndWithOneDaemonAndEightWorkingSessions() throws Exception {
    try (DaemonFixture f = new DaemonFixture()) {
      int n = 8;
      CountDownLatch go = new CountDownLatch(1);
      List<CompletableFuture<McpSyncClient>> starting = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        String name = "shim-" + i;
        starting.add(CompletableFuture.supplyAsync(() -> {
          try {
            go.await();
          } catch (InterruptedException e) {
            throw new IllegalStateException(e);
          }
          return f.stdioClient("echo", name);
        }));
      }
      go.countDown();
      List<McpSyncClient> clients = new ArrayList<>();
      for (CompletableFuture<McpSyncClient> s : starting) {
        clients.add(s.get(DaemonFixture.BOUND.toSeconds() * 2, TimeUnit.SECONDS));
      }
      eachAnswerReachesOnlyItsCaller(clients, "echo", "text");
      List<ProcessHandle> daemons = DaemonFixture.marked("dev.cotenant.cli.Main serve");
      assertEquals(1, daemons.size(), "exactly one daemon: " + daemons);
      long pid = f.state().orElseThrow().path("pid").asLong();
      assertEquals(daemons.get(0).pid(), pid, "daemon.json names it");
      String log = Files.readString(f.home.resolve("daemon.log"));
      assertFalse(log.contains("already runs"), "no second daemon was even tried: " + log);

      List<ProcessHandle> all = new ArrayList<>(daemons.get(0).descendants().toList());
      all.add(daemons.get(0));
      daemons.get(0).destroy();
      assertEquals(List.of(), DaemonFixture.awaitGone(all, GONE));
    }
  }

  /** A raw shim process: the client side of its stdio, line by line. */
  private static final class RawShim {
    final Process process;
    final OutputStream in;
    final BufferedReader out;
    final CompletableFuture<String> err;

    RawShim(DaemonFixture f, String server) throws Exception {
      process = f.start(DaemonFixture.shimCommand(server), Map.of());
      in = process.getOutputStream();
      out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
      err = DaemonFixture.drain(process.getErrorStream());
    }

    void send(String json) throws Exception {
      in.write((json + "\n").getBytes(StandardCharsets.UTF_8));
      in.flush();
    }

    JsonNode answer(int id) throws Exception {
      String line;
      while ((line = out.readLine()) != null) {
        JsonNode n = DaemonFixture.JSON.readTree(line);
        if (n.path("id").asInt(-1) == id && !n.has("method")) {
          return n;
        }
      }
      throw new AssertionError("no answer to " + id + "; stderr: " + err.getNow(""));
    }

    void initialize() throws Exception {
      send("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\","
          + "\"capabilities\":{},\"clientInfo\":{\"name\":\"raw\",\"version\":\"1\"}}}");
      assertTrue(answer(1).has("result"));
      send("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
    }
  }

  @Test
  void aDaemonKilledWithSigkillEndsEveryShimWithAReasonAndTakesItsBackendsWithIt() throws Exception {
    try (DaemonFixture f = new DaemonFixture()) {
      Process daemon = f.serve();
      List<RawShim> shims = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        RawShim s = new RawShim(f, i < 2 ? "echo" : EVERYTHING);
        s.initialize();
        shims.add(s);
      }
      // One call stays in flight: server-everything's long operation.
      RawShim busy = shims.get(2);
      busy.send("{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/call\",\"params\":{\"name\":"
          + "\"trigger-long-running-operation\",\"arguments\":{\"duration\":60,\"steps\":60}}}");
      List<ProcessHandle> backends = new ArrayList<>(daemon.descendants().toList());
      assertTrue(backends.size() >= 3, "two echo backends, one server-everything, the watchdog: " + backends);

      long killed = System.nanoTime();
      daemon.destroyForcibly();
      List<Long> exitMillis = new ArrayList<>();
      for (RawShim s : shims) {
        assertTrue(s.process.waitFor(30, TimeUnit.SECONDS), "the shim exited");
        exitMillis.add(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killed));
        assertEquals(1, s.process.exitValue());
        String err = s.err.get(10, TimeUnit.SECONDS);
        assertTrue(err.matches("(?s)cotenant connect [a-z-]+: the daemon \\(pid " + daemon.pid() + "\\) went away.*"), err);
        assertEquals(1, err.strip().lines().count(), "one line: " + err);
      }
      JsonNode interrupted = busy.answer(9);
      assertEquals(-32001, interrupted.path("error").path("code").asInt(), interrupted.toString());
      System.out.println("shims exited " + exitMillis + " ms after SIGKILL of the daemon");
      assertEquals(List.of(), DaemonFixture.awaitGone(backends, GONE), "the backends died with their daemon");
    }
  }

  @Test
  void aKilledBackendInterruptsItsCallAndTheSessionGoesOnWithANewOne() throws Exception {
    try (DaemonFixture f = new DaemonFixture()) {
      Process daemon = f.serve();
      CountDownLatch progressed = new CountDownLatch(1);
      McpSyncClient c = f.stdioClient(EVERYTHING, "interrupted", spec -> spec.progressConsumer(n -> progressed.countDown()));
      assertTrue(call(c, "echo", Map.of("message", "before")).contains("before"));
      List<ProcessHandle> first = DaemonFixture.backends(daemon.pid(), "node");
      assertEquals(1, first.size(), first.toString());
      CompletableFuture<Throwable> longCall = CompletableFuture.supplyAsync(() -> assertThrows(RuntimeException.class,
          () -> c.callTool(new McpSchema.CallToolRequest("trigger-long-running-operation",
              Map.of("duration", 60, "steps", 60), Map.of("progressToken", "p-1")))));
      // In flight at the backend once the server reports progress on it.
      assertTrue(progressed.await(DaemonFixture.BOUND.toSeconds(), TimeUnit.SECONDS), "no progress from the long call");
      first.get(0).destroyForcibly();
      Throwable e = longCall.get(DaemonFixture.BOUND.toSeconds(), TimeUnit.SECONDS);
      assertTrue(String.valueOf(e.getMessage()).contains("call interrupted"), String.valueOf(e));
      assertTrue(call(c, "echo", Map.of("message", "after")).contains("after"), "the session goes on");
      List<ProcessHandle> second = DaemonFixture.backends(daemon.pid(), "node");
      assertEquals(1, second.size(), second.toString());
      assertNotEquals(first.get(0).pid(), second.get(0).pid(), "on a new backend");
    }
  }

  @Test
  void theSocketIsTheUsersOnlyAndAnotherUserIsRefused() throws Exception {
    try (DaemonFixture f = new DaemonFixture()) {
      f.serve("--no-http");
      Path socket = f.home.resolve("cotenant.sock");
      assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(socket)));
      assertEquals(System.getProperty("user.name"), Files.getOwner(socket).getName());
      // The second-user half needs root and setpriv; without them it is reported skipped, never passed.
      org.junit.jupiter.api.Assumptions.assumeTrue(
          System.getProperty("user.name").equals("root") && Files.isExecutable(Path.of("/usr/bin/setpriv")),
          "not root, or no /usr/bin/setpriv: another user's refusal was not tried (the socket's mode was checked)");
      // Another user must be able to reach the socket's directory and run the jar: only the socket's own mode stops it.
      Files.setPosixFilePermissions(f.home, PosixFilePermissions.fromString("rwxr-xr-x"));
      Path jarDir = Files.createTempDirectory(Path.of("/tmp"), "ctj");
      try {
        Files.setPosixFilePermissions(jarDir, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path jar = Files.copy(DaemonFixture.JAR, jarDir.resolve("cotenant.jar"));
        Files.setPosixFilePermissions(jar, PosixFilePermissions.fromString("rw-r--r--"));
        List<String> asNobody = List.of("/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
            DaemonFixture.java(), "-jar", jar.toString(), "connect", "echo", "--no-start");
        DaemonFixture.Run refused = runAs(f, asNobody);
        assertEquals(1, refused.code(), refused.err());
        assertTrue(refused.err().contains("permission denied (the socket belongs to another user)"), refused.err());

        // With the mode opened up, the daemon still refuses a peer that is not its user.
        Files.setPosixFilePermissions(socket, PosixFilePermissions.fromString("rw-rw-rw-"));
        DaemonFixture.Run peer = runAs(f, asNobody);
        assertEquals(1, peer.code(), peer.err());
        assertTrue(peer.err().contains("the daemon closed the connection before answering"), peer.err());
      } finally {
        Files.deleteIfExists(jarDir.resolve("cotenant.jar"));
        Files.deleteIfExists(jarDir);
      }
    }
  }

  /** {@code route} run from the jar, without {@code --launcher}: routed entries start this Java on this jar. */
  @Test
  void routeFromTheJarStartsConnectWithThisJavaAndThisJar() throws Exception {
    try (DaemonFixture f = new DaemonFixture()) {
      // examples/mcp.json names its servers by relative paths, which route leaves alone.
      Path config = Files.writeString(f.home.resolve("client.json"),
          "{\"mcpServers\": {\"echo\": {\"command\": \"/usr/bin/env\", \"args\": [\"true\"]}}}");
      DaemonFixture.Run plan = f.run("route", config.toString(), "--json");
      assertEquals(0, plan.code(), plan.err());
      JsonNode answer = DaemonFixture.JSON.readTree(plan.out());
      assertTrue(answer.path("routed").valueStream().anyMatch(n -> n.stringValue().equals("echo")), plan.out());
      JsonNode echo = DaemonFixture.JSON.readTree(answer.path("content").stringValue()).path("mcpServers").path("echo");
      assertEquals(Path.of(DaemonFixture.java()).toRealPath(), Path.of(echo.path("command").stringValue()).toRealPath(),
          echo.toString());
      List<String> args = echo.path("args").valueStream().map(JsonNode::stringValue).toList();
      int jar = args.indexOf("-jar");
      assertTrue(jar >= 0, args.toString());
      assertEquals(DaemonFixture.JAR.toRealPath().toString(), args.get(jar + 1));
      assertEquals(List.of("connect", "echo"), args.subList(jar + 2, jar + 4));
    }
  }

  @Test
  void httpIsLoopbackOnlyAndRefusesAForeignOriginOrAMissingToken() throws Exception {
    try (DaemonFixture f = new DaemonFixture()) {
      f.serve();
      int port = f.state().orElseThrow().path("port").asInt();
      String body = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
          + "\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}";
      java.net.http.HttpClient http = java.net.http.HttpClient.newHttpClient();
      java.util.function.BiFunction<String, String, Integer> post = (origin, token) -> {
        java.net.http.HttpRequest.Builder b = java.net.http.HttpRequest.newBuilder(
                java.net.URI.create("http://127.0.0.1:" + port + "/mcp/echo"))
            .header("Content-Type", "application/json").header("Accept", "application/json, text/event-stream")
            .POST(java.net.http.HttpRequest.BodyPublishers.ofString(body));
        if (origin != null) {
          b.header("Origin", origin);
        }
        if (token != null) {
          b.header("Authorization", "Bearer " + token);
        }
        try {
          return http.send(b.build(), java.net.http.HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      };
      assertEquals(403, post.apply("http://evil.example", f.token()), "a foreign Origin");
      assertEquals(401, post.apply(null, null), "no token");
      assertEquals(401, post.apply(null, "0".repeat(64)), "a wrong token");
      assertEquals(200, post.apply("http://localhost:" + port, f.token()), "a loopback Origin with the token");
      // Nothing listens on the machine's other addresses.
      for (java.net.InetAddress a : java.util.Collections.list(java.net.NetworkInterface.getNetworkInterfaces()).stream()
          .flatMap(i -> java.util.Collections.list(i.getInetAddresses()).stream())
          .filter(a -> !a.isLoopbackAddress() && a instanceof java.net.Inet4Address).toList()) {
        try (java.net.Socket socket = new java.net.Socket()) {
          assertThrows(java.net.ConnectException.class, () -> socket.connect(new java.net.InetSocketAddress(a, port), 5000),
              "port " + port + " answers on " + a);
        }
      }
    }
  }

  @Test
  void serveDetachStartsADaemonStatusShowsItAndStopStopsIt() throws Exception {
    try (DaemonFixture f = new DaemonFixture()) {
      DaemonFixture.Run detach = f.run("serve", "--detach", "--port", "0", DaemonFixture.CONFIG.toString());
      assertEquals(0, detach.code(), detach.err());
      long pid = f.state().orElseThrow().path("pid").asLong();
      ProcessHandle daemon = ProcessHandle.of(pid).orElseThrow();
      DaemonFixture.Run second = f.run("serve", "--port", "0", DaemonFixture.CONFIG.toString());
      assertEquals(1, second.code(), second.err());
      assertTrue(second.err().contains("a Cotenant daemon already runs for " + f.home + " (pid " + pid + ")"), second.err());
      DaemonFixture.Run status = f.run("status");
      assertEquals(0, status.code(), status.err());
      assertTrue(status.out().startsWith("daemon " + pid + "  socket "), status.out());
      assertTrue(status.out().contains("no backend runs"), status.out());
      List<ProcessHandle> all = new ArrayList<>(daemon.descendants().toList());
      all.add(daemon);
      DaemonFixture.Run stop = f.run("stop");
      assertEquals(0, stop.code(), stop.err());
      assertTrue(stop.err().contains("daemon " + pid + " stopped"), stop.err());
      assertEquals(List.of(), DaemonFixture.awaitGone(all, GONE));
      assertEquals(1, f.run("status").code(), "no daemon runs any more");
    }
  }

  private static DaemonFixture.Run runAs(DaemonFixture f, List<String> command) throws Exception {
    Process p = f.start(command, Map.of());
    p.getOutputStream().close();
    CompletableFuture<String> out = DaemonFixture.drain(p.getInputStream());
    CompletableFuture<String> err = DaemonFixture.drain(p.getErrorStream());
    assertTrue(p.waitFor(DaemonFixture.BOUND.toSeconds(), TimeUnit.SECONDS));
    return new DaemonFixture.Run(p.exitValue(), out.join(), err.join());
  }
}
