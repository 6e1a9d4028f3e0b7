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
      assertTrue(rss > 0, "the backend's memory is read: " + answer);
      assertTrue(backend.path("uptimeMs").asLong() >= 0, answer.toString());
      JsonNode totals = answer.json().path("totals");
      assertEquals(1, totals.path("backends").asInt());
      assertEquals(2, totals.path("sessions").asInt());
      assertEquals(rss, totals.path("rssBytes").asLong());
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
   * What sharing costs counts every process it takes: the backend, each shim attached to it (by the
   * pid its hello names) and the daemon, against a process per session run directly. A shim that
   * names no pid is counted, and its memory is said to be missing rather than left out of a total.
   */
  @Test
  void theCostCountsTheShimsAndTheDaemonBesidesTheBackend() throws Exception {
    // A process standing for a shim: the daemon reads the memory of the pid the hello names.
    Process shimProcess = new ProcessBuilder("sleep", "300").start();
    try (LineChannel named = api.shim("echo", shimProcess.pid(), api.config);
        LineChannel unnamed = api.shim("echo", 0, api.config)) {
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
      JsonNode answer = api.get("/api/backends").json();
      JsonNode cost = answer.path("cost");
      assertEquals(1, answer.path("totals").path("backends").asInt(), answer.toString());
      assertEquals(2, answer.path("totals").path("sessions").asInt(), answer.toString());
      assertEquals(1, cost.path("now").path("backends").path("processes").asInt(), cost.toString());
      assertEquals(2, cost.path("now").path("shims").path("processes").asInt(), cost.toString());
      assertEquals(1, cost.path("now").path("shims").path("unread").asInt(), "the shim that named no pid: " + cost);
      assertTrue(cost.path("now").path("shims").path("rssBytes").asLong() > 0, "the named shim's memory: " + cost);
      assertEquals(1, cost.path("now").path("daemon").path("processes").asInt(), "this JVM (no watchdog here): " + cost);
      assertTrue(cost.path("now").path("daemon").path("rssBytes").asLong() > 0, cost.toString());
      assertEquals(4, cost.path("now").path("processes").asInt(), "1 backend + 2 shims + the daemon: " + cost);
      assertTrue(cost.path("now").path("rssBytes").isNull(), "no total with a shim's memory missing: " + cost);
      assertEquals(2, cost.path("direct").path("processes").asInt(), "a process per session run directly: " + cost);
      assertEquals(-2, cost.path("saved").path("processes").asInt(), cost.toString());
      assertEquals(1, cost.path("missing").size(), cost.toString());
      assertTrue(cost.path("missing").get(0).asString().startsWith("the memory of 1 shim: it named no live process"), cost.toString());
    } finally {
      shimProcess.destroyForcibly();
      shimProcess.waitFor();
    }
  }
}
