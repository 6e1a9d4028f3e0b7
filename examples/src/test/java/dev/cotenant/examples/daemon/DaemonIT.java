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

  /**
   * A daemon killed under three sessions sharing a backend: the call in flight is answered "call
   * interrupted", the three sessions go on with a new daemon (which one of their shims started),
   * each answered there, and nothing is replayed; a session on a backend of its own ends with a
   * reason, since its state ended with the daemon. Before, every shim ended with its daemon.
   */
  @Test
  void aDaemonKilledWithSigkillIsReplacedAndTheSessionsOfASharedBackendContinue() throws Exception {
    try (DaemonFixture f = new DaemonFixture()) {
      String forced = "cotenant.sharing.forced=" + EVERYTHING;
      Process daemon = f.serve("--set", forced);
      List<String> command = new ArrayList<>(DaemonFixture.shimCommand(EVERYTHING));
      command.addAll(List.of("--set", forced));
      List<RawShim> shared = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        RawShim s = new RawShim(f, command);
        s.initialize();
        shared.add(s);
      }
      RawShim own = new RawShim(f, "echo");
      own.initialize();
      assertEquals(List.of("shared 3"), backendsOf(f, EVERYTHING));
      // One call stays in flight: server-everything's long operation.
      RawShim busy = shared.get(2);
      busy.send("{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/call\",\"params\":{\"name\":"
          + "\"trigger-long-running-operation\",\"arguments\":{\"duration\":60,\"steps\":60}}}");
      List<ProcessHandle> backends = new ArrayList<>(daemon.descendants().toList());
      assertTrue(backends.size() >= 3, "an echo backend, a server-everything one, the watchdog: " + backends);

      daemon.destroyForcibly();
      JsonNode interrupted = busy.answer(9);
      assertEquals(-32073, interrupted.path("error").path("code").asInt(), interrupted.toString());
      assertTrue(own.process.waitFor(60, TimeUnit.SECONDS), "the session on a backend of its own ended");
      assertEquals(1, own.process.exitValue());
      String err = own.err.get(10, TimeUnit.SECONDS);
      assertTrue(err.matches("(?s)cotenant connect echo: the daemon \\(pid " + daemon.pid() + "\\) went away.*restart echo in"
          + " the client.*"), err);
      for (int i = 0; i < shared.size(); i++) {
        String echoed = shared.get(i).call(20 + i, "echo", "{\"message\":\"after-" + i + "\"}");
        assertTrue(echoed.contains("after-" + i), echoed);
        assertTrue(shared.get(i).process.isAlive());
      }
      long replacement = f.state().orElseThrow().path("pid").asLong();
      assertNotEquals(daemon.pid(), replacement);
      assertEquals(List.of("shared 3"), backendsOf(f, EVERYTHING), "the three share a backend of the new daemon");
      assertEquals(List.of(), DaemonFixture.awaitGone(backends, GONE), "the old backends died with their daemon");
      for (RawShim s : shared) {
        s.in.close();
        assertTrue(s.process.waitFor(30, TimeUnit.SECONDS));
        assertEquals(0, s.process.exitValue(), s.err.getNow(""));
      }
    }
  }

  /**
   * How a daemon ends in {@link #nothingABackendStartedOutlivesTheDaemon}; the last one without the
   * pid namespace, where the watchdog alone must end the backend (whose children, without the
   * cookie, it cannot see: the documented limit of the fallback).
   */
  enum Ending { SIGKILL, STOP, SIGKILL_WITHOUT_NAMESPACE }

  /**
   * A backend that ignores SIGTERM and the end of its input, with a child whose environment is
   * empty (no spawn cookie, no daemon id) and a grandchild that called {@code setsid} and left the
   * tree: after the daemon ends, by SIGKILL or by {@code cotenant stop}, none of them is left. The
   * pid namespace each backend runs in does it; the cookie and the watchdog alone cannot see the
   * last two.
   */
  @org.junit.jupiter.params.ParameterizedTest
  @org.junit.jupiter.params.provider.EnumSource(Ending.class)
  void nothingABackendStartedOutlivesTheDaemon(Ending ending, @org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
    Path loop = Files.writeString(dir.resolve("loop.sh"), "PATH=/usr/bin:/bin\ntrap '' TERM\nwhile :; do sleep 1; done\n");
    Path spawn = Files.writeString(dir.resolve("spawn.sh"), "/bin/sh \"$1/loop.sh\" grandchild </dev/null >/dev/null 2>&1 &\nexit 0\n");
    Path hostile = Files.writeString(dir.resolve("hostile.sh"), String.join("\n",
        "#!/bin/sh",
        "here=$(dirname \"$0\")",
        "trap '' TERM",
        "env -i /bin/sh \"$here/loop.sh\" child </dev/null >/dev/null 2>&1 &",
        "env -i setsid /bin/sh \"$here/spawn.sh\" \"$here\" </dev/null >/dev/null 2>&1",
        "\"$1\"",
        "while :; do sleep 1; done", ""));
    Files.setPosixFilePermissions(hostile, PosixFilePermissions.fromString("rwx------"));
    Path config = Files.writeString(dir.resolve("mcp.json"), "{\"mcpServers\": {\"hostile\": {\"command\": \""
        + hostile + "\", \"args\": [\"" + DaemonFixture.ROOT.resolve("examples/bin/echo") + "\"]}}}");
    String marker = dir.toString();
    try (DaemonFixture f = new DaemonFixture(config)) {
      boolean contained = ending != Ending.SIGKILL_WITHOUT_NAMESPACE;
      Process daemon = contained ? f.serve() : f.serve("--set", "cotenant.backends.pid-namespace=off");
      String start = f.state().orElseThrow().path("backends_start").asString("");
      assertTrue(start.startsWith(contained ? "each in a pid namespace of its own (bubblewrap"
          : "as configured, without a pid namespace: turned off"), start);
      McpSyncClient c = f.stdioClient("hostile", "hostile");
      assertTrue(call(c, "echo", Map.of("text", "here")).contains("here"));
      List<ProcessHandle> left = List.of();
      long deadline = System.nanoTime() + DaemonFixture.BOUND.toNanos();
      while (left.size() < 3 && System.nanoTime() < deadline) {
        Thread.sleep(100);
        left = commandLinesContaining(marker);
      }
      List<String> lines = left.stream().map(p -> p.info().commandLine().orElse("")).toList();
      assertTrue(lines.stream().anyMatch(l -> l.endsWith("loop.sh child")), lines.toString());
      assertTrue(lines.stream().anyMatch(l -> l.endsWith("loop.sh grandchild")), lines.toString());
      try {
        if (ending == Ending.SIGKILL) {
          daemon.destroyForcibly();
        } else {
          DaemonFixture.Run stop = f.run("stop");
          assertEquals(0, stop.code(), stop.err());
        }
        assertTrue(daemon.waitFor(DaemonFixture.BOUND.toSeconds(), TimeUnit.SECONDS));
        List<ProcessHandle> watched = contained ? commandLinesContaining(marker)
            : commandLinesContaining(hostile.toString());
        assertEquals(List.of(), DaemonFixture.awaitGone(watched, GONE).stream()
            .map(p -> p.pid() + " " + p.info().commandLine().orElse("")).toList(), "left after " + ending);
      } finally {
        commandLinesContaining(marker).forEach(ProcessHandle::destroyForcibly);
      }
    }
  }

  /** Every process on the machine whose command line contains {@code marker}. */
  private static List<ProcessHandle> commandLinesContaining(String marker) {
    try (java.util.stream.Stream<ProcessHandle> all = ProcessHandle.allProcesses()) {
      return all.filter(p -> p.info().commandLine().orElse("").contains(marker)).toList();
    }
  }

  /**
   * server-everything forced shared: B turns its simulated logging on, and the log messages the
   * server sends (to nobody in particular: stdio has one client) never reach A; the multiplexer
   * records the hazard, and the server, refuted now, places new sessions on backends of their own
   * (an observed hazard outranks the operator's force).
   */
  @Test
  void serverEverythingForcedSharedNeverGivesBsLogMessagesToAAndIsThenPlacedDedicated() throws Exception {
    try (DaemonFixture f = new DaemonFixture()) {
      f.serve("--set", "cotenant.sharing.forced=" + EVERYTHING);
      List<McpSchema.LoggingMessageNotification> toA = new java.util.concurrent.CopyOnWriteArrayList<>();
      List<McpSchema.LoggingMessageNotification> toB = new java.util.concurrent.CopyOnWriteArrayList<>();
      McpSyncClient a = f.stdioClient(EVERYTHING, "a", spec -> spec.loggingConsumer(toA::add));
      McpSyncClient b = f.stdioClient(EVERYTHING, "b", spec -> spec.loggingConsumer(toB::add));
      JsonNode shared = onlyBackend(f);
      assertEquals("shared", shared.path("placement").asString(), shared.toString());
      assertEquals(2, shared.path("sessions").asInt(), shared.toString());

      String toggled = call(b, "toggle-simulated-logging", Map.of());
      assertTrue(toggled.toLowerCase(java.util.Locale.ROOT).contains("started"), toggled);
      long deadline = System.nanoTime() + DaemonFixture.BOUND.toNanos();
      String hazards = "";
      while (!hazards.contains("unattributable_notification") && System.nanoTime() < deadline) {
        Thread.sleep(200);
        hazards = f.run("hazards", "list", "--json").out();
      }
      assertTrue(hazards.contains(EVERYTHING) && hazards.contains("unattributable_notification"), hazards);
      // The server sends one every 5 s: once the backend has dropped a later one too, A still has none.
      int dropped = 0;
      while (dropped < 2 && System.nanoTime() < deadline) {
        Thread.sleep(200);
        dropped = onlyBackend(f).path("hazards").asInt();
      }
      assertTrue(dropped >= 2, "the backend dropped a later log message as well: " + dropped);
      assertEquals(List.of(), toA, "B's log messages reached A");
      assertEquals(List.of(), toB, "the server's log messages go to nobody while two sessions share its backend");

      McpSyncClient c = f.stdioClient(EVERYTHING, "c");
      assertTrue(call(c, "echo", Map.of("message", "new")).contains("new"));
      JsonNode status = DaemonFixture.JSON.readTree(f.run("status", "--json").out());
      List<JsonNode> dedicated = new ArrayList<>();
      for (JsonNode backend : status.path("backends")) {
        if (backend.path("placement").asString().equals("dedicated") && backend.path("sessions").asInt() == 1) {
          dedicated.add(backend);
        }
      }
      assertEquals(1, dedicated.size(), "the new session is on a backend of its own: " + status);
      // A's next call moves it to a backend of its own too.
      assertTrue(call(a, "echo", Map.of("message", "moved")).contains("moved"));
      status = DaemonFixture.JSON.readTree(f.run("status", "--json").out());
      int dedicatedNow = 0;
      for (JsonNode backend : status.path("backends")) {
        dedicatedNow += backend.path("placement").asString().equals("dedicated") ? backend.path("sessions").asInt() : 0;
      }
      assertEquals(2, dedicatedNow, status.toString());
    }
  }

  /**
   * A server→client request end to end, over both of the daemon's transports: server-everything
   * asks the client for a sampling (`sampling/createMessage`) in the middle of a call; the SDK
   * client's handler answers it through the shim and the socket, or over HTTP, and the call's
   * answer carries what the client said.
   */
  @org.junit.jupiter.params.ParameterizedTest
  @org.junit.jupiter.params.provider.ValueSource(strings = {"socket", "http"})
  void aServerRequestReachesItsClientAndTheAnswerReachesTheServer(String transport) throws Exception {
    try (DaemonFixture f = new DaemonFixture()) {
      f.serve();
      List<String> asked = new java.util.concurrent.CopyOnWriteArrayList<>();
      java.util.function.UnaryOperator<io.modelcontextprotocol.client.McpClient.SyncSpec> sampling = spec -> spec
          .capabilities(McpSchema.ClientCapabilities.builder().sampling().build())
          .sampling(request -> {
            asked.add(request.messages().toString());
            return new McpSchema.CreateMessageResult(McpSchema.Role.ASSISTANT,
                new McpSchema.TextContent("sampled by the " + transport + " client"), "test-model",
                McpSchema.CreateMessageResult.StopReason.END_TURN);
          });
      McpSyncClient c = transport.equals("socket") ? f.stdioClient(EVERYTHING, "sampler", sampling)
          : f.httpClient(EVERYTHING, "sampler", sampling);
      String answer = call(c, "trigger-sampling-request", Map.of("prompt", "say-" + transport, "maxTokens", 20));
      assertTrue(answer.contains("sampled by the " + transport + " client"), answer);
      assertEquals(1, asked.size(), asked.toString());
      assertTrue(asked.get(0).contains("say-" + transport), asked.toString());
    }
  }

  /** {@code POST /api/PATH} with the token and a JSON body; the answer's status and body. */
  private static java.net.http.HttpResponse<String> postApi(DaemonFixture f, String path, String body) throws Exception {
    int port = f.state().orElseThrow().path("port").asInt();
    return java.net.http.HttpClient.newHttpClient().send(java.net.http.HttpRequest.newBuilder(
            java.net.URI.create("http://127.0.0.1:" + port + "/api/" + path))
        .timeout(DaemonFixture.BOUND).header("Authorization", "Bearer " + f.token())
        .header("Content-Type", "application/json")
        .POST(java.net.http.HttpRequest.BodyPublishers.ofString(body)).build(),
        java.net.http.HttpResponse.BodyHandlers.ofString());
  }

  /** The pids of the backends {@code status} lists for {@code server}, by placement and sessions. */
  static List<String> backendsOf(DaemonFixture f, String server) throws Exception {
    DaemonFixture.Run status = f.run("status", "--json");
    assertEquals(0, status.code(), status.err());
    List<String> out = new ArrayList<>();
    for (JsonNode b : DaemonFixture.JSON.readTree(status.out()).path("backends")) {
      if (b.path("server").asString().equals(server) && b.path("sessions").asInt() > 0) {
        out.add(b.path("placement").asString() + " " + b.path("sessions").asInt());
      }
    }
    java.util.Collections.sort(out);
    return out;
  }

  /**
   * A hazard recorded through the API while two sessions share a backend moves both to backends of
   * their own at their next call, and the next session starts dedicated: the real daemon, real
   * shims, a forced server (an observed hazard outranks the force).
   */
  @Test
  void aHazardPostedToTheApiMovesTheSessionsSharingABackend() throws Exception {
    try (DaemonFixture f = new DaemonFixture()) {
      f.serve("--set", "cotenant.sharing.forced=echo");
      McpSyncClient a = f.stdioClient("echo", "a");
      McpSyncClient b = f.stdioClient("echo", "b");
      assertTrue(call(a, "echo", Map.of("text", "a1")).contains("a1"));
      assertEquals(List.of("shared 2"), backendsOf(f, "echo"));
      DaemonFixture.Run table = f.run("status");
      assertTrue(table.out().contains("HAZARDS REASON") && table.out().contains("forced by cotenant.sharing.forced (verdict "),
          "status says why: " + table.out());
      java.net.http.HttpResponse<String> posted = postApi(f, "hazards",
          "{\"server\":\"echo\",\"code\":\"cross_session_leak\",\"attachedSessions\":2}");
      assertEquals(201, posted.statusCode(), posted.body());
      assertTrue(call(a, "echo", Map.of("text", "a2")).contains("a2"));
      assertTrue(call(b, "echo", Map.of("text", "b2")).contains("b2"));
      assertEquals(List.of("dedicated 1", "dedicated 1"), backendsOf(f, "echo"), "both moved");
      String moved = f.run("status", "--json").out();
      assertTrue(moved.contains("the records changed: forced by cotenant.sharing.forced, but refuted"), moved);
      McpSyncClient c = f.stdioClient("echo", "c");
      assertTrue(call(c, "echo", Map.of("text", "c1")).contains("c1"));
      assertEquals(List.of("dedicated 1", "dedicated 1", "dedicated 1"), backendsOf(f, "echo"));
    }
  }

  /** After {@code POST /api/backends/drain}, old sessions and new ones are served: the daemon is not left draining. */
  @Test
  void drainingTheBackendsThroughTheApiLeavesTheDaemonServing() throws Exception {
    try (DaemonFixture f = new DaemonFixture()) {
      f.serve();
      McpSyncClient a = f.stdioClient("echo", "a");
      assertTrue(call(a, "echo", Map.of("text", "before")).contains("before"));
      java.net.http.HttpResponse<String> drained = postApi(f, "backends/drain", "{\"force\":true,\"timeoutMs\":10000}");
      assertEquals(200, drained.statusCode(), drained.body());
      assertTrue(drained.body().contains("\"forced\":1") || drained.body().contains("\"drained\":1"), drained.body());
      McpSyncClient b = f.stdioClient("echo", "b");
      assertTrue(call(b, "echo", Map.of("text", "new")).contains("new"), "a new session is served");
      String after = "";
      for (int i = 0; i < 2 && !after.contains("again"); i++) {
        // The first call after a forced drain may be answered "call interrupted"; the next one is served.
        try {
          after = call(a, "echo", Map.of("text", "again"));
        } catch (RuntimeException e) {
          after = String.valueOf(e.getMessage());
        }
      }
      assertTrue(after.contains("again"), "the old session goes on: " + after);
    }
  }

  /** The one backend {@code status} lists. */
  private static JsonNode onlyBackend(DaemonFixture f) throws Exception {
    DaemonFixture.Run status = f.run("status", "--json");
    assertEquals(0, status.code(), status.err());
    JsonNode backends = DaemonFixture.JSON.readTree(status.out()).path("backends");
    assertEquals(1, backends.size(), status.out());
    return backends.get(0);
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

        // With the mode opened up, connect refuses a daemon that is not its user's before it speaks,
        Files.setPosixFilePermissions(socket, PosixFilePermissions.fromString("rw-rw-rw-"));
        DaemonFixture.Run peer = runAs(f, asNobody);
        assertEquals(1, peer.code(), peer.err());
        assertTrue(peer.err().contains("refusing the daemon at " + socket + ": it is run by root, not by nobody"), peer.err());
        // and the daemon refuses a peer that is not its user, on the shims' socket and on api.sock.
        Path raw = Files.writeString(jarDir.resolve("RawPeer.java"), RAW_PEER);
        Files.setPosixFilePermissions(raw, PosixFilePermissions.fromString("rw-r--r--"));
        Path apiSocket = f.home.resolve("api.sock");
        Files.setPosixFilePermissions(apiSocket, PosixFilePermissions.fromString("rw-rw-rw-"));
        for (Path s : List.of(socket, apiSocket)) {
          DaemonFixture.Run closed = runAs(f, List.of("/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
              DaemonFixture.java(), raw.toString(), s.toString()));
          assertEquals(0, closed.code(), closed.err());
          assertEquals("closed with no answer", closed.out().strip(), s + ": " + closed.err());
        }
        // The same raw peer run as the daemon's own user is answered: the refusal is the user's.
        DaemonFixture.Run own = runAs(f, List.of(DaemonFixture.java(), raw.toString(), apiSocket.toString()));
        assertTrue(own.out().startsWith("answered HTTP/1.1 "), own.out() + own.err());
      } finally {
        Files.deleteIfExists(jarDir.resolve("RawPeer.java"));
        Files.deleteIfExists(jarDir.resolve("cotenant.jar"));
        Files.deleteIfExists(jarDir);
      }
    }
  }

  /** {@code route --shim jvm} run from the jar, without {@code --launcher}: routed entries start this Java on this jar. */
  @Test
  void routeFromTheJarStartsConnectWithThisJavaAndThisJar() throws Exception {
    try (DaemonFixture f = new DaemonFixture()) {
      // examples/mcp.json names its servers by relative paths, which route leaves alone.
      Path config = Files.writeString(f.home.resolve("client.json"),
          "{\"mcpServers\": {\"echo\": {\"command\": \"" + DaemonFixture.ROOT.resolve("examples/bin/echo") + "\"}}}");
      // Routed from a copy of the jar that is then deleted, as `mvn clean` deletes the build's.
      Path build = Files.createTempDirectory(Path.of("/tmp"), "ctb");
      Path jarCopy = Files.copy(DaemonFixture.JAR, build.resolve("cotenant.jar"));
      try {
        // The JVM shim's entry (NativeShimIT routes to the native one, the default where the jar holds it).
        DaemonFixture.Run plan = runAs(f, List.of(DaemonFixture.java(), "-jar", jarCopy.toString(), "route",
            config.toString(), "--apply", "--json", "--all", "--shim", "jvm"));
        assertEquals(0, plan.code(), plan.err());
        JsonNode answer = DaemonFixture.JSON.readTree(plan.out());
        assertTrue(answer.path("routed").valueStream().anyMatch(n -> n.stringValue().equals("echo")), plan.out());
        JsonNode echo = DaemonFixture.JSON.readTree(config.toFile()).path("mcpServers").path("echo");
        assertEquals(Path.of(DaemonFixture.java()).toRealPath(), Path.of(echo.path("command").stringValue()).toRealPath(),
            echo.toString());
        List<String> args = echo.path("args").valueStream().map(JsonNode::stringValue).toList();
        int jar = args.indexOf("-jar");
        assertTrue(jar >= 0, args.toString());
        Path installed = Path.of(args.get(jar + 1));
        assertEquals(f.home.resolve("lib").toRealPath(), installed.getParent().toRealPath(), args.toString());
        assertTrue(installed.getFileName().toString().matches("cotenant-[0-9a-f]{16}\\.jar"), installed.toString());
        assertEquals(-1L, Files.mismatch(DaemonFixture.JAR, installed), "the installed copy is the jar");
        assertEquals(List.of("connect", "echo"), args.subList(jar + 2, jar + 4));
        Files.delete(jarCopy);

        // The client starts the entry as written: it works with the jar it was routed from gone.
        List<String> command = new ArrayList<>(List.of(echo.path("command").stringValue()));
        command.addAll(args);
        io.modelcontextprotocol.client.transport.ServerParameters params =
            io.modelcontextprotocol.client.transport.ServerParameters.builder(command.get(0))
                .args(command.subList(1, command.size())).env(f.env()).build();
        io.modelcontextprotocol.client.transport.StdioClientTransport transport =
            new io.modelcontextprotocol.client.transport.StdioClientTransport(params, DaemonFixture.MCP_JSON);
        transport.setStdErrorHandler(line -> { });
        try (McpSyncClient c = io.modelcontextprotocol.client.McpClient.sync(transport)
            .requestTimeout(DaemonFixture.BOUND).initializationTimeout(DaemonFixture.BOUND).build()) {
          c.initialize();
          assertTrue(call(c, "echo", Map.of("text", "routed")).contains("routed"));
        }
        DaemonFixture.Run stop = f.run("stop");
        assertEquals(0, stop.code(), stop.err());
      } finally {
        Files.deleteIfExists(jarCopy);
        Files.deleteIfExists(build);
      }
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
      McpSyncClient c = f.stdioClient("echo", "logged");
      assertTrue(call(c, "echo", Map.of("text", "logged")).contains("logged"));
      List<ProcessHandle> all = new ArrayList<>(daemon.descendants().toList());
      all.add(daemon);
      DaemonFixture.Run stop = f.run("stop");
      assertEquals(0, stop.code(), stop.err());
      assertTrue(stop.err().contains("daemon " + pid + " stopped"), stop.err());
      assertEquals(List.of(), DaemonFixture.awaitGone(all, GONE));
      assertEquals(1, f.run("status").code(), "no daemon runs any more");
      // The daemon's log says where each session went and why, with the time.
      List<String> log = Files.readAllLines(f.home.resolve("daemon.log"));
      assertTrue(log.stream().anyMatch(l -> l.matches("\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d\\.\\d{3} INFO session \\S+ of echo:"
          + " dedicated \\(its verdict \\(\\w+\\) does not recommend sharing\\), backend pid \\d+; not deferred: no"
          + " pre-flight on record under its current launch identity.*")), String.join("\n", log));
    }
  }

  /**
   * A client that checks nothing: connects to the Unix socket its argument names, sends an HTTP
   * request line (which the shims' socket reads as a malformed message), and says whether anything
   * came back before the connection closed.
   */
  private static final String RAW_PEER = String.join("\n",
      "import java.net.*; import java.nio.*; import java.nio.channels.*; import java.nio.charset.*;",
      "public class RawPeer { public static void main(String[] a) throws Exception {",
      "  try (SocketChannel ch = SocketChannel.open(UnixDomainSocketAddress.of(a[0]))) {",
      "    ByteBuffer b = ByteBuffer.allocate(64); int n;",
      "    try {",
      "      ch.write(ByteBuffer.wrap(\"GET /api/status HTTP/1.1\\r\\nHost: x\\r\\n\\r\\n\".getBytes(StandardCharsets.US_ASCII)));",
      "      n = ch.read(b);",
      "    } catch (java.io.IOException e) { n = -1; }",
      "    System.out.println(n <= 0 ? \"closed with no answer\" : \"answered \" + new String(b.array(), 0, n, StandardCharsets.US_ASCII));",
      "  } } }", "");

  private static DaemonFixture.Run runAs(DaemonFixture f, List<String> command) throws Exception {
    Process p = f.start(command, Map.of());
    p.getOutputStream().close();
    CompletableFuture<String> out = DaemonFixture.drain(p.getInputStream());
    CompletableFuture<String> err = DaemonFixture.drain(p.getErrorStream());
    assertTrue(p.waitFor(DaemonFixture.BOUND.toSeconds(), TimeUnit.SECONDS));
    return new DaemonFixture.Run(p.exitValue(), out.join(), err.join());
  }
}
