package dev.cotenant.gateway.mux;

import static dev.cotenant.gateway.mux.RecordingClient.error;
import static dev.cotenant.gateway.mux.RecordingClient.legacy;
import static dev.cotenant.gateway.mux.RecordingClient.result;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.api.HazardCode;
import dev.cotenant.gateway.Cotenant;
import dev.cotenant.spi.HandshakeEra;
import dev.cotenant.spi.Mcp;
import dev.cotenant.spi.ServerSession;
import dev.cotenant.spi.SessionTransport;
import dev.cotenant.spi.rpc.ErrorCode;
import dev.cotenant.testkit.process.ChecksProcessLeaks;
import dev.cotenant.testkit.server.FakeServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@link Multiplexer} over real backend processes: the kit's {@link FakeServer}, started by
 * the runtime's session transport. Every process is torn down after each test.
 */
@ChecksProcessLeaks
class MultiplexerProcessTest {
  private static final Map<String, Object> OPENER = Map.of("name", "cotenant-pool", "version", "1.0.0");
  private static final long SLOW = 600_000;

  /** A shared backend: its multiplexer, its session and its handshake answer. */
  private record Shared(Multiplexer mux, ServerSession session, Map<String, Object> answer) {
    String version() {
      return String.valueOf(answer.get("protocolVersion"));
    }
  }

  @TempDir Path records;
  private final List<Shared> opened = new CopyOnWriteArrayList<>();
  private final RecordingHazards hazards = new RecordingHazards();
  private final String nonce = UUID.randomUUID().toString().substring(0, 8);

  @AfterEach
  void closeEverything() {
    for (Shared s : opened) {
      s.mux().close();
      s.session().close();
    }
  }

  private SessionTransport sessions() {
    Map<String, String> config = Map.of(
        "cotenant.session.stdin-close-wait-ms", "2000",
        "cotenant.session.term-wait-ms", "1000",
        "cotenant.session.kill-wait-ms", "3000");
    return Cotenant.builder().config(config).recordsDirectory(records).build().sessionTransport();
  }

  /** Opens {@code server} with a multiplexer as its handler, performs the handshake and binds it. */
  private Shared shared(FakeServer server, HandshakeEra era) throws Exception {
    Multiplexer mux = new Multiplexer(server.name(), hazards, MuxSettings.defaults());
    ServerSession session = sessions().open(server.description(), server.name(), mux);
    Shared s = new Shared(mux, session, Map.of());
    opened.add(s);
    Map<String, Object> answer = session.handshake(era, OPENER, Map.of(), Duration.ofSeconds(60));
    mux.bind(session, answer, era);
    Shared bound = new Shared(mux, session, answer);
    opened.set(opened.indexOf(s), bound);
    return bound;
  }

  /** A legacy fake server named {@code name}, scripted by {@code script}, shared by a multiplexer after an {@code initialize}. */
  private Shared legacyShared(String name, UnaryOperator<FakeServer.Builder> script) throws Exception {
    return shared(script.apply(FakeServer.builder().name(name).era(FakeServer.Era.LEGACY)).build(), HandshakeEra.INITIALIZE);
  }

  /** A client named {@code name} attached to {@code s} with a legacy {@code initialize} of the backend's version. */
  private static RecordingClient attachLegacy(Shared s, String name) {
    return RecordingClient.attach(s.mux(), name, legacy(name, s.version()));
  }

  private static Map<String, Object> call(String tool, Map<String, Object> arguments) {
    return Map.of("name", tool, "arguments", arguments);
  }

  /** The text of a {@code tools/call} answer. */
  @SuppressWarnings("unchecked")
  private static String text(Map<String, Object> answer) {
    List<Map<String, Object>> content = (List<Map<String, Object>>) result(answer).get("content");
    return String.valueOf(content.get(0).get("text"));
  }

  /** Every request the fake server received, asked through {@code via}. */
  @SuppressWarnings("unchecked")
  private static List<Map<String, Object>> receivedRequests(RecordingClient via, Object id) throws Exception {
    return (List<Map<String, Object>>) result(via.call(id, FakeServer.RECEIVED_REQUESTS, Map.of())).get("requests");
  }

  /** Every notification the fake server received, asked through {@code via}. */
  @SuppressWarnings("unchecked")
  private static List<Map<String, Object>> receivedNotifications(RecordingClient via, Object id) throws Exception {
    return (List<Map<String, Object>>) result(via.call(id, FakeServer.RECEIVED_NOTIFICATIONS, Map.of())).get("notifications");
  }

