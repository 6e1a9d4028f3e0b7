package dev.cotenant.cli.daemon.api;

import static dev.cotenant.cli.daemon.api.ApiDaemon.assertError;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.cli.daemon.api.ApiDaemon.Answer;
import dev.cotenant.testkit.process.ChecksProcessLeaks;
import dev.cotenant.testkit.server.FakeServer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * {@code POST /api/share} runs what {@code cotenant share NAME} does, on the daemon, as a job whose
 * steps {@code GET /api/share} shows as they are done; one at a time; the refusals of the other
 * routes that name a server.
 */
@ChecksProcessLeaks(waitMillis = 20_000)
class ApiShareTest {
  @TempDir Path dir;

  @Test
  void aShareStartedOverTheApiTakesAServerToSharedAndShowsEachStep() throws Exception {
    try (ApiDaemon api = ApiDaemon.start(dir, Map.of("echo", FakeServer.builder().name("echo").echo().build().description()),
        Map.of(), Map.of(dev.cotenant.gateway.sharing.SharingSettings.ENABLED, "true"))) {
      JsonNode idle = api.get("/api/share").json();
      assertEquals(false, idle.path("running").asBoolean(), idle.toString());
      assertTrue(idle.path("result").isNull() && idle.path("server").isNull(), idle.toString());

      Map<Path, String> before = api.written();
      assertError(404, "unknown_server", api.post("/api/share", "{\"server\":\"nope\"}"));
      assertError(400, "bad_request", api.post("/api/share", "{\"server\":\"echo\",\"rounds\":2}"));
      assertError(400, "bad_request", api.post("/api/share", "{\"server\":\"echo\",\"maxConcurrent\":0}"));
      assertError(400, "bad_request", api.post("/api/share", "{}"));
      api.assertUnchanged(before, "a refused share writes nothing");

      Answer started = api.post("/api/share", "{\"server\":\"echo\"}");
      assertEquals(202, started.status(), started.toString());
      assertEquals("echo", started.json().path("server").asString());
      assertTrue(started.json().path("running").asBoolean(), started.toString());
      assertError(409, "share_running", api.post("/api/share", "{\"server\":\"echo\"}"));

      List<Integer> seen = new ArrayList<>();
      ApiDaemon.await("the share to end", () -> {
        JsonNode s = state(api);
        seen.add(s.path("steps").size());
        return !s.path("running").asBoolean();
      });
      JsonNode done = state(api);
      JsonNode result = done.path("result");
      assertEquals(0, done.path("exitStatus").asInt(), done.toString());
      assertTrue(done.path("error").isNull(), done.toString());
      assertTrue(result.path("shared").asBoolean(), done.toString());
      assertEquals("echo now shares one backend across sessions", result.path("message").asString());
      List<String> steps = new ArrayList<>();
      result.path("steps").forEach(st -> steps.add(st.path("step").asString() + "=" + st.path("result").asString()));
      assertEquals(List.of("assess=unknown", "measure=measured", "probe=passed", "register=registered", "verdict=declared"), steps);
      assertEquals(result.path("steps"), done.path("steps"), "the steps as they came are the steps of the result");
      assertTrue(seen.stream().anyMatch(n -> n > 0 && n < 5), "steps were shown before the end: " + seen);
      assertEquals(2, result.path("steps").get(3).path("record").path("maxConcurrent").asInt(), result.toString());
      assertEquals("declared", result.path("server").path("strength").asString());
      assertEquals("shared", result.path("server").path("placement").asString(), "under the daemon's own settings");
      assertEquals(api.get("/api/rows").json().path("servers").get(0), result.path("server"), "the row the API shows now");

      // Once shared, a share stops at the first step, as the command does.
      assertEquals(202, api.post("/api/share", "{\"server\":\"echo\"}").status());
      ApiDaemon.await("the second share to end", () -> !state(api).path("running").asBoolean());
      JsonNode again = state(api).path("result");
      assertEquals(1, again.path("steps").size(), again.toString());
      assertEquals("echo already shares one backend across sessions", again.path("message").asString());
    }
  }

  private static JsonNode state(ApiDaemon api) {
    try {
      Answer a = api.get("/api/share");
      assertEquals(200, a.status(), a.toString());
      return a.json();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
