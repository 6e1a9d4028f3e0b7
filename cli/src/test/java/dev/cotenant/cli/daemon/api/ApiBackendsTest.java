package dev.cotenant.cli.daemon.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.api.ServerDescription;
import dev.cotenant.cli.daemon.LineChannel;
import dev.cotenant.cli.daemon.api.ApiDaemon.Answer;
import dev.cotenant.gateway.pool.EntrySnapshot;
import dev.cotenant.gateway.sharing.ClientSession;
import dev.cotenant.gateway.sharing.SharingSettings;
import dev.cotenant.testkit.process.ChecksProcessLeaks;
import dev.cotenant.testkit.server.FakeServer;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * The pool over the API: a shared backend with two sessions, its memory and the totals the
 * contract defines; a restart; a drain.
 */
@ChecksProcessLeaks(waitMillis = 20_000)
class ApiBackendsTest extends ApiDaemonTest {
  private static final Map<String, Object> CLIENT = Map.of("protocolVersion", "2025-11-25", "capabilities", Map.of(),
      "clientInfo", Map.of("name", "api-test", "version", "1"));

  private ServerDescription echo;

  @BeforeEach
  void start() throws Exception {
    echo = FakeServer.builder().name("echo").era(FakeServer.Era.LEGACY).echo().build().description();
    api = ApiDaemon.start(dir, Map.of("echo", echo), Map.of(),
        Map.of(SharingSettings.ENABLED, "true", SharingSettings.FORCED, "echo"));
  }

  @Test
  void aSharedBackendWithTwoSessionsIsShownWithItsMemoryAndWhatTheSessionsWouldCostUnshared() throws Exception {
    // The daemon's configuration names the server by its configured entry; connect the same launch.
    ServerDescription configured = new dev.cotenant.cli.daemon.ServerDirectory(List.of(api.config)).find("echo", List.of()).description();
    try (ClientSession a = api.daemon.sharingRuntime().connect(configured, "session-a", CLIENT, m -> {});
        ClientSession b = api.daemon.sharingRuntime().connect(configured, "session-b", CLIENT, m -> {})) {
      List<EntrySnapshot> pool = api.daemon.sharingRuntime().accounting();
      assertEquals(1, pool.size(), pool.toString());
      Answer answer = api.get("/api/backends");
      assertEquals(200, answer.status(), answer.toString());
      JsonNode backends = answer.json().path("backends");
      assertEquals(1, backends.size(), answer.toString());
      JsonNode backend = backends.get(0);
      assertEquals("echo", backend.path("server").asString());
      assertEquals(pool.get(0).connectionId().substring(0, 16), backend.path("key").asString());
      assertEquals("shared", backend.path("placement").asString());
      assertTrue(backend.path("forced").asBoolean(), answer.toString());
      assertEquals(2, backend.path("sessions").asInt(), answer.toString());
      assertEquals(pool.get(0).pid().getAsLong(), backend.path("pid").asLong());
      assertEquals(1, backend.path("generation").asInt());
      long rss = backend.path("rssBytes").asLong();
      long pss = backend.path("pssBytes").asLong();
      long uss = backend.path("ussBytes").asLong();
      assertTrue(0 < uss && uss <= pss && pss <= rss, "the backend's memory is read, Uss <= Pss <= Rss: " + answer);
      assertEquals(treeSize(pool.get(0).pid().getAsLong()), backend.path("processes").asLong(),
          "every process of its tree (the bubblewrap pair too, where there is one): " + answer);
      assertTrue(backend.path("uptimeMs").asLong() >= 0, answer.toString());
      JsonNode totals = answer.json().path("totals");
      assertEquals(1, totals.path("backends").asInt());
      assertEquals(2, totals.path("sessions").asInt());
      assertEquals(rss, totals.path("rssBytes").asLong());
      assertEquals(pss, totals.path("pssBytes").asLong());
      assertEquals(2, totals.path("unsharedProcesses").asInt(), "a process per session without sharing");
      assertEquals(2 * rss, totals.path("unsharedRssBytes").asLong(), "its memory per session without sharing");
      assertEquals(answer.json().path("backends").get(0).path("server"),
          api.unix("GET", "/api/backends", null).json().path("backends").get(0).path("server"));

      Answer restarted = api.post("/api/backends/echo/restart", null);
      assertEquals(200, restarted.status(), restarted.toString());
      assertEquals(1, restarted.json().path("restarted").size(), restarted.toString());
      assertTrue(restarted.json().path("restarted").get(0).path("restarted").asBoolean(), restarted.toString());
      assertEquals(backend.path("key"), restarted.json().path("restarted").get(0).path("key"));
      JsonNode after = api.get("/api/backends").json().path("backends").get(0);
      assertEquals(2, after.path("generation").asInt(), after.toString());

      Answer drained = api.post("/api/backends/drain", "{\"force\":true,\"timeoutMs\":5000}");
      assertEquals(200, drained.status(), drained.toString());
      assertEquals(1, drained.json().path("drained").asInt() + drained.json().path("forced").asInt(), drained.toString());
      ApiDaemon.await("the pool to be empty", () -> api.daemon.sharingRuntime().accounting().isEmpty());
      assertEquals(0, api.get("/api/backends").json().path("totals").path("backends").asInt());

      // The daemon keeps serving after a drain: a new session starts a backend afresh. (It was
      // refused "the pool is draining" until a restart of the daemon.)
      try (ClientSession c = api.daemon.sharingRuntime().connect(configured, "session-c", CLIENT, m -> {})) {
        assertTrue(c.backendPid().isPresent(), "a backend for the new session");
        assertNotEquals(pool.get(0).pid().getAsLong(), c.backendPid().getAsLong(), "a new one");
        assertEquals(1, api.get("/api/backends").json().path("totals").path("backends").asInt());
      }
    }
  }

