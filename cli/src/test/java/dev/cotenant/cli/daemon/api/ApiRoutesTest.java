package dev.cotenant.cli.daemon.api;

import static dev.cotenant.cli.daemon.api.ApiDaemon.assertError;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.cli.daemon.api.ApiDaemon.Answer;
import dev.cotenant.testkit.process.ChecksProcessLeaks;
import dev.cotenant.testkit.server.FakeServer;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Every route of the API against a real daemon in this JVM: the answers are the commands'
 * {@code --json}, and every refusal (malformed body, unknown server, missing token, foreign
 * origin or host, unknown route, wrong method) answers the contract's status and code and writes
 * nothing.
 */
@ChecksProcessLeaks(waitMillis = 20_000)
class ApiRoutesTest extends ApiDaemonTest {
  /** Each route that takes a body, with a body it would act on. */
  private static final Map<String, String> WRITING_BODIES = new LinkedHashMap<>();

  static {
    WRITING_BODIES.put("/api/measure", "{\"servers\":[\"echo\"]}");
    WRITING_BODIES.put("/api/hazards", "{\"server\":\"echo\",\"code\":\"cross_session_leak\",\"attachedSessions\":2}");
    WRITING_BODIES.put("/api/stub", "{\"servers\":[\"echo\"]}");
    WRITING_BODIES.put("/api/seed", "{}");
    WRITING_BODIES.put("/api/backends/echo/restart", "{}");
    WRITING_BODIES.put("/api/backends/drain", "{}");
    WRITING_BODIES.put("/api/probe", "{\"server\":\"echo\"}");
    WRITING_BODIES.put("/api/register", "{\"server\":\"echo\",\"model\":\"sidecar\"}");
    WRITING_BODIES.put("/api/share", "{\"server\":\"echo\"}");
  }

  @BeforeEach
  void start() throws Exception {
    api = ApiDaemon.start(dir, Map.of("echo", FakeServer.builder().name("echo").echo().build().description()),
        Map.of(), Map.of());
  }

  @Test
  void rowsAreWhatAssessJsonPrints() throws Exception {
    Answer rows = api.get("/api/rows");
    assertEquals(200, rows.status(), rows.toString());
    assertEquals("application/json", rows.headers().get("Content-Type"));
    assertEquals(api.cli("assess", api.config.toString()).path("servers"), rows.json().path("servers"));
    assertEquals(api.JSON.readTree("[{\"path\":\"" + api.config + "\",\"from\":\"serve\"}]"), rows.json().path("files"),
        "the files the rows come from, and who named them");
    JsonNode row = rows.json().path("servers").get(0);
    assertEquals("echo", row.path("name").asString());
    assertEquals("dedicated", row.path("placement").asString());
    assertFalse(rows.text().contains("env"), "no answer carries a server's env: " + rows);
  }

  @Test
  void hazardsAreRecordedUnderTheCurrentIdentityListedAsTheCliListsThemAndCleared() throws Exception {
    assertEquals(api.cli("hazards", "list"), api.get("/api/hazards").json());
    Answer recorded = api.post("/api/hazards", WRITING_BODIES.get("/api/hazards"));
    assertEquals(201, recorded.status(), recorded.toString());
    assertTrue(recorded.json().path("recorded").asBoolean(), recorded.toString());
    Answer listed = api.get("/api/hazards");
    assertEquals(api.cli("hazards", "list"), listed.json(), "flushed: another process reads it");
    JsonNode identities = listed.json().path("servers").get(0).path("identities");
    assertEquals(1, identities.size(), listed.toString());
    assertEquals(List.of("cross_session_leak"), List.of(identities.get(0).path("codes").get(0).asString()));
    assertFalse(identities.get(0).path("identity").asString().isEmpty(), "attributed to the current identity");

    Answer one = api.post("/api/hazards", "{\"server\":\"echo\",\"code\":\"cross_session_leak\",\"attachedSessions\":1}");
    assertEquals(201, one.status(), one.toString());
    assertFalse(one.json().path("recorded").asBoolean(), "one attached session is a 1:1 backend: nothing recorded");

    Map<Path, String> before = api.written();
    assertError(400, "bad_request", api.post("/api/hazards", "{\"server\":\"echo\",\"code\":\"no_such_hazard\",\"attachedSessions\":2}"));
    assertError(400, "bad_request", api.post("/api/hazards", "{\"server\":\"echo\",\"code\":\"cross_session_leak\",\"attachedSessions\":0}"));
    assertError(400, "bad_request", api.post("/api/hazards", "{\"server\":\"echo\",\"code\":\"cross_session_leak\",\"attachedSessions\":2,\"extra\":1}"));
    api.assertUnchanged(before, "a refused hazard writes nothing");

    Answer cleared = api.delete("/api/hazards/echo");
    assertEquals(200, cleared.status(), cleared.toString());
    assertEquals(api.JSON.readTree("{\"name\":\"echo\",\"cleared\":true}"), cleared.json());
    assertEquals(api.JSON.readTree("{\"servers\":[]}"), api.get("/api/hazards").json());
    assertFalse(api.delete("/api/hazards/echo").json().path("cleared").asBoolean(), "nothing left to clear");
    assertError(404, "unknown_server", api.delete("/api/hazards/nope"));
  }