  @SuppressWarnings("unchecked")
  private static List<Object> paramsOf(List<Map<String, Object>> messages, String method, String key) {
    List<Object> out = new ArrayList<>();
    for (Map<String, Object> m : messages) {
      if (method.equals(m.get("method"))) {
        out.add(((Map<String, Object>) m.get("params")).get(key));
      }
    }
    return out;
  }

  @Test
  void eightClientsInterleavingCallsEachGetOnlyTheirOwnAnswers() throws Exception {
    Shared s = legacyShared("mux-echo", f -> f.tool("echo"));
    int clients = 8;
    int calls = 12;
    List<RecordingClient> all = new ArrayList<>();
    for (int i = 0; i < clients; i++) {
      RecordingClient c = attachLegacy(s, "client" + i);
      assertEquals(s.answer(), result(c.call(0, "initialize", legacy("client" + i, s.version()))),
          "the cached initialize result, replayed");
      c.notification("notifications/initialized", Map.of());
      all.add(c);
    }
    ExecutorService threads = Executors.newFixedThreadPool(clients);
    try {
      CountDownLatch start = new CountDownLatch(1);
      List<Future<?>> sent = new ArrayList<>();
      for (int i = 0; i < clients; i++) {
        RecordingClient c = all.get(i);
        int n = i;
        sent.add(threads.submit(() -> {
          start.await();
          for (int j = 1; j <= calls; j++) {
            // The same ids on every client; delays that let answers overtake each other.
            c.request(j, "tools/call", call("echo", Map.of("marker", c.name + "-call" + j + "-" + nonce,
                "delayMillis", (n * 7 + j * 3) % 20)));
          }
          return null;
        }));
      }
      start.countDown();
      for (Future<?> f : sent) {
        f.get(RecordingClient.WAIT_SECONDS, TimeUnit.SECONDS);
      }
    } finally {
      threads.shutdownNow();
    }
    for (int i = 0; i < clients; i++) {
      RecordingClient c = all.get(i);
      for (int j = 1; j <= calls; j++) {
        String answer = text(c.await(j));
        assertTrue(answer.contains("\"marker\":\"" + c.name + "-call" + j + "-" + nonce + "\""), c.name + " " + j + ": " + answer);
        for (int k = 0; k < clients; k++) {
          if (k != i) {
            assertFalse(answer.contains("client" + k + "-"), c.name + " got client" + k + "'s answer: " + answer);
          }
        }
      }
      assertEquals(calls + 1, c.answers().size(), c.name + " got exactly its own answers: " + c.answers());
      assertEquals(List.of(), c.received.stream().filter(m -> m.containsKey("method")).toList());
    }
    assertEquals((long) clients * calls, s.mux().calls());
    assertEquals(List.of(), hazards.seen);
    List<Map<String, Object>> requests = receivedRequests(all.get(0), "requests");
    assertEquals(List.of(OPENER), paramsOf(requests, "initialize", "clientInfo"),
        "the backend was initialized once, by its opener; the clients' initialize was answered from the cache");
    assertEquals(1, paramsOf(receivedNotifications(all.get(0), "notifications"), "notifications/initialized", "x").size(),
        "the clients' notifications/initialized were swallowed");
  }

  @Test
  void killingTheBackendMidCallInterruptsEveryCallerAndReplaysNothing() throws Exception {
    Shared s = legacyShared("mux-doomed", f -> f.tool("slow").reportsProgress());
    List<RecordingClient> all = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      RecordingClient c = attachLegacy(s, "caller" + i);
      Map<String, Object> params = new LinkedHashMap<>(call("slow", Map.of("marker", "m" + i, "delayMillis", SLOW)));
      params.put("_meta", Map.of("progressToken", "p" + i));
      c.request("call", "tools/call", params);
      all.add(c);
    }
    for (int i = 0; i < all.size(); i++) {
      // Progress proves the call is under way at the server, and reached its own caller only.
      Map<String, Object> progress = all.get(i).awaitFirst("notifications/progress");
      assertEquals(Map.of("progressToken", "p" + i, "progress", 1, "total", 2, "message", "m" + i), progress.get("params"));
    }
    long written = s.mux().calls();

    s.session().abort("killed by the test");

