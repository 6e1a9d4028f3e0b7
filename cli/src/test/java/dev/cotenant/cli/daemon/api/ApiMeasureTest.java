package dev.cotenant.cli.daemon.api;

import static dev.cotenant.cli.daemon.api.ApiDaemon.assertError;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.api.ServerDescription;
import dev.cotenant.cli.daemon.api.ApiDaemon.Answer;
import dev.cotenant.testkit.process.ChecksProcessLeaks;
import dev.cotenant.testkit.process.Processes;
import dev.cotenant.testkit.server.FakeServer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Measure jobs over the API on a real daemon: a job progresses to its end and the rows then show
 * the measurement; one job at a time; a job is cancelled and tears its processes down; the stub
 * action then writes the overrides as {@code BulkStub} does.
 */
@ChecksProcessLeaks(waitMillis = 20_000)
class ApiMeasureTest extends ApiDaemonTest {
  private static ServerDescription echo(String name) {
    return FakeServer.builder().name(name).echo().build().description();
  }

  /** Starts the daemon with two echo servers, {@code echo-a} then {@code echo-b}, and no settings. */
  private void startTwoEchoes() throws Exception {
    Map<String, ServerDescription> servers = new LinkedHashMap<>();
    servers.put("echo-a", echo("echo-a"));
    servers.put("echo-b", echo("echo-b"));
    api = ApiDaemon.start(dir, servers, Map.of(), Map.of());
  }

  @Test
  void aJobProgressesUntilEveryServerIsMeasuredAndTheRowsThenShowIt() throws Exception {
    startTwoEchoes();
    for (JsonNode row : api.get("/api/rows").json().path("servers")) {
      assertEquals("unknown", row.path("strength").asString(), row.toString());
    }
    Answer started = api.post("/api/measure", "{}");
    assertEquals(202, started.status(), started.toString());
    assertTrue(started.json().path("running").asBoolean(), started.toString());
    assertFalse(started.json().path("startedAt").isNull(), started.toString());

    List<JsonNode> seen = new ArrayList<>();
    ApiDaemon.await("the measure job to end", () -> {
      JsonNode p = api.progress();
      seen.add(p);
      return !p.path("running").asBoolean();
    });
    JsonNode done = seen.get(seen.size() - 1);
    assertEquals(2, done.path("total").asInt(), done.toString());
    assertEquals(done.path("total").asInt(), done.path("measured").asInt(), done.toString());
    assertEquals(2, done.path("done").asInt(), done.toString());
    assertEquals(0, done.path("current").size(), done.toString());
    assertFalse(done.path("cancelled").asBoolean());
    assertTrue(done.path("error").isNull(), done.toString());
    assertFalse(done.path("finishedAt").isNull(), done.toString());
    int measured = 0;
    for (JsonNode p : seen) {
      assertTrue(p.path("measured").asInt() >= measured, "progress only grows: " + seen);
      measured = p.path("measured").asInt();
    }
    for (JsonNode row : api.get("/api/rows").json().path("servers")) {
      assertEquals("measured", row.path("strength").asString(), row.toString());
    }
    assertEquals(api.cli("assess", api.config.toString()).path("servers"), api.get("/api/rows").json().path("servers"));

    Answer again = api.post("/api/measure", "{\"servers\":[\"echo-a\"]}");
    assertEquals(202, again.status(), again.toString());
    ApiDaemon.await("the second job to end", () -> !api.progress().path("running").asBoolean());
    assertEquals(0, api.progress().path("total").asInt(), "a server measured under its identity is not measured again");
  }