  /**
   * A session whose start the records answer waits without a backend: the answer's {@code servers}
   * says so, with why, and no backend runs; its first call starts one, and it is attached.
   */
  @Test
  void aSessionWaitingOnADeferredBackendIsShownPerServerWithWhy() throws Exception {
    ServerDescription configured = new dev.cotenant.cli.daemon.ServerDirectory(List.of(api.config)).find("echo", List.of())
        .description();
    dev.cotenant.spi.StartRecording start = new dev.cotenant.spi.StartRecording(
        new java.util.TreeMap<>(Map.of("2025-11-25", "2025-11-25")), List.of(),
        Map.of("capabilities", Map.of("tools", Map.of())), new java.util.TreeMap<>());
    api.runtime.recordStores().preflightCache().put(new dev.cotenant.spi.PreflightRecord("echo",
        api.runtime.identityOf(configured).cacheKey(), true, false, List.of(), 1.0, java.util.Optional.empty(),
        java.util.Optional.empty(), java.util.Optional.of(start), ""));
    java.util.concurrent.BlockingQueue<Map<String, Object>> got = new java.util.concurrent.LinkedBlockingQueue<>();
    try (ClientSession a = api.daemon.sharingRuntime().connect(configured, "waiting", CLIENT, got::add)) {
      assertTrue(a.deferred(), a.start().why());
      Answer answer = api.get("/api/backends");
      assertShapeIsDocumented(answer.json());
      assertEquals(0, answer.json().path("backends").size(), answer.toString());
      JsonNode echoServer = answer.json().path("servers").get(0);
      assertEquals("echo", echoServer.path("server").asString());
      assertEquals(1, echoServer.path("sessions").asInt());
      assertEquals(1, echoServer.path("waiting").asInt());
      assertEquals(0, echoServer.path("attached").asInt());
      assertEquals(0, echoServer.path("backends").asInt());
      assertEquals("its pre-flight recorded the same start for every caller, covering this client",
          echoServer.path("deferred").asString());
      assertEquals(1, answer.json().path("cost").path("direct").path("servers").get(0).path("unattached").asInt(),
          "its session still counts in what running it directly would cost: " + answer);

      a.fromClient(Map.of("jsonrpc", "2.0", "id", 1, "method", "tools/call",
          "params", Map.of("name", "echo", "arguments", Map.of("text", "hi"))));
      Map<String, Object> reply = got.poll(30, java.util.concurrent.TimeUnit.SECONDS);
      assertTrue(String.valueOf(reply).contains("hi"), String.valueOf(reply));
      JsonNode after = api.get("/api/backends").json();
      assertEquals(1, after.path("backends").size(), after.toString());
      assertEquals(0, after.path("servers").get(0).path("waiting").asInt());
      assertEquals(1, after.path("servers").get(0).path("attached").asInt());
      assertEquals(1, after.path("servers").get(0).path("backends").asInt());
    }
  }

  /**
   * Every object of the answer has exactly the properties {@code openapi.json} says, each one the
   * schema requires: the document and the answer cannot drift apart.
   */
  private static void assertShapeIsDocumented(JsonNode answer) throws Exception {
    JsonNode schema;
    try (java.io.InputStream in = ApiHandler.class.getResourceAsStream(ApiHandler.OPENAPI_RESOURCE)) {
      schema = ApiDaemon.JSON.readTree(in).path("components").path("schemas").path("Backends");
    }
    assertShape(schema, answer, "backends");
  }

  private static void assertShape(JsonNode schema, JsonNode value, String where) {
    if (value.isObject() && schema.has("properties")) {
      java.util.Set<String> documented = new java.util.TreeSet<>(schema.path("properties").propertyNames());
      java.util.Set<String> required = new java.util.TreeSet<>();
      schema.path("required").forEach(r -> required.add(r.asString()));
      java.util.Set<String> answered = new java.util.TreeSet<>(value.propertyNames());
      assertEquals(documented, answered, where + ": the answer's properties are the documented ones");
      assertEquals(documented, required, where + ": each is required");
      for (String k : answered) {
        assertShape(schema.path("properties").path(k), value.path(k), where + "." + k);
      }
    } else if (value.isArray() && schema.has("items")) {
      for (JsonNode item : value) {
        assertShape(schema.path("items"), item, where + "[]");
      }
    }
  }