    for (RecordingClient c : all) {
      Map<String, Object> e = error(c.await("call"));
      assertEquals(ErrorCode.CALL_INTERRUPTED.code(), e.get("code"), c.name);
      String message = String.valueOf(e.get("message"));
      assertTrue(message.startsWith("call interrupted:"), message);
      assertTrue(message.contains("mux-doomed"), message);
      assertTrue(message.contains("killed by the test"), message);
      assertEquals(1, c.answers().size(), c.name + ": " + c.answers());
    }
    Map<String, Object> later = all.get(0).call("later", "tools/call", call("slow", Map.of("marker", "later")));
    assertEquals(ErrorCode.CALL_INTERRUPTED.code(), error(later).get("code"));
    assertEquals(written, s.mux().calls(), "nothing written after the backend died: nothing replayed");
    assertInstanceOf(Attach.NeedsDedicated.class, s.mux().attach("new", legacy("new", s.version()), new RecordingClient("new")));
  }

  @Test
  void aCancelledCallIsCancelledAtTheBackendUnderTheBackendsOwnId() throws Exception {
    Shared s = legacyShared("mux-cancel", f -> f.tool("slow").reportsProgress());
    RecordingClient a = attachLegacy(s, "a");
    RecordingClient b = attachLegacy(s, "b");
    Map<String, Object> params = new LinkedHashMap<>(call("slow", Map.of("marker", "a", "delayMillis", SLOW)));
    params.put("_meta", Map.of("progressToken", "mine"));
    a.request("a-1", "tools/call", params);
    assertEquals("mine", ((Map<?, ?>) a.awaitFirst("notifications/progress").get("params")).get("progressToken"));

    a.notification("notifications/cancelled", Map.of("requestId", "a-1", "reason", "stop"));

    List<Map<String, Object>> notifications = receivedNotifications(b, 1);
    List<Object> cancelled = paramsOf(notifications, "notifications/cancelled", "requestId");
    assertEquals(1, cancelled.size(), notifications.toString());
    assertInstanceOf(Number.class, cancelled.get(0), "the backend's own id, not the client's \"a-1\"");
    assertEquals(List.of("stop"), paramsOf(notifications, "notifications/cancelled", "reason"));
    List<Object> tokens = new ArrayList<>();
    for (Map<String, Object> r : receivedRequests(b, 2)) {
      if ("tools/call".equals(r.get("method"))) {
        tokens.add(((Map<?, ?>) ((Map<?, ?>) r.get("params")).get("_meta")).get("progressToken"));
      }
    }
    assertEquals(1, tokens.size());
    assertFalse("mine".equals(tokens.get(0)), "the backend saw a token of the multiplexer's own: " + tokens);
    assertEquals(List.of(), a.answersTo("a-1"), "no answer after the cancellation");
  }

  /**
   * A real server asks for sampling during a call. With one session attached the request is its
   * own and the answer reaches the server; once a second session is attached, the server's next
   * request goes to nobody (a's call in flight is no evidence it is a's), and it is observed.
   */
  @Test
  void aServerRequestReachesTheOnlyAttachedClientAndNobodyOnceASecondIsAttached() throws Exception {
    Shared s = legacyShared("mux-sampling", f -> f.sendsServerRequestOnCall("sampling/createMessage"));
    RecordingClient a = attachLegacy(s, "a");
    a.onServerRequest = r -> Map.of("result", Map.of("role", "assistant", "model", "a-model",
        "content", Map.of("type", "text", "text", "sampled for " + ((Map<?, ?>) r.get("params")).get("marker"))));

    String answer = text(a.call(1, "tools/call", call("ask", Map.of("marker", "a-" + nonce))));
    assertTrue(answer.contains("sampled for a-" + nonce), answer);
    assertEquals(1, a.messages("sampling/createMessage").size());
    assertEquals(List.of(), hazards.seen);

    RecordingClient b = attachLegacy(s, "b");
    b.onServerRequest = r -> Map.of("result", Map.of("model", "b's, wrongly"));
    Map<String, Object> second = a.call(2, "tools/call", call("ask", Map.of("marker", "a2-" + nonce)));
    assertFalse(String.valueOf(second).contains("b's, wrongly"), String.valueOf(second));
    assertEquals(1, a.messages("sampling/createMessage").size(), "the second request did not reach a");
    assertEquals(List.of(), b.received);
    assertEquals(List.of(HazardCode.UNROUTABLE_SERVER_REQUEST), hazards.seen.stream().map(RecordingHazards.Seen::code).toList());
  }

  @Test
  void subscriptionsAreSharedPerUriAndListChangesReachEveryone() throws Exception {
    Shared s = legacyShared("mux-resources", f -> f.tool("poke").subscriptions().notifiesFromArguments());
    RecordingClient a = attachLegacy(s, "a");
    RecordingClient b = attachLegacy(s, "b");
    RecordingClient c = attachLegacy(s, "c");
    assertEquals(Map.of(), result(a.call(1, "resources/subscribe", Map.of("uri", "res://x"))));
    assertEquals(Map.of(), result(b.call(1, "resources/subscribe", Map.of("uri", "res://x"))));
    assertEquals(Map.of(), result(c.call(1, "resources/subscribe", Map.of("uri", "res://y"))));
    assertEquals(List.of("res://x", "res://y"), paramsOf(receivedRequests(c, 2), "resources/subscribe", "uri"));

    a.call(3, "tools/call", call("poke", Map.of("marker", "a", "notify", List.of(
        Map.of("method", "notifications/resources/updated", "params", Map.of("uri", "res://x")),
        Map.of("method", "notifications/tools/list_changed", "params", Map.of())))));
    for (RecordingClient r : List.of(a, b, c)) {
      r.awaitFirst("notifications/tools/list_changed");
    }
    // The backend wrote the update before the broadcast, and the reader delivers in order.
    assertEquals(List.of(Map.of("uri", "res://x")), a.params("notifications/resources/updated"));
    assertEquals(List.of(Map.of("uri", "res://x")), b.params("notifications/resources/updated"));
    assertEquals(List.of(), c.params("notifications/resources/updated"));

    assertEquals(Map.of(), result(a.call(4, "resources/unsubscribe", Map.of("uri", "res://x"))));
    assertEquals(List.of(), paramsOf(receivedRequests(c, 5), "resources/unsubscribe", "uri"), "b still subscribes");
    b.channel.close();
    assertEquals(List.of("res://x"), paramsOf(receivedRequests(c, 6), "resources/unsubscribe", "uri"));
    assertEquals(List.of(), hazards.seen);
  }

  /**
   * The backend logs at the finest level any attached session asked for. With two attached, a
   * log message names neither: a's call's messages reach neither a nor b, and are observed.
   * Once a leaves, b alone owns what the backend logs, at or above its own level.
   */
  @Test
  void theBackendLogsAtTheFinestLevelAskedAndOnlyASessionAloneSeesItsMessages() throws Exception {
    Shared s = legacyShared("mux-logging", f -> f.tool("work").logsAtLevels());
    RecordingClient a = attachLegacy(s, "a");
    RecordingClient b = attachLegacy(s, "b");
    assertEquals(Map.of(), result(a.call(1, "logging/setLevel", Map.of("level", "warning"))));
    assertEquals(Map.of(), result(b.call(1, "logging/setLevel", Map.of("level", "error"))));

    a.call(2, "tools/call", call("work", Map.of("marker", "a-log")));
    assertEquals(List.of(), paramsOf(a.received, "notifications/message", "level"));
    assertEquals(List.of(), paramsOf(b.received, "notifications/message", "level"), "a's log never reaches b");
    assertTrue(hazards.seen.stream().allMatch(h -> h.code() == HazardCode.UNATTRIBUTABLE_NOTIFICATION) && !hazards.seen.isEmpty(),
        hazards.seen.toString());

    a.channel.close();
    assertEquals(List.of("warning", "error"), paramsOf(receivedRequests(b, 3), "logging/setLevel", "level"));
    b.call(4, "tools/call", call("work", Map.of("marker", "b-log")));
    assertEquals(List.of("error", "critical", "alert", "emergency"), paramsOf(b.received, "notifications/message", "level"),
        "b asked for error");
    assertEquals(List.of("b-log"), paramsOf(b.received, "notifications/message", "data").stream().distinct().toList());
  }

  @Test
  void aModernBackendHearsEachClientNameItself() throws Exception {
    Shared s = shared(FakeServer.builder().name("mux-modern").era(FakeServer.Era.MODERN).tool("echo")
        .callerSensitiveTools().build(), HandshakeEra.DISCOVER);
    RecordingClient alice = RecordingClient.attach(s.mux(), "alice", legacy("alice", "2025-06-18"));
    RecordingClient bob = RecordingClient.attach(s.mux(), "bob", Map.of());

    Map<String, Object> init = result(alice.call(0, "initialize", legacy("alice", "2025-06-18")));
    assertEquals("2025-06-18", init.get("protocolVersion"));
    assertEquals(s.answer().get("serverInfo"), init.get("serverInfo"));
    assertEquals(s.answer(), result(bob.call(0, "server/discover", Map.of())));

    assertTrue(tools(alice.call(1, "tools/list", Map.of())).contains("for-alice"));
    Map<String, Object> bobMeta = Mcp.modernMeta(Map.of("name", "bob", "version", "2.0.0"), Map.of());
    List<Object> bobTools = tools(bob.call(1, "tools/list", Map.of("_meta", bobMeta)));
    assertTrue(bobTools.contains("for-bob"), bobTools.toString());
    assertFalse(bobTools.contains("for-alice"), bobTools.toString());
  }

  @SuppressWarnings("unchecked")
  private static List<Object> tools(Map<String, Object> answer) {
    List<Object> names = new ArrayList<>();
    for (Object t : (List<Object>) result(answer).get("tools")) {
      names.add(((Map<String, Object>) t).get("name"));
    }
    return names;
  }
}
