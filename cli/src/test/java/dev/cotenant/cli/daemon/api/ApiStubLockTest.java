package dev.cotenant.cli.daemon.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.cli.daemon.api.ApiDaemon.Answer;
import dev.cotenant.gateway.config.GatewaySettings;
import dev.cotenant.gateway.config.LockedJsonFile;
import dev.cotenant.testkit.process.ChecksProcessLeaks;
import dev.cotenant.testkit.server.FakeServer;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The bulk stub action decides inside the configuration file's lock: a second writer holds the
 * lock, flips {@code cotenant.sharing} while the API's request waits for it, and releases it; the
 * answer ({@code sharing}, {@code stubbed}, {@code skipped}) follows the switch as that writer
 * wrote it, not as it was when the request arrived.
 *
 * <p>The server is measured first, so it is recommended for a stub (1:1) but not for sharing:
 * with sharing off it is stubbed, with sharing on it is skipped.
 */
@ChecksProcessLeaks(waitMillis = 20_000)
class ApiStubLockTest extends ApiDaemonTest {
  @ParameterizedTest(name = "sharing {0} when the request arrives, flipped while it waits")
  @ValueSource(booleans = {false, true})
  void theAnswerFollowsTheSwitchAsTheWriterHoldingTheLockLeftIt(boolean before) throws Exception {
    api = ApiDaemon.start(dir, Map.of("echo", FakeServer.builder().name("echo").echo().build().description()),
        Map.of("sharing", before), Map.of());
    assertEquals(202, api.post("/api/measure", "{}").status());
    ApiDaemon.await("the measure job to end", () -> !api.progress().path("running").asBoolean());
    JsonNode row = api.get("/api/rows").json().path("servers").get(0);
    assertTrue(row.path("recommendStub").asBoolean() && !row.path("recommendShare").asBoolean(), row.toString());

    CountDownLatch held = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> {
      try {
        new LockedJsonFile(api.config).update(false, root -> {
          GatewaySettings.section(api.config, root).put("sharing", !before);
          held.countDown();
          try {
            release.await();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          return null;
        });
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    });
    CompletableFuture<Answer> request;
    try {
      assertTrue(held.await(ApiDaemon.DEADLINE.toSeconds(), TimeUnit.SECONDS), "the writer holds the lock");
      request = CompletableFuture.supplyAsync(() -> {
        try {
          return api.post("/api/stub", "{\"servers\":[\"echo\"]}");
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      });
      ApiDaemon.await("the API's request to wait for the configuration file's lock", ApiStubLockTest::aRequestWaitsForTheLock);
      assertFalse(request.isDone(), "the request waits while the writer holds the lock");
    } finally {
      release.countDown();
    }
    writer.get(ApiDaemon.DEADLINE.toSeconds(), TimeUnit.SECONDS);
    Answer answer = request.get(ApiDaemon.DEADLINE.toSeconds(), TimeUnit.SECONDS);
    assertEquals(200, answer.status(), answer.toString());
    boolean after = !before;
    assertEquals(after, answer.json().path("sharing").asBoolean(), answer.toString());
    JsonNode file = api.JSON.readTree(api.config.toFile());
    assertEquals(after, file.path("cotenant").path("sharing").asBoolean(), "the writer's switch is kept: " + file);
    if (after) {
      assertEquals(0, answer.json().path("stubbed").size(), answer.toString());
      assertEquals("sharing is on and the verdict does not recommend sharing (measured)",
          answer.json().path("skipped").path("echo").asString(), answer.toString());
      assertFalse(file.path("cotenant").path("stubOverrides").path("echo").asBoolean(), file.toString());
    } else {
      assertEquals("[\"echo\"]", answer.json().path("stubbed").toString(), answer.toString());
      assertEquals(0, answer.json().path("skipped").size(), answer.toString());
      assertTrue(file.path("cotenant").path("stubOverrides").path("echo").asBoolean(), file.toString());
    }
  }

  /** True when a request thread of the daemon is parked in the configuration file's lock. */
  private static boolean aRequestWaitsForTheLock() {
    return Thread.getAllStackTraces().entrySet().stream().anyMatch(e ->
        e.getKey().getName().startsWith("cotenant-http")
            && e.getKey().getState() == Thread.State.WAITING
            && Arrays.stream(e.getValue()).anyMatch(f ->
                f.getClassName().equals("dev.cotenant.gateway.config.ConfigFileLock") && f.getMethodName().equals("hold")));
  }
}
