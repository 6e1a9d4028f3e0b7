package dev.cotenant.providers.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.api.ServerDescription;
import dev.cotenant.providers.preflight.HarnessedProcessTest;
import dev.cotenant.providers.preflight.PreflightHarness;
import dev.cotenant.spi.HandshakeEra;
import dev.cotenant.spi.Mcp;
import dev.cotenant.spi.ServerMessageHandler;
import dev.cotenant.spi.ServerSession;
import dev.cotenant.spi.SessionException;
import dev.cotenant.spi.SessionTransport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The {@code stdio} session as any consumer sees it through the SPI: handshake in both eras,
 * requests, notifications both ways, the server's own requests answered by the handler (even a
 * handler that throws), abort and close. Every process a test starts is gone afterwards.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class StdioSessionTest extends HarnessedProcessTest {
  private static final Map<String, Object> CLIENT = Map.of("name", "session-test", "version", "1");
  private static final Duration TIMEOUT = Duration.ofSeconds(20);

  final SessionTransport transport = new StdioSessionTransport(PreflightHarness.sessionSettings());

  /** Records what the server sends on its own initiative and answers its requests with {@code reply}. */
  private static final class Recorder implements ServerMessageHandler {
    final List<String> notifications = new ArrayList<>();
    final List<Map<String, Object>> notificationParams = new ArrayList<>();
    final List<String> requests = new ArrayList<>();
    final Reply reply;

    Recorder(Reply reply) {
      this.reply = reply;
    }

    @Override
    public synchronized Reply onRequest(String method, Map<String, Object> params) {
      requests.add(method);
      return reply;
    }

    @Override
    public synchronized void onNotification(String method, Map<String, Object> params) {
      notifications.add(method);
      notificationParams.add(params);
    }
  }

  private ServerSession legacy(ServerMessageHandler handler) throws Exception {
    return transport.open(h.javaServer("legacy", "legacy"), "test", handler);
  }

  private static Map<String, Object> answer(ServerSession s, String method, Map<String, Object> params) throws Exception {
    return s.request(method, params).get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
  }

  private static SessionException failureOf(CompletableFuture<Map<String, Object>> f) {
    ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(30, TimeUnit.SECONDS));
    return assertInstanceOf(SessionException.class, e.getCause());
  }

  @Test
  void theInitializeEraThenRequests() throws Exception {
    try (ServerSession s = legacy(ServerMessageHandler.noUser("no user"))) {
      assertEquals(Optional.empty(), s.completedHandshake());
      Map<String, Object> answer = s.handshake(HandshakeEra.INITIALIZE, CLIENT, Map.of(), TIMEOUT);
      assertEquals("2025-06-18", answer.get("protocolVersion"));
      assertEquals(Optional.of(HandshakeEra.INITIALIZE), s.completedHandshake());
      assertEquals(Map.of(), s.eraMeta(CLIENT, Map.of()));
      assertTrue(h.recordedPids().contains(s.pid().orElseThrow()), "pid() is the server's pid");
      Map<String, Object> tools = answer(s, "tools/list", Map.of());
      assertTrue(tools.get("result") instanceof Map, "the whole response: " + tools);
      Map<String, Object> unknown = answer(s, "no/such-method", Map.of());
      assertEquals(-32601, ((Map<?, ?>) unknown.get("error")).get("code"), "an error answer is an answer");
      assertThrows(IllegalStateException.class, () -> s.handshake(HandshakeEra.INITIALIZE, CLIENT, Map.of(), TIMEOUT));
    }
  }

  @Test
  void theDiscoverEraAndItsPerRequestMeta() throws Exception {
    try (ServerSession s = transport.open(h.javaServer("modern", "modern"), "test", ServerMessageHandler.noUser("x"))) {
      Map<String, Object> answer = s.handshake(HandshakeEra.AUTO, CLIENT, Map.of(), TIMEOUT);
      assertEquals(List.of(Mcp.MODERN_VERSION), answer.get("supportedVersions"));
      assertEquals(Optional.of(HandshakeEra.DISCOVER), s.completedHandshake());
      Map<String, Object> meta = s.eraMeta(CLIENT, Map.of());
      assertEquals(Mcp.modernMeta(CLIENT, Map.of()), meta);
      // The modern test server refuses any request without the protocol version in _meta.
      assertTrue(answer(s, "tools/list", Map.of("_meta", meta)).containsKey("result"));
      assertTrue(answer(s, "tools/list", Map.of()).containsKey("error"));
    }
  }

  @Test
  void notifyWritesANotification() throws Exception {
    try (ServerSession s = legacy(ServerMessageHandler.noUser("no user"))) {
      s.handshake(HandshakeEra.INITIALIZE, CLIENT, Map.of(), TIMEOUT);
      s.notify("test/remember", Map.of("value", "kept"));
      assertEquals(Map.of("value", "kept"), answer(s, "test/recall", Map.of()).get("result"));
    }
  }

  @Test
  void theHandlerReceivesTheServersNotificationsInOrder() throws Exception {
    Recorder handler = new Recorder(new ServerMessageHandler.Result(Map.of()));
    try (ServerSession s = legacy(handler)) {
      s.handshake(HandshakeEra.INITIALIZE, CLIENT, Map.of(), TIMEOUT);
      answer(s, "test/notify-me", Map.of("n", 1));
      // The notification was written before the answer, so it was handed over before the answer completed.
      synchronized (handler) {
        assertEquals(List.of("notifications/test"), handler.notifications);
        assertEquals(List.of(Map.of("n", 1)), handler.notificationParams);
      }
    }
  }

  @Test
  void theHandlerAnswersTheServersRequestsWithAResult() throws Exception {
    Recorder handler = new Recorder(new ServerMessageHandler.Result(Map.of("roots", List.of(Map.of("uri", "file:///w")))));
    try (ServerSession s = legacy(handler)) {
      s.handshake(HandshakeEra.INITIALIZE, CLIENT, Map.of(), TIMEOUT);
      Map<String, Object> asked = answer(s, "test/ask-client", Map.of("method", "roots/list"));
      Map<?, ?> reply = (Map<?, ?>) ((Map<?, ?>) asked.get("result")).get("answer");
      assertEquals("s-ask", reply.get("id"), "answered under the server's own id");
      assertEquals(Map.of("roots", List.of(Map.of("uri", "file:///w"))), reply.get("result"));
      assertFalse(reply.containsKey("error"));
      synchronized (handler) {
        assertEquals(List.of("roots/list"), handler.requests);
      }
    }
  }

  @Test
  void theHandlerAnswersTheServersRequestsWithAnError() throws Exception {
    Recorder handler = new Recorder(new ServerMessageHandler.Error(-1, "no user to ask"));
    try (ServerSession s = legacy(handler)) {
      s.handshake(HandshakeEra.INITIALIZE, CLIENT, Map.of(), TIMEOUT);
      Map<String, Object> asked = answer(s, "test/ask-client", Map.of("method", "sampling/createMessage"));
      Map<?, ?> reply = (Map<?, ?>) ((Map<?, ?>) asked.get("result")).get("answer");
      assertEquals(Map.of("code", -1, "message", "no user to ask"), reply.get("error"));
      assertFalse(reply.containsKey("result"));
    }
  }

  @Test
  void aThrowingHandlerIsAnsweredWithAnInternalErrorAndTheSessionGoesOn() throws Exception {
    ServerMessageHandler throwing = new ServerMessageHandler() {
      @Override
      public Reply onRequest(String method, Map<String, Object> params) {
        throw new IllegalStateException("handler bug");
      }

      @Override
      public void onNotification(String method, Map<String, Object> params) {
        throw new IllegalStateException("handler bug");
      }
    };
    try (ServerSession s = legacy(throwing)) {
      s.handshake(HandshakeEra.INITIALIZE, CLIENT, Map.of(), TIMEOUT);
      Map<String, Object> asked = answer(s, "test/ask-client", Map.of("method", "roots/list"));
      Map<?, ?> reply = (Map<?, ?>) ((Map<?, ?>) asked.get("result")).get("answer");
      assertEquals(-32603, ((Map<?, ?>) reply.get("error")).get("code"));
      // A notification the handler throws on is dropped; the dispatcher goes on reading.
      assertEquals(Map.of(), answer(s, "test/notify-me", Map.of()).get("result"));
      // And a second request of the server is answered the same way.
      Map<String, Object> again = answer(s, "test/ask-client", Map.of("method", "ping"));
      assertEquals(-32603, ((Map<?, ?>) ((Map<?, ?>) ((Map<?, ?>) again.get("result")).get("answer")).get("error")).get("code"));
      assertTrue(answer(s, "tools/list", Map.of()).containsKey("result"));
    }
  }

  @Test
  void aServerThatExitsFailsTheAwaitedAnswerNamingItsMethodAndStderr() throws Exception {
    try (ServerSession s = transport.open(h.javaServer("quitter", "legacy", "exit-after-initialize"), "test",
        ServerMessageHandler.noUser("x"))) {
      s.handshake(HandshakeEra.INITIALIZE, CLIENT, Map.of(), TIMEOUT);
      SessionException e = failureOf(s.request("tools/list", Map.of()));
      assertEquals(SessionException.Kind.EXITED, e.kind());
      assertEquals("exited 3 before answering tools/list: fatal: lost my backend", e.getMessage());
      SessionException later = assertThrows(SessionException.class, () -> s.request("prompts/list", Map.of()));
      assertEquals("exited 3 before answering prompts/list: fatal: lost my backend", later.getMessage());
      assertThrows(SessionException.class, () -> s.notify("test/remember", Map.of()));
    }
  }

  @Test
  void aHandshakeThatIsNotAnsweredTimesOutNamingTheWait() throws Exception {
    try (ServerSession s = transport.open(h.shServer("mute", "exec sleep 1000"), "test", ServerMessageHandler.noUser("x"))) {
      SessionException e = assertThrows(SessionException.class,
          () -> s.handshake(HandshakeEra.INITIALIZE, CLIENT, Map.of(), Duration.ofMillis(700)));
      assertEquals(SessionException.Kind.TIMEOUT, e.kind());
      assertEquals("no answer in 700 ms", e.getMessage());
      assertEquals(Optional.empty(), s.completedHandshake());
    }
  }

  @Test
  void abortFailsAwaitedAnswersAtOnceWithItsReason() throws Exception {
    try (ServerSession s = transport.open(h.shServer("mute", "trap '' TERM; exec sleep 1000"), "test",
        ServerMessageHandler.noUser("x"))) {
      CompletableFuture<Map<String, Object>> pending = s.request("tools/list", Map.of());
      s.abort("enough");
      SessionException e = failureOf(pending);
      assertEquals(SessionException.Kind.TIMEOUT, e.kind());
      assertEquals("enough", e.getMessage());
      assertThrows(SessionException.class, () -> s.request("tools/list", Map.of()));
    }
  }

  @Test
  void closeFailsAwaitedAnswersAndLaterRequests() throws Exception {
    ServerSession s = transport.open(h.shServer("mute", "exec sleep 1000"), "test", ServerMessageHandler.noUser("x"));
    CompletableFuture<Map<String, Object>> pending = s.request("tools/list", Map.of());
    s.close();
    SessionException e = failureOf(pending);
    assertEquals("the session was closed", e.getMessage());
    assertEquals(SessionException.Kind.EXITED,
        assertThrows(SessionException.class, () -> s.request("tools/list", Map.of())).kind());
    s.close();
  }

  @Test
  void serversThatCannotBeStartedAreRefusedWithoutSpawning() throws Exception {
    ServerMessageHandler none = ServerMessageHandler.noUser("x");
    SessionException missing = assertThrows(SessionException.class,
        () -> transport.open(ServerDescription.stdio("ghost", "/nonexistent/cotenant-no-such-server"), "t", none));
    assertEquals(SessionException.Kind.START, missing.kind());
    assertEquals("command not found: /nonexistent/cotenant-no-such-server", missing.getMessage());
    assertEquals("not a stdio server", assertThrows(SessionException.class,
        () -> transport.open(ServerDescription.http("remote", "https://example.invalid/mcp"), "t", none)).getMessage());
    assertEquals("disabled", assertThrows(SessionException.class,
        () -> transport.open(h.shServer("off", "exit 0").withEnabled(false), "t", none)).getMessage());
    assertEquals(0, h.recordedPids().size());
  }
}