  @Test
  void seedPlansAsTheCliPrintsAndAppliesIntoTheConfig() throws Exception {
    measure();
    Answer plan = api.get("/api/seed");
    assertEquals(200, plan.status(), plan.toString());
    assertEquals(api.cli("seed", "--config", api.config.toString()), plan.json());
    assertEquals(plan.json(), api.get("/api/seed?config=" + api.config).json(), "the first file is the default");
    Map<Path, String> before = api.written();
    assertError(400, "bad_request", api.get("/api/seed?config=" + dir.resolve("other.json")));
    assertError(400, "bad_request", api.get("/api/seed?config=mcp.json"));
    assertError(400, "bad_request", api.post("/api/seed", "{\"config\":\"" + dir.resolve("other.json") + "\"}"));
    api.assertUnchanged(before, "a refused seed writes nothing");

    Answer applied = api.post("/api/seed", "{\"config\":\"" + api.config + "\"}");
    assertEquals(200, applied.status(), applied.toString());
    assertTrue(applied.json().path("applied").asBoolean(), applied.toString());
    assertEquals(plan.json().path("stubOverrides"), applied.json().path("stubOverrides"));
    assertEquals(api.JSON.readTree("{\"echo\":true}"), applied.json().path("stubOverrides"), "a measured server is stubbed");
    JsonNode file = api.JSON.readTree(api.config.toFile());
    assertEquals(applied.json().path("stubOverrides"), file.path("cotenant").path("stubOverrides"), file.toString());
  }

  /** Measures every server through the API and waits for the job to end. */
  private void measure() throws Exception {
    assertEquals(202, api.post("/api/measure", "{}").status());
    ApiDaemon.await("the measure job to end", () -> !api.progress().path("running").asBoolean());
  }

  @Test
  void registrationIsRefusedWithoutAProbeAndStoredAfterOne() throws Exception {
    Answer refused = api.post("/api/register", "{\"server\":\"echo\",\"model\":\"shared\",\"maxConcurrent\":4}");
    assertError(409, "refused", refused);
    assertTrue(refused.json().path("message").asString().contains("probe"), refused.toString());
    assertFalse(java.nio.file.Files.exists(api.records.resolve("concurrency-records.json")), "a refusal stores no record");
    Map<Path, String> before = api.written();
    assertError(400, "bad_request", api.post("/api/register", "{\"server\":\"echo\",\"model\":\"roommates\"}"));
    assertError(400, "bad_request", api.post("/api/register", "{\"server\":\"echo\",\"model\":\"shared\",\"maxConcurrent\":0}"));
    assertError(400, "bad_request", api.post("/api/probe", "{\"server\":\"echo\",\"rounds\":2}"));
    api.assertUnchanged(before, "refusals write nothing");

    Answer probe = api.post("/api/probe", "{\"server\":\"echo\",\"rounds\":3}");
    assertEquals(200, probe.status(), probe.toString());
    assertEquals("echo", probe.json().path("name").asString());
    assertEquals("whole-surface", probe.json().path("scope").asString());
    assertEquals("passed", probe.json().path("outcome").asString(), probe.toString());
    assertEquals("statelessness_probe_passed", probe.json().path("recorded").asString());

    Answer stored = api.post("/api/register", "{\"server\":\"echo\",\"model\":\"shared\",\"maxConcurrent\":4}");
    assertEquals(200, stored.status(), stored.toString());
    assertEquals("shared", stored.json().path("model").asString());
    assertEquals("tenant", stored.json().path("scope").asString());
    assertEquals(4, stored.json().path("maxConcurrent").asInt());
    assertEquals(3, stored.json().path("probe").path("rounds").asInt(), stored.toString());
    assertTrue(api.get("/api/rows").text().contains("registered_shared"), "the rows read the registration");
  }

  @Test
  void backendsWithoutSessionsAreEmptyARestartFindsNoneAndADrainDrainsNothing() throws Exception {
    JsonNode none = api.get("/api/backends").json();
    assertEquals(api.JSON.readTree("[]"), none.path("backends"));
    assertEquals(api.JSON.readTree("{\"backends\":0,\"sessions\":0,\"pssBytes\":0,\"rssBytes\":0,"
        + "\"unsharedProcesses\":0,\"unsharedRssBytes\":0}"), none.path("totals"));
    assertEquals(1, none.path("cost").path("now").path("processes").asInt(), "the daemon alone: " + none);
    assertEquals(0, none.path("cost").path("direct").path("processes").asInt(), none.toString());
    assertEquals(-1, none.path("cost").path("saved").path("processes").asInt(), none.toString());
    assertError(404, "not_found", api.post("/api/backends/echo/restart", null));
    assertError(404, "unknown_server", api.post("/api/backends/nope/restart", null));
    Answer drained = api.post("/api/backends/drain", "{\"force\":true,\"timeoutMs\":1000}");
    assertEquals(200, drained.status(), drained.toString());
    assertEquals(api.JSON.readTree("{\"drained\":0,\"forced\":0,\"errors\":[]}"), drained.json());
    assertError(400, "bad_request", api.post("/api/backends/drain", "{\"timeoutMs\":-1}"));
    assertError(400, "bad_request", api.post("/api/backends/drain", "{\"force\":\"yes\"}"));
  }