  @Test
  void theStubActionWritesTheOverridesOfTheServersItStubs() throws Exception {
    startTwoEchoes();
    Answer unmeasured = api.post("/api/stub", "{\"servers\":[\"echo-a\"]}");
    assertEquals(200, unmeasured.status(), unmeasured.toString());
    assertEquals(0, unmeasured.json().path("stubbed").size(), "an unknown server is not stubbed: " + unmeasured);
    assertTrue(unmeasured.json().path("skipped").has("echo-a"), unmeasured.toString());

    assertEquals(202, api.post("/api/measure", "{\"servers\":[\"echo-a\"]}").status());
    ApiDaemon.await("the measure job to end", () -> !api.progress().path("running").asBoolean());
    Answer stubbed = api.post("/api/stub", "{\"servers\":[\"echo-a\",\"echo-b\"],\"config\":\"" + api.config + "\"}");
    assertEquals(200, stubbed.status(), stubbed.toString());
    assertEquals(api.JSON.readTree("{\"config\":\"" + api.config + "\",\"stubbed\":[\"echo-a\"],"
        + "\"skipped\":{\"echo-b\":\"the verdict does not recommend routing it through Cotenant (unknown)\"},\"sharing\":false}"), stubbed.json());
    JsonNode file = api.JSON.readTree(api.config.toFile());
    assertEquals(api.JSON.readTree("{\"echo-a\":true}"), file.path("cotenant").path("stubOverrides"), file.toString());
    assertEquals(2, file.path("mcpServers").size(), "the servers are kept");
  }

  @Test
  void oneJobAtATimeAndACancelledJobEndsCancelled() throws Exception {
    // The mute server never answers its pre-flight: the job runs until it is cancelled.
    Map<String, ServerDescription> servers = new LinkedHashMap<>();
    servers.put("mute", FakeServer.builder().name("mute").silent().build().description());
    api = ApiDaemon.start(dir, servers, Map.of(), Map.of("cotenant.preflight.timeout-ms", "600000"));
    assertEquals(202, api.post("/api/measure", "{}").status());
    ApiDaemon.await("the mute server to be measured", () -> api.progress().path("current").toString().equals("[\"mute\"]"));
    assertError(409, "measure_running", api.post("/api/measure", "{}"));
    assertError(409, "measure_running", api.unix("POST", "/api/measure", "{}"));
    JsonNode running = api.progress();
    assertTrue(running.path("running").asBoolean(), running.toString());
    assertEquals(1, running.path("total").asInt(), running.toString());

    Answer cancel = api.delete("/api/measure");
    assertEquals(200, cancel.status(), cancel.toString());
    assertTrue(cancel.json().path("cancelled").asBoolean(), cancel.toString());
    ApiDaemon.await("the cancelled job to end", () -> !api.progress().path("running").asBoolean());
    JsonNode ended = api.progress();
    assertTrue(ended.path("cancelled").asBoolean(), ended.toString());
    assertEquals(0, ended.path("measured").asInt(), ended.toString());
    assertTrue(ended.path("error").isNull(), "a cancellation is not an error: " + ended);
    assertEquals(0, ended.path("current").size(), ended.toString());
    assertFalse(ended.path("finishedAt").isNull(), ended.toString());
    assertError(404, "not_found", api.delete("/api/measure"));
  }

  /**
   * Stopping the daemon while a job runs cancels the job, and the servers it started are gone
   * when the stop returns. Mutants: {@code ApiHandler.close} without {@code MeasureJobs.close},
   * and {@code MeasureJobs.close} without the job's {@code cancel}: the job ran on, its server
   * still waited for an answer, after the daemon had stopped.
   */
  @Test
  void stoppingTheDaemonCancelsARunningJobAndEndsItsServers() throws Exception {
    Set<Long> before = new HashSet<>();
    ProcessHandle.current().descendants().forEach(p -> before.add(p.pid()));
    Map<String, ServerDescription> servers = Map.of("mute", FakeServer.builder().name("mute").silent().build()
        .description());
    api = ApiDaemon.start(dir, servers, Map.of(), Map.of("cotenant.preflight.timeout-ms", "600000"));
    assertEquals(202, api.post("/api/measure", "{}").status());
    ApiDaemon.await("the mute server to be measured", () -> api.progress().path("current").toString().equals("[\"mute\"]"));
    List<ProcessHandle> started = new ArrayList<>();
    ApiDaemon.await("the mute server's process", () -> {
      started.clear();
      ProcessHandle.current().descendants().filter(p -> !before.contains(p.pid())).forEach(started::add);
      return !started.isEmpty();
    });
    api.close();
    api = null;
    for (ProcessHandle p : started) {
      assertFalse(Processes.running(p), "process " + p.pid() + " of the job outlived the daemon's stop");
    }
  }
}
