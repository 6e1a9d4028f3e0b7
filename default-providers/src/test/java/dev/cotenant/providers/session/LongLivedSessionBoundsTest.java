package dev.cotenant.providers.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.providers.preflight.PreflightSettings;
import dev.cotenant.providers.preflight.StdioPreflightTransportProvider;
import dev.cotenant.spi.HandshakeEra;
import dev.cotenant.spi.PreflightResult;
import dev.cotenant.spi.PreflightTransport;
import dev.cotenant.spi.ProviderConfig;
import dev.cotenant.spi.ProviderContext;
import dev.cotenant.spi.ServerMessageHandler;
import dev.cotenant.spi.ServerSession;
import dev.cotenant.spi.SessionTransport;
import dev.cotenant.testkit.server.FakeServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A long-lived session is not bounded by the pre-flight's totals: with the pre-flight's message
 * bound at {@value #BOUND} in the configuration, a backend session of the runtime's {@code stdio}
 * session transport reads far more messages and keeps serving, while a pre-flight over that same
 * transport, with that same configuration, still stops at the bound with its clear message. Were
 * the session transport to read the pre-flight's bounds, the session would end during its
 * handshake.
 */
@Timeout(120)
class LongLivedSessionBoundsTest {
  private static final int BOUND = 50;

  /** Talkative at start: more notifications before the {@code initialize} answer than the bound allows. */
  private static final FakeServer SERVER = FakeServer.builder().name("talkative").era(FakeServer.Era.LEGACY)
      .tool("echo").notifiesBeforeInitialize(BOUND + 10).build();

  @TempDir Path records;
  private final Set<Long> before =
      ProcessHandle.current().descendants().map(ProcessHandle::pid).collect(Collectors.toSet());

  /** One configuration for both: the pre-flight's message bound, and every teardown wait shrunk. */
  private static ProviderConfig config() {
    return ProviderConfig.of(Map.of(
        PreflightSettings.MAX_MESSAGES, String.valueOf(BOUND),
        PreflightSettings.TIMEOUT_MS, "30000",
        PreflightSettings.STDIN_CLOSE_WAIT_MS, "300",
        PreflightSettings.TERM_WAIT_MS, "300",
        SessionSettings.STDIN_CLOSE_WAIT_MS, "300",
        SessionSettings.TERM_WAIT_MS, "300"));
  }

  @AfterEach
  void everyProcessStartedIsGone() throws InterruptedException {
    List<ProcessHandle> started = ProcessHandle.current().descendants()
        .filter(h -> !before.contains(h.pid())).collect(Collectors.toList());
    List<String> alive = new ArrayList<>();
    for (ProcessHandle h : started) {
      try {
        h.onExit().get(15, TimeUnit.SECONDS);
      } catch (ExecutionException | TimeoutException e) {
        // Reported below.
      }
      if (h.isAlive()) {
        alive.add(h.pid() + " " + h.info().commandLine().orElse("?"));
        h.destroyForcibly();
      }
    }
    assertEquals(List.of(), alive, "processes the test started outlived it");
  }

  @Test
  void aLongLivedSessionServesPastThePreflightsMessageBoundWhileThePreflightStillStopsAtIt() throws Exception {
    SessionTransport sessions = new StdioSessionTransportProvider().create(new ProviderContext(config(), records));
    List<String> notified = new CopyOnWriteArrayList<>();
    ServerMessageHandler noUser = ServerMessageHandler.noUser("a backend of this test has no user");
    ServerMessageHandler handler = new ServerMessageHandler() {
      @Override
      public Reply onRequest(String method, Map<String, Object> params) {
        return noUser.onRequest(method, params);
      }

      @Override
      public void onNotification(String method, Map<String, Object> params) {
        notified.add(method);
      }
    };
    long pid;
    try (ServerSession backend = sessions.open(SERVER.description(), "long-lived", handler)) {
      pid = backend.pid().orElseThrow();
      backend.handshake(HandshakeEra.INITIALIZE, Map.of("name", "bounds-test", "version", "1"), Map.of(),
          Duration.ofSeconds(30));
      assertEquals(BOUND + 10, notified.size(), "every notification sent before the initialize answer was read");
      // 60 notifications and the initialize answer already passed the bound; a hundred calls more.
      for (int n = 1; n <= 2 * BOUND; n++) {
        Map<String, Object> answer = backend.request("tools/call",
            Map.of("name", "echo", "arguments", Map.of("marker", "m-" + n))).get(30, TimeUnit.SECONDS);
        assertTrue(String.valueOf(answer.get("result")).contains("m-" + n), answer.toString());
      }
      assertTrue(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false), "the backend still runs");
    }
    assertFalse(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false), "the closed session's process is gone");

    PreflightTransport preflight = new StdioPreflightTransportProvider()
        .create(new ProviderContext(config(), records, () -> sessions));
    PreflightResult r = preflight.preflight(SERVER.description());
    assertFalse(r.ran(), "the pre-flight's message bound did not stop it");
    assertEquals("wrote more than " + BOUND + " messages", r.notRunReason());
  }
}