  @Test
  void aMalformedBodyIsBadJsonOnEveryRouteThatTakesOneAndWritesNothing() throws Exception {
    Map<Path, String> before = api.written();
    for (String path : WRITING_BODIES.keySet()) {
      for (String bad : List.of("{not json", "{\"servers\":[\"echo\"]", "{} {}", "\"unterminated")) {
        assertError(400, "bad_json", api.post(path, bad));
      }
      assertError(400, "bad_request", api.post(path, "[]"));
    }
    api.assertUnchanged(before, "no records and no configuration written");
    assertTrue(api.get("/api/measure").json().path("startedAt").isNull(), "no measure job started");
  }

  @Test
  void anUnknownServerIs404OnEveryRouteThatNamesOneAndWritesNothing() throws Exception {
    Map<Path, String> before = api.written();
    assertError(404, "unknown_server", api.post("/api/measure", "{\"servers\":[\"echo\",\"nope\"]}"));
    assertError(404, "unknown_server", api.post("/api/hazards", "{\"server\":\"nope\",\"code\":\"cross_session_leak\",\"attachedSessions\":2}"));
    assertError(404, "unknown_server", api.post("/api/stub", "{\"servers\":[\"echo\",\"nope\"]}"));
    assertError(404, "unknown_server", api.post("/api/backends/nope/restart", "{}"));
    assertError(404, "unknown_server", api.post("/api/probe", "{\"server\":\"nope\"}"));
    assertError(404, "unknown_server", api.post("/api/register", "{\"server\":\"nope\",\"model\":\"sidecar\"}"));
    assertError(404, "unknown_server", api.post("/api/share", "{\"server\":\"nope\"}"));
    assertError(404, "unknown_server", api.delete("/api/hazards/nope"));
    api.assertUnchanged(before, "no records and no configuration written");
    assertTrue(api.get("/api/measure").json().path("startedAt").isNull(), "no measure job started");
  }

  @Test
  void withoutTheTokenOrFromAForeignOriginOrHostNothingIsServedOrWritten() throws Exception {
    Map<Path, String> before = api.written();
    for (String route : ApiHandler.routeTable()) {
      String method = route.substring(0, route.indexOf(' '));
      String path = route.substring(route.indexOf(' ') + 1).replace("{server}", "echo");
      String body = WRITING_BODIES.get(path);
      Answer none = api.sendRaw(method, path, body, Map.of());
      assertError(401, "unauthorized", none);
      assertEquals("Bearer", none.headers().get("WWW-Authenticate"), route);
      assertError(401, "unauthorized", api.sendRaw(method, path, body, Map.of("Authorization", "Bearer " + "0".repeat(64))));
      assertError(403, "forbidden_origin", api.send(method, path, body, Map.of("Origin", "https://evil.example")));
      assertError(403, "forbidden_host", api.tcp(method, path, body,
          Map.of("Host", "evil.example", "Authorization", "Bearer " + api.token)));
    }
    api.assertUnchanged(before, "no records and no configuration written");
    assertTrue(api.get("/api/measure").json().path("startedAt").isNull(), "no measure job started");
    assertEquals(200, api.send("GET", "/api/rows", null, Map.of("Origin", "http://127.0.0.1:1234")).status(),
        "a loopback origin passes");
  }

  @Test
  void anUnknownRouteIsNotFoundAndAWrongMethodIsNotAllowed() throws Exception {
    Answer missing = api.get("/api/nothing-here");
    assertError(404, "not_found", missing);
    assertTrue(missing.json().path("message").asString().startsWith(ApiHandler.NO_ROUTE), missing.toString());
    assertError(404, "not_found", api.get("/api/hazards/echo/more"));
    Answer put = api.send("PUT", "/api/rows", "{}", Map.of());
    assertError(405, "method_not_allowed", put);
    assertEquals("GET", put.headers().get("Allow"));
    Answer getHazard = api.get("/api/hazards/echo");
    assertError(405, "method_not_allowed", getHazard);
    assertEquals("DELETE", getHazard.headers().get("Allow"));
    assertEquals("POST, GET, DELETE", api.send("PATCH", "/api/measure", "{}", Map.of()).headers().get("Allow"));
  }

  @Test
  void noMeasureJobToCancelIsNotFoundAndTheProgressIsAllZerosBeforeAny() throws Exception {
    assertEquals(api.JSON.readTree("{\"running\":false,\"done\":0,\"measured\":0,\"total\":0,\"current\":[],"
        + "\"cancelled\":false,\"error\":null,\"startedAt\":null,\"finishedAt\":null}"), api.get("/api/measure").json());
    assertError(404, "not_found", api.delete("/api/measure"));
  }
}