  /** The processes of the tree under {@code pid}, read here independently of the API. */
  private static long treeSize(long pid) {
    return 1 + ProcessHandle.of(pid).map(h -> h.descendants().count()).orElse(0L);
  }

  /**
   * What sharing costs counts every process it takes: the backend's whole tree, the shim of every
   * client session (by the pid its hello names), attached to the backend or not yet, and the
   * daemon, against each session running the server directly. A shim that names no pid is
   * counted, and its memory is said to be missing rather than left out of a total.
   */
  @Test
  void theCostCountsTheShimsAndTheDaemonBesidesTheBackend() throws Exception {
    // Processes standing for shims: the daemon reads the memory of the pid the hello names.
    Process shimProcess = new ProcessBuilder("sleep", "300").start();
    Process waitingShim = new ProcessBuilder("sleep", "301").start();
    try (LineChannel named = api.shim("echo", shimProcess.pid(), api.config);
        LineChannel unnamed = api.shim("echo", 0, api.config);
        LineChannel waiting = api.shim("echo", waitingShim.pid(), api.config)) {
      for (LineChannel c : List.of(named, unnamed)) {
        c.writeLine(("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":"
            + ApiDaemon.JSON.writeValueAsString(CLIENT) + "}").getBytes(java.nio.charset.StandardCharsets.UTF_8));
        String line = new String(c.readLine(), java.nio.charset.StandardCharsets.UTF_8);
        // The daemon's own notice (where the session was placed) comes first: never a JSON-RPC message.
        while (line.contains("\"cotenant\"")) {
          line = new String(c.readLine(), java.nio.charset.StandardCharsets.UTF_8);
        }
        assertTrue(line.contains("\"result\""), "initialized: " + line);
      }
      // The third client has sent nothing yet: its session is not attached to a backend.
      JsonNode answer = api.get("/api/backends").json();
      JsonNode cost = answer.path("cost");
      long backendProcesses = treeSize(answer.path("backends").get(0).path("pid").asLong());
      assertEquals(1, answer.path("totals").path("backends").asInt(), answer.toString());
      assertEquals(2, answer.path("totals").path("sessions").asInt(), "the backend's: " + answer);
      assertEquals(backendProcesses, cost.path("now").path("backends").path("processes").asInt(), cost.toString());
      assertEquals(3, cost.path("now").path("shims").path("processes").asInt(), "every session's shim, attached or not: " + cost);
      assertEquals(1, cost.path("now").path("shims").path("unread").asInt(), "the shim that named no pid: " + cost);
      assertTrue(cost.path("now").path("shims").path("pssBytes").asLong() > 0, "the named shims' memory: " + cost);
      assertEquals(1, cost.path("now").path("daemon").path("processes").asInt(), "this JVM (no watchdog here): " + cost);
      assertTrue(cost.path("now").path("daemon").path("pssBytes").asLong() > 0, cost.toString());
      assertEquals(backendProcesses + 3 + 1, cost.path("now").path("processes").asInt(), "the backend's tree + 3 shims + the daemon: " + cost);
      assertTrue(cost.path("now").path("pssBytes").isNull(), "no total with a shim's memory missing: " + cost);
      JsonNode echo = cost.path("direct").path("servers").get(0);
      assertEquals("echo", echo.path("server").asString(), cost.toString());
      assertEquals(3, echo.path("sessions").asInt(), "the two attached and the one not yet: " + cost);
      assertEquals(1, echo.path("unattached").asInt(), cost.toString());
      assertEquals("now", echo.path("figures").asString(), cost.toString());
      long each = echo.path("processesEach").asLong();
      assertTrue(each >= 1 && each <= backendProcesses, cost.toString());
      assertEquals(3 * echo.path("ussBytesEach").asLong() + echo.path("sharedPssBytes").asLong(), echo.path("pssBytes").asLong(),
          "each session the server's private memory, the shared pages once: " + cost);
      assertEquals(echo.path("pssBytes").asLong(), cost.path("direct").path("pssBytes").asLong(), cost.toString());
      assertEquals(3 * each, cost.path("direct").path("processes").asInt(), "a copy of the server per session run directly: " + cost);
      assertEquals(3 * each - (backendProcesses + 4), cost.path("saved").path("processes").asInt(), cost.toString());
      assertEquals(1, cost.path("missing").size(), cost.toString());
      assertTrue(cost.path("missing").get(0).asString().startsWith("the memory of 1 shim: it named no live process"), cost.toString());
      assertShapeIsDocumented(answer);
    } finally {
      for (Process p : List.of(shimProcess, waitingShim)) {
        p.destroyForcibly();
        p.waitFor();
      }
    }
  }
}
