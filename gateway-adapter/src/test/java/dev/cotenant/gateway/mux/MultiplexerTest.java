package dev.cotenant.gateway.mux;

import static dev.cotenant.gateway.mux.RecordingClient.error;
import static dev.cotenant.gateway.mux.RecordingClient.legacy;
import static dev.cotenant.gateway.mux.RecordingClient.result;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.api.HazardCode;
import dev.cotenant.api.Json;
import dev.cotenant.gateway.Stderr;
import dev.cotenant.spi.HandshakeEra;
import dev.cotenant.spi.Mcp;
import dev.cotenant.spi.ServerMessageHandler;
import dev.cotenant.spi.SessionException;
import dev.cotenant.spi.rpc.ErrorCode;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The routing rules of {@link Multiplexer}, each against an in-memory backend that answers only
 * when the test says so (so that every interleaving is forced, and nothing is waited for).
 */
class MultiplexerTest {
  private static final String VERSION = "2025-06-18";
  private static final Map<String, Object> INITIALIZE_RESULT = Map.of(
      "protocolVersion", VERSION,
      "capabilities", Map.of("tools", Map.of(), "logging", Map.of(), "resources", Map.of("subscribe", true)),
      "serverInfo", Map.of("name", "memory-server", "version", "2.0.0"),
      "instructions", "use it well");
  private static final Map<String, Object> DISCOVER_RESULT = Map.of(
      "resultType", "complete",
      "protocolVersion", Mcp.MODERN_VERSION,
      "supportedVersions", List.of(Mcp.MODERN_VERSION),
      "capabilities", Map.of("tools", Map.of()),
      "serverInfo", Map.of("name", "modern-server", "version", "3.0.0"));

  private final RecordingHazards hazards = new RecordingHazards();
  private Multiplexer mux = new Multiplexer("memory", hazards, MuxSettings.defaults());
  private MemorySession backend = new MemorySession(HandshakeEra.INITIALIZE);

  @AfterEach
  void close() {
    mux.close();
  }

  private void legacyBackend() {
    mux.bind(backend, INITIALIZE_RESULT, HandshakeEra.INITIALIZE);
  }

  private void modernBackend() {
    backend = new MemorySession(HandshakeEra.DISCOVER);
    mux.bind(backend, DISCOVER_RESULT, HandshakeEra.DISCOVER);
  }

  private RecordingClient client(String name) {
    return RecordingClient.attach(mux, name, legacy(name, VERSION));
  }

  private static Map<String, Object> call(String marker) {
    return Map.of("name", "echo", "arguments", Map.of("marker", marker));
  }

  private static Map<String, Object> callWithToken(String marker, Object token) {
    Map<String, Object> p = new LinkedHashMap<>(call(marker));
    p.put("_meta", Map.of("progressToken", token));
    return p;
  }

  private static Map<String, Object> text(String text) {
    return Map.of("content", List.of(Map.of("type", "text", "text", text)));
  }

  // ---- rule 1: ids ----

  @Test
  void eachAnswerGoesBackUnderItsClientsOriginalIdKeepingItsType() {
    legacyBackend();
    RecordingClient a = client("a");
    RecordingClient b = client("b");
    RecordingClient c = client("c");
    a.request(1, "tools/call", call("from-a"));
    b.request(1, "tools/call", call("from-b"));
    c.request("1", "tools/call", call("from-c"));
    Set<Long> backendIds = new HashSet<>();
    backend.requests.forEach(s -> backendIds.add(s.id()));
    assertEquals(3, backendIds.size(), "every call has a backend id of its own");
    // Answered out of order.
    backend.withMarker("tools/call", "from-c").result(text("for c"));
    backend.withMarker("tools/call", "from-a").result(text("for a"));
    backend.withMarker("tools/call", "from-b").result(text("for b"));

    assertEquals(List.of(Map.of("jsonrpc", "2.0", "id", 1, "result", text("for a"))), a.received);
    assertEquals(List.of(Map.of("jsonrpc", "2.0", "id", 1, "result", text("for b"))), b.received);
    assertEquals(List.of(Map.of("jsonrpc", "2.0", "id", "1", "result", text("for c"))), c.received);
    assertInstanceOf(Integer.class, a.received.get(0).get("id"), "a number stays a number");
    assertInstanceOf(String.class, c.received.get(0).get("id"), "a string stays a string");
    assertEquals(3, mux.calls());
  }

  @Test
  void theBackendGetsTheClientsParamsUnchanged() {
    legacyBackend();
    RecordingClient a = client("a");
    Map<String, Object> params = Map.of("name", "echo", "arguments", Map.of("marker", "m", "n", 3),
        "_meta", Map.of("custom", "kept"));
    a.request(5, "tools/call", params);
    assertEquals(params, backend.only("tools/call").params());
  }

  @Test
  void anErrorAnswerGoesBackAsAnError() {
    legacyBackend();
    RecordingClient a = client("a");
    a.request(9, "tools/call", call("m"));
    backend.only("tools/call").error(-32602, "no such tool");
    assertEquals(Map.of("code", -32602, "message", "no such tool"), error(a.answersTo(9).get(0)));
  }

  @Test
  void aClientReusingAnIdStillInFlightIsRefusedAndNotForwarded() {
    legacyBackend();
    RecordingClient a = client("a");
    a.request(4, "tools/call", call("first"));
    a.request(4, "tools/call", call("second"));
    assertEquals(1, backend.sent("tools/call").size());
    assertEquals(ErrorCode.INVALID_REQUEST.code(), error(a.answersTo(4).get(0)).get("code"));
    backend.only("tools/call").result(text("first"));
    assertEquals(text("first"), result(a.answersTo(4).get(1)));
  }

  @Test
  void manyThreadsUsingTheSameIdsEachGetTheirOwnAnswers() throws Exception {
    legacyBackend();
    backend.whileWriting = s -> CompletableFuture.runAsync(() -> s.result(text(String.valueOf(
        ((Map<?, ?>) s.params().get("arguments")).get("marker")))));
    int clients = 8;
    int calls = 50;
    List<RecordingClient> all = new ArrayList<>();
    for (int i = 0; i < clients; i++) {
      all.add(client("c" + i));
    }
    ExecutorService pool = Executors.newFixedThreadPool(clients);
    try {
      CountDownLatch start = new CountDownLatch(1);
      List<Future<?>> done = new ArrayList<>();
      for (RecordingClient c : all) {
        done.add(pool.submit(() -> {
          start.await();
          for (int j = 0; j < calls; j++) {
            c.request(j, "tools/call", call(c.name + "-" + j));
          }
          return null;
        }));
      }
      start.countDown();
      for (Future<?> f : done) {
        f.get(RecordingClient.WAIT_SECONDS, TimeUnit.SECONDS);
      }
      for (RecordingClient c : all) {
        for (int j = 0; j < calls; j++) {
          assertEquals(text(c.name + "-" + j), result(c.await(j)), c.name + "'s call " + j);
        }
        assertEquals(calls, c.answers().size(), c.name + " got only its own answers");
      }
    } finally {
      pool.shutdownNow();
    }
  }

  // ---- rule 2: cancellation and progress ----

  @Test
  void aCancelledCallIsCancelledAtTheBackendAndItsLateAnswerIsDropped() {
    legacyBackend();
    backend.lateAnswers = true;
    RecordingClient a = client("a");
    a.request("x", "tools/call", call("m"));
    MemorySession.Sent sent = backend.only("tools/call");
    a.notification("notifications/cancelled", Map.of("requestId", "x", "reason", "user pressed stop"));
    assertEquals(1, backend.cancels.size());
    assertSame(sent.answer(), backend.cancels.get(0).answer(), "the backend's own request is cancelled");
    assertEquals("user pressed stop", backend.cancels.get(0).reason());
    sent.result(text("too late"));
    assertEquals(List.of(), a.received, "no answer after the cancellation");
  }

  @Test
  void aCancellationArrivingWhileTheCallIsBeingWrittenStillReachesTheBackend() {
    legacyBackend();
    RecordingClient a = client("a");
    backend.whileWriting = s -> a.notification("notifications/cancelled", Map.of("requestId", 1));
    a.request(1, "tools/call", call("m"));
    MemorySession.Sent sent = backend.only("tools/call");
    assertEquals(1, backend.cancels.size(), "the cancellation waited for the backend's request to exist");
    assertSame(sent.answer(), backend.cancels.get(0).answer());
    assertEquals(List.of(), a.received);
  }

  @Test
  void aCancellationOfSomethingNotInFlightIsIgnored() {
    legacyBackend();
    RecordingClient a = client("a");
    a.request(1, "tools/call", call("m"));
    a.notification("notifications/cancelled", Map.of("requestId", "1"));
    a.notification("notifications/cancelled", Map.of("requestId", 2));
    assertEquals(List.of(), backend.cancels, "\"1\" is not 1");
    backend.only("tools/call").result(text("ok"));
    assertEquals(text("ok"), result(a.answersTo(1).get(0)));
  }

  @Test
  void progressTokensAreRewrittenAndProgressGoesBackToItsOwnerWithItsOwnToken() {
    legacyBackend();
    RecordingClient a = client("a");
    RecordingClient b = client("b");
    a.request(1, "tools/call", callWithToken("a", "tok"));
    b.request(1, "tools/call", callWithToken("b", "tok"));
    Object ta = backend.withMarker("tools/call", "a").meta().get("progressToken");
    Object tb = backend.withMarker("tools/call", "b").meta().get("progressToken");
    assertNotEquals("tok", ta);
    assertNotEquals("tok", tb);
    assertNotEquals(ta, tb, "backend-unique tokens");

    mux.onNotification("notifications/progress", Map.of("progressToken", tb, "progress", 1, "total", 2));
    assertEquals(List.of(), a.received);
    assertEquals(List.of(Map.of("progressToken", "tok", "progress", 1, "total", 2)), b.params("notifications/progress"));
    assertEquals(0, mux.hazards());
  }

  @Test
  void aNumericProgressTokenKeepsItsType() {
    legacyBackend();
    RecordingClient a = client("a");
    a.request(1, "tools/call", callWithToken("a", 17));
    Object t = backend.only("tools/call").meta().get("progressToken");
    mux.onNotification("notifications/progress", Map.of("progressToken", t, "progress", 1));
    assertEquals(List.of(Map.of("progressToken", 17, "progress", 1)), a.params("notifications/progress"));
  }

  @Test
  void progressWithATokenNobodyOwnsIsDroppedAndObservedWhenShared() {
    legacyBackend();
    RecordingClient a = client("a");
    RecordingClient b = client("b");
    a.request(1, "tools/call", callWithToken("a", "tok"));
    b.request(1, "tools/call", call("b"));
    mux.onNotification("notifications/progress", Map.of("progressToken", "tok", "progress", 1));
    assertEquals(List.of(), a.received, "the client's own token is not the backend's");
    assertEquals(List.of(), b.received);
    assertEquals(1, hazards.seen.size());
    assertEquals(HazardCode.UNATTRIBUTABLE_NOTIFICATION, hazards.seen.get(0).code());
    assertEquals(2, hazards.seen.get(0).attached());
  }

  @Test
  void aTokenIsForgottenOnceItsCallIsAnswered() {
    legacyBackend();
    RecordingClient a = client("a");
    RecordingClient b = client("b");
    a.request(1, "tools/call", callWithToken("a", "tok"));
    Object t = backend.only("tools/call").meta().get("progressToken");
    backend.only("tools/call").result(text("done"));
    mux.onNotification("notifications/progress", Map.of("progressToken", t, "progress", 2));
    assertEquals(List.of(), a.params("notifications/progress"));
    assertEquals(List.of(), b.received);
    assertEquals(0, mux.hazards(), "late progress of a call that ended is dropped: it was that call's, not another session's");
  }

  // ---- rule 3: the initialize era ----

  @Test
  void initializeIsAnsweredFromTheCacheAndInitializedIsSwallowed() {
    legacyBackend();
    RecordingClient a = client("a");
    RecordingClient b = client("b");
    a.request(0, "initialize", legacy("a", VERSION));
    a.notification("notifications/initialized", Map.of());
    b.request("init", "initialize", legacy("b", VERSION));
    assertEquals(INITIALIZE_RESULT, result(a.answersTo(0).get(0)));
    assertEquals(INITIALIZE_RESULT, result(b.answersTo("init").get(0)));
    assertEquals(List.of(), backend.requests, "the backend was initialized once, by its opener");
    assertEquals(List.of(), backend.notifications);
    assertEquals(0, mux.calls());
  }

  @Test
  void anotherProtocolVersionNeedsADedicatedBackend() {
    legacyBackend();
    Attach other = mux.attach("old", legacy("old", "2024-11-05"), new RecordingClient("old"));
    Attach modern = mux.attach("new", Map.of(), new RecordingClient("new"));
    assertTrue(((Attach.NeedsDedicated) other).why().contains("2024-11-05"), other.toString());
    assertTrue(((Attach.NeedsDedicated) other).why().contains(VERSION), other.toString());
    assertTrue(((Attach.NeedsDedicated) modern).why().contains(Mcp.MODERN_VERSION), modern.toString());
    assertEquals(0, mux.attached());
    assertInstanceOf(Attach.Attached.class, mux.attach("same", legacy("same", VERSION), new RecordingClient("same")));
  }

  @Test
  void serverDiscoverIsNotFoundOnAnInitializeEraBackend() {
    legacyBackend();
    RecordingClient a = client("a");
    a.request(1, "server/discover", Map.of());
    assertEquals(ErrorCode.METHOD_NOT_FOUND.code(), error(a.answersTo(1).get(0)).get("code"));
    assertEquals(List.of(), backend.requests);
  }

  // ---- rule 4: the discover era ----

  @Test
  void aModernClientsMetaIsForwardedUnchanged() {
    modernBackend();
    RecordingClient bob = RecordingClient.attach(mux, "bob", Map.of());
    Map<String, Object> meta = new LinkedHashMap<>(Mcp.modernMeta(Map.of("name", "bob", "version", "9"), Map.of("roots", Map.of())));
    meta.put("custom", "x");
    bob.request(1, "tools/list", Map.of("_meta", meta));
    assertEquals(Map.of("_meta", meta), backend.only("tools/list").params());
  }

  @Test
  void aLegacyClientOfAModernBackendIsNamedFromItsOwnInitialize() {
    modernBackend();
    RecordingClient alice = client("alice");
    RecordingClient carol = client("carol");
    alice.request(1, "tools/list", Map.of());
    carol.request(1, "tools/call", callWithToken("c", "t"));
    Map<String, Object> aliceMeta = backend.only("tools/list").meta();
    assertEquals(Mcp.modernMeta(Map.of("name", "alice", "version", "1.0.0"), RecordingClient.CAPABLE), aliceMeta);
    Map<String, Object> carolMeta = backend.only("tools/call").meta();
    assertEquals(Mcp.MODERN_VERSION, carolMeta.get(Mcp.META_PROTOCOL_VERSION));
    assertEquals(Map.of("name", "carol", "version", "1.0.0"), carolMeta.get(Mcp.META_CLIENT_INFO));
    assertTrue(carolMeta.containsKey("progressToken"), "its own _meta entries stay");
  }

  @Test
  void aLegacyClientOfAModernBackendIsInitializedLocally() {
    modernBackend();
    RecordingClient alice = client("alice");
    alice.request(0, "initialize", legacy("alice", VERSION));
    assertEquals(Map.of("protocolVersion", VERSION, "capabilities", DISCOVER_RESULT.get("capabilities"),
        "serverInfo", DISCOVER_RESULT.get("serverInfo")), result(alice.answersTo(0).get(0)));
    alice.request(1, "server/discover", Map.of());
    assertEquals(DISCOVER_RESULT, result(alice.answersTo(1).get(0)));
    assertEquals(List.of(), backend.requests);
  }

  // ---- rule 5: ping and logging ----

  @Test
  void pingIsAnsweredLocallyBothWays() throws Exception {
    legacyBackend();
    RecordingClient a = client("a");
    RecordingClient b = client("b");
    a.request(1, "ping", Map.of());
    assertEquals(Map.of(), result(a.answersTo(1).get(0)));
    assertEquals(List.of(), backend.requests);
    ServerMessageHandler.Reply r = mux.onRequestAsync("ping", Map.of()).toCompletableFuture().get();
    assertEquals(new ServerMessageHandler.Result(Map.of()), r);
    assertEquals(List.of(), b.received);
    assertEquals(0, mux.hazards(), "ping from a shared backend is no hazard");
  }

  @Test
  void theBackendRunsAtTheFinestLevelAskedAndEachClientSeesItsOwnLevelAndAbove() {
    legacyBackend();
    RecordingClient a = client("a");
    RecordingClient b = client("b");
    a.request(1, "logging/setLevel", Map.of("level", "error"));
    b.request(1, "logging/setLevel", Map.of("level", "info"));
    a.request(2, "logging/setLevel", Map.of("level", "critical"));
    assertEquals(Map.of(), result(a.answersTo(1).get(0)));
    assertEquals(Map.of(), result(b.answersTo(1).get(0)));
    assertEquals(List.of("error", "info"), levels(), "sent when the finest level changes, not for a coarser one");

    // Two sessions attached: a log message names neither, so it reaches neither, whatever is in flight.
    a.request(3, "tools/call", call("a"));
    mux.onNotification("notifications/message", Map.of("level", "emergency", "data", "whose?"));
    assertEquals(List.of(), a.params("notifications/message"));
    assertEquals(List.of(), b.params("notifications/message"));
    backend.only("tools/call").result(text("a"));

    b.channel.close();
    assertEquals(List.of("error", "info", "critical"), levels(), "the holder of the finest level left");
    // One session attached: it owns every message, at or above its own level.
    for (String level : List.of("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")) {
      mux.onNotification("notifications/message", Map.of("level", level, "data", level));
    }
    assertEquals(List.of("critical", "alert", "emergency"), a.params("notifications/message").stream()
        .map(p -> p.get("level")).toList());
  }

  private List<Object> levels() {
    return backend.sent("logging/setLevel").stream().map(s -> s.params().get("level")).toList();
  }

  @Test
  void anUnknownLevelIsRefused() {
    legacyBackend();
    RecordingClient a = client("a");
    a.request(1, "logging/setLevel", Map.of("level", "verbose"));
    Map<String, Object> e = error(a.answersTo(1).get(0));
    assertEquals(ErrorCode.INVALID_PARAMS.code(), e.get("code"));
    assertTrue(String.valueOf(e.get("message")).contains("verbose"), e.toString());
    // Kills LogLevel.names returning "" (EmptyObjectReturnValsMutator) and with its separator
    // condition negated (NegateConditionalsMutator).
    assertTrue(String.valueOf(e.get("message"))
        .endsWith("; expected one of debug, info, notice, warning, error, critical, alert, emergency"), e.toString());
    assertEquals(List.of(), backend.requests);
  }

  @Test
  void aBackendWithoutLoggingIsNotAskedToSetALevel() {
    mux.bind(backend, Map.of("protocolVersion", VERSION, "capabilities", Map.of()), HandshakeEra.INITIALIZE);
    RecordingClient a = client("a");
    a.request(1, "logging/setLevel", Map.of("level", "info"));
    assertEquals(Map.of(), result(a.answersTo(1).get(0)));
    assertEquals(List.of(), backend.requests);
  }

  // ---- rule 6: server requests ----

  /**
   * With one session attached the request is its own, and its answer goes back to the backend.
   * With a second attached, the same request (the first session's call still in flight) goes to
   * nobody: a call in flight is timing, not evidence of whom the request is for.
   */
  @Test
  void aServerRequestGoesToTheOnlyAttachedClientAndItsAnswerBackAndToNobodyOnceTwoAreAttached() throws Exception {
    legacyBackend();
    RecordingClient b = client("b");
    b.request(1, "tools/call", call("b"));
    CompletableFuture<ServerMessageHandler.Reply> reply =
        mux.onRequestAsync("sampling/createMessage", Map.of("maxTokens", 5)).toCompletableFuture();
    Map<String, Object> routed = b.messages("sampling/createMessage").get(0);
    assertEquals(Map.of("maxTokens", 5), routed.get("params"));
    assertFalse(reply.isDone(), "answered when the client answers");
    b.channel.fromClient(Map.of("jsonrpc", "2.0", "id", routed.get("id"), "result", Map.of("model", "m")));
    assertEquals(new ServerMessageHandler.Result(Map.of("model", "m")), reply.get());
    assertEquals(0, mux.hazards());

    RecordingClient a = client("a");
    ServerMessageHandler.Reply r = mux.onRequestAsync("sampling/createMessage", Map.of()).toCompletableFuture().get();
    assertEquals(new ServerMessageHandler.Error(-32603,
        "cannot route sampling/createMessage: 2 sessions share this backend and nothing in it names one"), r);
    assertEquals(1, b.messages("sampling/createMessage").size(), "b, the only one with a call in flight, gets nothing more");
    assertEquals(List.of(), a.received);
    assertEquals(1, mux.hazards());
  }

  @Test
  void aClientsErrorAnswerToAServerRequestIsPassedOn() throws Exception {
    legacyBackend();
    RecordingClient a = client("a");
    a.onServerRequest = r -> Map.of("error", Map.of("code", -1, "message", "the user declined"));
    a.request(1, "tools/call", call("a"));
    assertEquals(new ServerMessageHandler.Error(-1, "the user declined"),
        mux.onRequestAsync("elicitation/create", Map.of()).toCompletableFuture().get());
  }

  @Test
  void aServerRequestWhileTwoSessionsHaveCallsInFlightIsRefusedAndObserved() throws Exception {
    legacyBackend();
    RecordingClient a = client("a");
    RecordingClient b = client("b");
    client("c");
    a.request(1, "tools/call", call("a"));
    b.request(1, "tools/call", call("b"));
    ServerMessageHandler.Reply r = mux.onRequestAsync("roots/list", Map.of()).toCompletableFuture().get();
    assertEquals(new ServerMessageHandler.Error(-32603,
        "cannot route roots/list: 3 sessions share this backend and nothing in it names one"), r);
    assertEquals(List.of(), a.messages("roots/list"));
    assertEquals(List.of(), b.messages("roots/list"));
    assertEquals(List.of(new RecordingHazards.Seen(HazardCode.UNROUTABLE_SERVER_REQUEST, 3,
        "roots/list from the backend with 3 sessions attached (2 with calls in flight): nothing in it names the session it"
            + " is for")), hazards.seen);
    assertEquals(1, mux.hazards());
  }

  @Test
  void aServerRequestWithNoCallInFlightIsRefusedAndObservedWhenShared() throws Exception {
    legacyBackend();
    client("a");
    client("b");
    ServerMessageHandler.Reply r = mux.onRequestAsync("sampling/createMessage", Map.of()).toCompletableFuture().get();
    assertEquals(new ServerMessageHandler.Error(-32603,
        "cannot route sampling/createMessage: 2 sessions share this backend and nothing in it names one"), r);
    assertEquals(HazardCode.UNROUTABLE_SERVER_REQUEST, hazards.seen.get(0).code());
  }

  /**
   * A request the backend sends before any session attached (a {@code roots/list} right after its
   * handshake) is the first session's, for which the backend was started: it waits for it, and is
   * answered with its answer. Before, it was refused, and the server fell back to what it was
   * configured with instead of the client's own roots.
   */
  @Test
  void aServerRequestBeforeAnySessionAttachedWaitsForTheFirst() throws Exception {
    legacyBackend();
    CompletableFuture<ServerMessageHandler.Reply> reply = mux.onRequestAsync("roots/list", Map.of()).toCompletableFuture();
    assertFalse(reply.isDone(), "it waits for the first session");
    RecordingClient a = client("a");
    Map<String, Object> routed = a.messages("roots/list").get(0);
    a.channel.fromClient(Map.of("jsonrpc", "2.0", "id", routed.get("id"), "result", Map.of("roots", List.of())));
    assertEquals(new ServerMessageHandler.Result(Map.of("roots", List.of())), reply.get());
    assertEquals(List.of(), hazards.seen);
  }

  @Test
  void aServerRequestOnceEverySessionHasLeftIsRefusedUnobserved() throws Exception {
    legacyBackend();
    client("a").channel.close();
    ServerMessageHandler.Reply r = mux.onRequestAsync("roots/list", Map.of()).toCompletableFuture().get();
    assertInstanceOf(ServerMessageHandler.Error.class, r);
    assertEquals(List.of(), hazards.seen);
  }

  @Test
  void aRequestWaitingForTheFirstSessionIsAnsweredWithAnErrorWhenTheBackendEnds() throws Exception {
    legacyBackend();
    CompletableFuture<ServerMessageHandler.Reply> reply = mux.onRequestAsync("roots/list", Map.of()).toCompletableFuture();
    mux.backendExited("gone");
    assertInstanceOf(ServerMessageHandler.Error.class, reply.get());
  }

  /**
   * A backend meant for several sessions that has asked its only session something takes no
   * other session: the server would never ask a later one for its own roots. One that is not
   * shared (a dedicated backend) is not concerned.
   */
  @Test
  void aSharedBackendThatAskedItsOnlySessionTakesNoOther() throws Exception {
    legacyBackend();
    mux.markShared();
    RecordingClient a = client("a");
    mux.onRequestAsync("roots/list", Map.of());
    assertEquals(1, a.messages("roots/list").size());
    assertEquals(java.util.Optional.of("roots/list"), mux.askedClient());
    Attach second = mux.attach("b", legacy("b", VERSION), m -> { });
    assertInstanceOf(Attach.NeedsDedicated.class, second);
    assertTrue(((Attach.NeedsDedicated) second).why().contains("asked its session for roots/list"), second.toString());
    assertEquals(List.of(), hazards.seen, "nothing went wrong: the one session was asked");
  }

  @Test
  void aBackendNotMarkedSharedStillTakesASecondSessionAfterAsking() throws Exception {
    legacyBackend();
    RecordingClient a = client("a");
    mux.onRequestAsync("roots/list", Map.of());
    assertEquals(1, a.messages("roots/list").size());
    assertEquals(java.util.Optional.empty(), mux.askedClient());
    assertInstanceOf(Attach.Attached.class, mux.attach("b", legacy("b", VERSION), m -> { }));
  }

  @Test
  void oneAttachedSessionOwnsEverythingAndNothingIsObserved() throws Exception {
    legacyBackend();
    RecordingClient a = client("a");
    a.onServerRequest = r -> Map.of("result", Map.of("roots", List.of()));
    assertEquals(new ServerMessageHandler.Result(Map.of("roots", List.of())),
        mux.onRequestAsync("roots/list", Map.of()).toCompletableFuture().get(), "no call in flight, still its own");
    mux.onNotification("notifications/message", Map.of("level", "info", "data", "x"));
    mux.onNotification("notifications/progress", Map.of("progressToken", "unknown", "progress", 1));
    mux.onNotification("custom/thing", Map.of());
    assertEquals(1, a.messages("notifications/message").size());
    assertEquals(1, a.messages("notifications/progress").size());
    assertEquals(1, a.messages("custom/thing").size());
    assertEquals(List.of(), hazards.seen);
  }

  /**
   * A request the only session did not declare the capability for is answered as that client
   * would (method not found), and never reaches it; one it declared reaches it.
   */
  @Test
  void aServerRequestTheClientDeclaredNoCapabilityForIsAnsweredAsItWouldNeverForwarded() throws Exception {
    legacyBackend();
    RecordingClient a = RecordingClient.attach(mux, "a", RecordingClient.legacy("a", VERSION,
        Map.of("sampling", Map.of())));
    for (String method : List.of("roots/list", "elicitation/create")) {
      ServerMessageHandler.Reply r = mux.onRequestAsync(method, Map.of()).toCompletableFuture().get();
      assertEquals(ErrorCode.METHOD_NOT_FOUND.code(), ((ServerMessageHandler.Error) r).code(), r.toString());
      assertTrue(((ServerMessageHandler.Error) r).message().contains("the client declared no"), r.toString());
      assertEquals(List.of(), a.messages(method), method + " reached a client that declared no capability for it");
    }
    a.onServerRequest = r -> Map.of("result", Map.of("role", "assistant"));
    assertEquals(new ServerMessageHandler.Result(Map.of("role", "assistant")),
        mux.onRequestAsync("sampling/createMessage", Map.of()).toCompletableFuture().get());
    assertEquals(1, a.messages("sampling/createMessage").size());
    assertEquals(List.of(), hazards.seen);
  }

  @Test
  void aServerRequestRoutedToAClientThatLeavesIsAnsweredWithAnError() throws Exception {
    legacyBackend();
    RecordingClient a = client("a");
    a.request(1, "tools/call", call("a"));
    CompletableFuture<ServerMessageHandler.Reply> reply =
        mux.onRequestAsync("sampling/createMessage", Map.of()).toCompletableFuture();
    a.channel.close();
    ServerMessageHandler.Reply r = reply.get();
    assertEquals(-32603, ((ServerMessageHandler.Error) r).code());
    assertTrue(((ServerMessageHandler.Error) r).message().contains("closed"), r.toString());
  }

  @Test
  void anAnswerToARequestNeverRoutedToThatClientIsDropped() throws Exception {
    legacyBackend();
    RecordingClient a = client("a");
    a.request(1, "tools/call", call("a"));
    CompletableFuture<ServerMessageHandler.Reply> reply = mux.onRequestAsync("roots/list", Map.of()).toCompletableFuture();
    Object id = a.messages("roots/list").get(0).get("id");
    // b attaches after the request was routed to a, and answers it under a's id.
    RecordingClient b = client("b");
    b.channel.fromClient(Map.of("jsonrpc", "2.0", "id", id, "result", Map.of("roots", List.of("b's"))));
    assertFalse(reply.isDone(), "b cannot answer what was asked of a");
    a.channel.fromClient(Map.of("jsonrpc", "2.0", "id", id, "result", Map.of("roots", List.of())));
    assertEquals(new ServerMessageHandler.Result(Map.of("roots", List.of())), reply.get());
  }

  // ---- rule 7: request-scoped notifications ----

  /**
   * The failure this rule exists for: b's tool answers at once and its server sends b's log
   * message later, while a's long call is the only one in flight. Timing would hand b's message
   * to a; with two sessions attached it goes to nobody and is observed.
   */
  @Test
  void aRequestScopedNotificationGoesToNobodyWhenTwoAreAttachedWhateverIsInFlight() {
    legacyBackend();
    RecordingClient a = client("a");
    RecordingClient b = client("b");
    a.request(1, "tools/call", call("a"));
    mux.onNotification("notifications/message", Map.of("level", "info", "data", "b's secret"));
    mux.onNotification("custom/event", Map.of("x", 1));
    assertEquals(List.of(), a.messages("notifications/message"));
    assertEquals(List.of(), a.messages("custom/event"));
    assertEquals(List.of(), b.received);
    assertEquals(2, mux.hazards());
    assertEquals(List.of(HazardCode.UNATTRIBUTABLE_NOTIFICATION, HazardCode.UNATTRIBUTABLE_NOTIFICATION),
        hazards.seen.stream().map(RecordingHazards.Seen::code).toList());
  }

  @Test
  void aRequestScopedNotificationWithoutAnOwnerIsDroppedAndObserved() {
    legacyBackend();
    RecordingClient a = client("a");
    RecordingClient b = client("b");
    mux.onNotification("notifications/message", Map.of("level", "info", "data", "whose?"));
    a.request(1, "tools/call", call("a"));
    b.request(1, "tools/call", call("b"));
    mux.onNotification("notifications/message", Map.of("level", "info", "data", "whose now?"));
    assertEquals(List.of(), a.messages("notifications/message"));
    assertEquals(List.of(), b.messages("notifications/message"));
    assertEquals(List.of(
        new RecordingHazards.Seen(HazardCode.UNATTRIBUTABLE_NOTIFICATION, 2,
            "notifications/message from the backend with 2 sessions attached (0 with calls in flight): nothing in it names"
                + " the session it is for"),
        new RecordingHazards.Seen(HazardCode.UNATTRIBUTABLE_NOTIFICATION, 2,
            "notifications/message from the backend with 2 sessions attached (2 with calls in flight): nothing in it names"
                + " the session it is for")), hazards.seen);
  }

  @Test
  void theBackendsOwnCancellationsAreDroppedUnobserved() {
    legacyBackend();
    RecordingClient a = client("a");
    client("b");
    a.request(1, "tools/call", call("a"));
    mux.onNotification("notifications/cancelled", Map.of("requestId", 1));
    assertEquals(List.of(), a.messages("notifications/cancelled"));
    assertEquals(0, mux.hazards());
  }

  // ---- rule 8: broadcasts and subscriptions ----

  @Test
  void listChangedGoesToEveryClient() {
    legacyBackend();
    RecordingClient a = client("a");
    RecordingClient b = client("b");
    a.request(1, "tools/call", call("a"));
    for (String kind : List.of("tools", "prompts", "resources", "roots")) {
      mux.onNotification("notifications/" + kind + "/list_changed", Map.of());
    }
    for (RecordingClient c : List.of(a, b)) {
      assertEquals(List.of("notifications/tools/list_changed", "notifications/prompts/list_changed",
          "notifications/resources/list_changed", "notifications/roots/list_changed"),
          c.received.stream().filter(m -> m.containsKey("method")).map(m -> m.get("method")).toList(), c.name);
    }
    assertEquals(0, mux.hazards());
  }

  @Test
  void subscriptionsAreCountedPerUriAndUpdatesGoOnlyToSubscribers() {
    legacyBackend();
    RecordingClient a = client("a");
    RecordingClient b = client("b");
    RecordingClient c = client("c");
    a.request(1, "resources/subscribe", Map.of("uri", "file:///x"));
    b.request(1, "resources/subscribe", Map.of("uri", "file:///x"));
    c.request(1, "resources/subscribe", Map.of("uri", "file:///y"));
    assertEquals(List.of("file:///x", "file:///y"), uris("resources/subscribe"), "one subscribe per URI");
    assertEquals(List.of(), b.answers(), "b waits for the backend's answer to a's subscribe");
    backend.sent("resources/subscribe").forEach(s -> s.result(Map.of()));
    for (RecordingClient r : List.of(a, b, c)) {
      assertEquals(Map.of(), result(r.answersTo(1).get(0)), r.name);
    }

    mux.onNotification("notifications/resources/updated", Map.of("uri", "file:///x"));
    assertEquals(1, a.messages("notifications/resources/updated").size());
    assertEquals(1, b.messages("notifications/resources/updated").size());
    assertEquals(0, c.messages("notifications/resources/updated").size());

    a.request(2, "resources/unsubscribe", Map.of("uri", "file:///x"));
    assertEquals(Map.of(), result(a.answersTo(2).get(0)));
    assertEquals(List.of(), uris("resources/unsubscribe"), "b still subscribes");
    mux.onNotification("notifications/resources/updated", Map.of("uri", "file:///x"));
    assertEquals(1, a.messages("notifications/resources/updated").size(), "a left");
    assertEquals(2, b.messages("notifications/resources/updated").size());

    b.channel.close();
    assertEquals(List.of("file:///x"), uris("resources/unsubscribe"), "the last subscriber left by closing");
    assertEquals(0, mux.hazards());
    assertEquals(2, mux.calls(), "one subscribe per URI was written for clients");
  }

  private List<Object> uris(String method) {
    return backend.sent(method).stream().map(s -> s.params().get("uri")).toList();
  }

  @Test
  void aRefusedSubscribeIsAnsweredToEveryWaitingSubscriberAndTheNextOneAsksAgain() {
    legacyBackend();
    RecordingClient a = client("a");
    RecordingClient b = client("b");
    a.request(1, "resources/subscribe", Map.of("uri", "file:///x"));
    b.request(1, "resources/subscribe", Map.of("uri", "file:///x"));
    backend.only("resources/subscribe").error(-32002, "no such resource");
    assertEquals(-32002, error(a.answersTo(1).get(0)).get("code"));
    assertEquals(-32002, error(b.answersTo(1).get(0)).get("code"));
    mux.onNotification("notifications/resources/updated", Map.of("uri", "file:///x"));
    assertEquals(List.of(), a.messages("notifications/resources/updated"));
    b.request(2, "resources/subscribe", Map.of("uri", "file:///x"));
    assertEquals(2, backend.sent("resources/subscribe").size());
    b.channel.close();
    assertEquals(List.of(), uris("resources/unsubscribe"), "never accepted, so never unsubscribed");
  }

  @Test
  void theLastSubscriberLeavingBeforeTheBackendAnswersStillUnsubscribesIt() {
    legacyBackend();
    RecordingClient a = client("a");
    a.request(1, "resources/subscribe", Map.of("uri", "file:///x"));
    a.channel.close();
    assertEquals(List.of(), uris("resources/unsubscribe"), "not before the subscribe is answered");
    backend.only("resources/subscribe").result(Map.of());
    assertEquals(List.of("file:///x"), uris("resources/unsubscribe"));
    assertEquals(List.of(), a.received, "a left: no answer");
    RecordingClient b = client("b");
    b.request(1, "resources/subscribe", Map.of("uri", "file:///x"));
    assertEquals(2, backend.sent("resources/subscribe").size(), "a new subscriber subscribes again");
  }

  @Test
  void aSubscriberJoiningBeforeTheBackendAnswersKeepsTheSubscription() {
    legacyBackend();
    RecordingClient a = client("a");
    RecordingClient b = client("b");
    a.request(1, "resources/subscribe", Map.of("uri", "file:///x"));
    a.channel.close();
    b.request(1, "resources/subscribe", Map.of("uri", "file:///x"));
    backend.only("resources/subscribe").result(Map.of());
    assertEquals(List.of(), uris("resources/unsubscribe"), "b still subscribes");
    assertEquals(Map.of(), result(b.answersTo(1).get(0)));
    mux.onNotification("notifications/resources/updated", Map.of("uri", "file:///x"));
    assertEquals(1, b.messages("notifications/resources/updated").size());
  }

  // ---- rule 9: leaving ----

  @Test
  void closingAChannelCancelsItsCallsReleasesItsSubscriptionsAndLeavesTheBackendOpen() {
    legacyBackend();
    backend.lateAnswers = true;
    RecordingClient a = client("a");
    RecordingClient b = client("b");
    a.request(1, "tools/call", call("a1"));
    a.request(2, "tools/call", call("a2"));
    b.request(1, "tools/call", call("b"));
    a.request(3, "resources/subscribe", Map.of("uri", "file:///x"));
    backend.only("resources/subscribe").result(Map.of());
    a.channel.close();
    a.channel.close();
    assertEquals(Set.of(backend.withMarker("tools/call", "a1").answer(), backend.withMarker("tools/call", "a2").answer()),
        Set.copyOf(backend.cancels.stream().map(MemorySession.Cancel::answer).toList()));
    assertEquals(List.of("file:///x"), uris("resources/unsubscribe"));
    backend.withMarker("tools/call", "a1").result(text("late"));
    assertEquals(1, a.answers().size(), "only the subscribe's answer; nothing after leaving");
    a.channel.fromClient(Map.of("jsonrpc", "2.0", "id", 9, "method", "tools/call", "params", call("ignored")));
    assertEquals(3, backend.sent("tools/call").size(), "a closed channel forwards nothing");
    assertEquals(1, mux.attached());

    b.channel.close();
    assertEquals(0, mux.attached());
    assertFalse(backend.closed, "the pool decides when the backend ends");
    assertFalse(backend.gone);
  }

  // ---- rule 10: the backend's end ----

  @Test
  void backendExitedInterruptsEveryCallInFlightAndEveryLaterOneNeverReplaying() {
    legacyBackend();
    RecordingClient a = client("a");
    RecordingClient b = client("b");
    a.request(1, "tools/call", call("a"));
    b.request("b-1", "tools/call", call("b"));
    mux.backendExited("exited 137 before answering tools/call");
    for (RecordingClient c : List.of(a, b)) {
      Map<String, Object> e = error(c.answers().get(0));
      assertEquals(ErrorCode.CALL_INTERRUPTED.code(), e.get("code"), c.name);
      String message = String.valueOf(e.get("message"));
      assertTrue(message.startsWith("call interrupted:"), message);
      assertTrue(message.contains("'memory'"), message);
      assertTrue(message.contains("exited 137 before answering tools/call"), message);
      assertEquals(Map.of("server", "memory", "reason", "exited 137 before answering tools/call"), e.get("data"));
    }
    assertEquals(1, a.answersTo(1).size());
    assertEquals(1, b.answersTo("b-1").size());

    a.request(2, "tools/call", call("a again"));
    a.request(3, "ping", Map.of());
    assertEquals(ErrorCode.CALL_INTERRUPTED.code(), error(a.answersTo(2).get(0)).get("code"));
    assertEquals(ErrorCode.CALL_INTERRUPTED.code(), error(a.answersTo(3).get(0)).get("code"));
    assertEquals(2, backend.sent("tools/call").size(), "nothing is written to a dead backend, nothing replayed");
    backend.withMarker("tools/call", "a").result(text("a ghost"));
    assertEquals(1, a.answersTo(1).size());

    mux.backendExited("a second reason");
    b.request("b-2", "tools/call", call("b again"));
    assertTrue(String.valueOf(error(b.answersTo("b-2").get(0)).get("message")).contains("exited 137"), "the first reason stays");
    Attach late = mux.attach("late", legacy("late", VERSION), new RecordingClient("late"));
    assertTrue(((Attach.NeedsDedicated) late).why().contains("exited 137"), late.toString());
  }

  @Test
  void anAnswerFailingBecauseTheBackendWentAwayInterruptsEveryCall() {
    legacyBackend();
    RecordingClient a = client("a");
    RecordingClient b = client("b");
    a.request(1, "tools/call", call("a"));
    b.request(1, "tools/call", call("b"));
    a.request(2, "resources/subscribe", Map.of("uri", "file:///x"));
    backend.withMarker("tools/call", "a").answer()
        .completeExceptionally(new SessionException(SessionException.Kind.EXITED, "exited 3 before answering tools/call"));
    for (Map<String, Object> answer : List.of(a.answersTo(1).get(0), b.answersTo(1).get(0), a.answersTo(2).get(0))) {
      Map<String, Object> e = error(answer);
      assertEquals(ErrorCode.CALL_INTERRUPTED.code(), e.get("code"));
      assertTrue(String.valueOf(e.get("message")).contains("exited 3 before answering tools/call"), e.toString());
    }
    assertEquals(3, a.received.size() + b.received.size(), "one answer each, the subscribe's included: " + a + b);
  }

  @Test
  void aWriteFailingBecauseTheBackendWentAwayInterruptsTheCall() {
    legacyBackend();
    RecordingClient a = client("a");
    RecordingClient b = client("b");
    b.request(1, "tools/call", call("b"));
    backend.gone = true;
    a.request(1, "tools/call", call("a"));
    assertEquals(ErrorCode.CALL_INTERRUPTED.code(), error(a.answersTo(1).get(0)).get("code"));
    assertEquals(ErrorCode.CALL_INTERRUPTED.code(), error(b.answersTo(1).get(0)).get("code"));
  }

  @Test
  void closingTheMultiplexerInterruptsAndCancelsEveryCallButLeavesTheBackendOpen() {
    legacyBackend();
    backend.lateAnswers = true;
    RecordingClient a = client("a");
    a.request(1, "tools/call", call("a"));
    mux.close();
    assertEquals(ErrorCode.CALL_INTERRUPTED.code(), error(a.answersTo(1).get(0)).get("code"));
    assertEquals(1, backend.cancels.size());
    assertEquals(0, mux.attached());
    assertFalse(backend.closed);
    assertInstanceOf(Attach.NeedsDedicated.class, mux.attach("late", legacy("late", VERSION), new RecordingClient("late")));
  }

  // ---- bounds and misuse ----

  @Test
  void theSessionLimitSendsTheNextClientToADedicatedBackend() {
    mux = new Multiplexer("memory", hazards, new MuxSettings(2, 8));
    legacyBackend();
    client("a");
    client("b");
    Attach third = mux.attach("c", legacy("c", VERSION), new RecordingClient("c"));
    assertTrue(((Attach.NeedsDedicated) third).why().contains(MuxSettings.MAX_SESSIONS), third.toString());
  }

  @Test
  void callsBeyondTheInFlightLimitAreRefusedUnforwarded() {
    mux = new Multiplexer("memory", hazards, new MuxSettings(8, 2));
    legacyBackend();
    RecordingClient a = client("a");
    RecordingClient b = client("b");
    a.request(1, "tools/call", call("1"));
    a.request(2, "tools/call", call("2"));
    a.request(3, "tools/call", call("3"));
    b.request(1, "tools/call", call("b"));
    assertEquals(3, backend.sent("tools/call").size());
    Map<String, Object> e = error(a.answersTo(3).get(0));
    assertEquals(ErrorCode.INTERNAL_ERROR.code(), e.get("code"));
    assertTrue(String.valueOf(e.get("message")).contains(MuxSettings.MAX_IN_FLIGHT_PER_SESSION), e.toString());
  }

  @Test
  void misuseIsRefusedClearly() {
    assertThrows(IllegalStateException.class, () -> mux.attach("a", legacy("a", VERSION), new RecordingClient("a")));
    legacyBackend();
    assertThrows(IllegalStateException.class, () -> mux.bind(backend, INITIALIZE_RESULT, HandshakeEra.INITIALIZE));
    client("a");
    assertThrows(IllegalArgumentException.class, () -> mux.attach("a", legacy("a", VERSION), new RecordingClient("a")));
    Multiplexer other = new Multiplexer("x", hazards, MuxSettings.defaults());
    assertThrows(IllegalArgumentException.class,
        () -> other.bind(backend, Map.of("capabilities", Map.of()), HandshakeEra.INITIALIZE));
  }

  @Test
  void aRequestWithAnIdThatIsNeitherStringNorNumberIsRefused() {
    legacyBackend();
    RecordingClient a = client("a");
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("jsonrpc", "2.0");
    m.put("id", null);
    m.put("method", "tools/call");
    m.put("params", call("a"));
    a.channel.fromClient(m);
    assertEquals(ErrorCode.INVALID_REQUEST.code(), error(a.received.get(0)).get("code"));
    assertEquals(List.of(), backend.requests);
  }

  @Test
  void otherClientNotificationsReachTheBackendUnchanged() {
    legacyBackend();
    RecordingClient a = client("a");
    a.notification("notifications/roots/list_changed", Map.of());
    assertEquals(List.of(new MemorySession.Notice("notifications/roots/list_changed", Map.of())), backend.notifications);
  }

  @Test
  void anAutoEraIsTakenFromTheSession() {
    backend = new MemorySession(HandshakeEra.DISCOVER);
    mux.bind(backend, DISCOVER_RESULT, HandshakeEra.AUTO);
    RecordingClient alice = client("alice");
    alice.request(1, "tools/list", Map.of());
    assertEquals(Mcp.MODERN_VERSION, backend.only("tools/list").meta().get(Mcp.META_PROTOCOL_VERSION));
  }

  // ---- corners the mutation run found unchecked ----
  // Each test names the mutant of Multiplexer it kills (method, line at the time, mutator).

  private static final Map<String, Object> DISCOVER_WITH_LOGGING = Map.of(
      "resultType", "complete",
      "protocolVersion", Mcp.MODERN_VERSION,
      "supportedVersions", List.of(Mcp.MODERN_VERSION),
      "capabilities", Map.of("tools", Map.of(), "logging", Map.of()),
      "serverInfo", Map.of("name", "modern-server", "version", "3.0.0"));

  @Test
  void aCancellationReportedThroughADependentFutureIsNotTheBackendsEnd() {
    // Kills cancellation (665), either condition of its unwrapping loop negated: a session may
    // hand out a future derived from its own, which fails with a CompletionException around the
    // CancellationException; read as a failure, it would end the shared backend for everyone.
    legacyBackend();
    backend.lateAnswers = true;
    RecordingClient a = client("a");
    a.request(1, "tools/call", call("first"));
    a.notification("notifications/cancelled", Map.of("requestId", 1));
    backend.only("tools/call").answer().completeExceptionally(new CompletionException(new CancellationException("cancelled")));
    assertEquals(Optional.empty(), mux.ended());
    a.request(2, "tools/call", call("second"));
    assertEquals(2, backend.sent("tools/call").size(), "the backend still serves");
    assertEquals(List.of(), a.received);
  }

  @Test
  void theReasonAFailedAnswerGivesIsFoundUnderItsWrappersOrNamedByItsType() {
    // Kills reason (653), each of the three conditions of its unwrapping loop negated, and its
    // last return replaced with "" (660).
    legacyBackend();
    RecordingClient a = client("a");
    a.request(1, "tools/call", call("a"));
    backend.only("tools/call").answer().completeExceptionally(new CompletionException(
        new ExecutionException(new SessionException(SessionException.Kind.EXITED, "exited 9 mid-call"))));
    assertEquals(Optional.of("exited 9 mid-call"), mux.ended());
    assertEquals(Map.of("server", "memory", "reason", "exited 9 mid-call"), error(a.answersTo(1).get(0)).get("data"));

    mux = new Multiplexer("memory", hazards, MuxSettings.defaults());
    backend = new MemorySession(HandshakeEra.INITIALIZE);
    legacyBackend();
    RecordingClient b = client("b");
    b.request(1, "tools/call", call("b"));
    backend.only("tools/call").answer().completeExceptionally(new IllegalStateException("a bug in the session"));
    assertEquals(Optional.of("its answer failed: IllegalStateException"), mux.ended());
    assertEquals(ErrorCode.CALL_INTERRUPTED.code(), error(b.answersTo(1).get(0)).get("code"));
  }

  @Test
  void anUpkeepRequestFailingBecauseTheBackendWentAwayEndsIt() {
    // Kills the answer handler of upkeep, `failure != null` negated (680): the backend's death
    // seen in the answer to the multiplexer's own logging/setLevel went unnoticed.
    legacyBackend();
    RecordingClient a = client("a");
    RecordingClient b = client("b");
    b.request(1, "tools/call", call("b"));
    a.request(1, "logging/setLevel", Map.of("level", "info"));
    backend.only("logging/setLevel").answer()
        .completeExceptionally(new SessionException(SessionException.Kind.EXITED, "exited 5 before answering logging/setLevel"));
    assertEquals(Optional.of("exited 5 before answering logging/setLevel"), mux.ended());
    Map<String, Object> e = error(b.answersTo(1).get(0));
    assertEquals(ErrorCode.CALL_INTERRUPTED.code(), e.get("code"));
  }

  @Test
  void anUpkeepRequestCancelledOrRefusedLeavesTheBackendServing() {
    // Kills the answer handler of upkeep, `!cancellation(failure)` negated (681).
    legacyBackend();
    RecordingClient a = client("a");
    RecordingClient b = client("b");
    a.request(1, "logging/setLevel", Map.of("level", "info"));
    backend.only("logging/setLevel").answer().cancel(false);
    b.request(1, "logging/setLevel", Map.of("level", "debug"));
    backend.sent("logging/setLevel").get(1).error(-32603, "no logging here after all");
    assertEquals(Optional.empty(), mux.ended());
    a.request(2, "tools/call", call("a"));
    assertEquals(1, backend.sent("tools/call").size());
    assertEquals(List.of(), a.answersTo(2));
  }

  @Test
  void aServerRequestAfterTheEndWithOneSessionAttachedIsRefusedUnobserved() throws Exception {
    // Kills onRequestAsync, `attached > 1` changed to `>= 1` (450): the only session owns the
    // backend's attention, so a request it cannot be given (the backend has ended) is no
    // sharing hazard.
    legacyBackend();
    RecordingClient a = client("a");
    mux.backendExited("exited 1");
    ServerMessageHandler.Reply r = mux.onRequestAsync("roots/list", Map.of()).toCompletableFuture().get();
    assertInstanceOf(ServerMessageHandler.Error.class, r);
    assertEquals(List.of(), a.messages("roots/list"));
    assertEquals(List.of(), hazards.seen);
  }

  @Test
  void aBlockingServerRequestOnAnInterruptedThreadIsAnsweredWithAnErrorAndKeepsTheInterrupt() {
    // Kills onRequest without its Thread.interrupt (417): the caller's interrupt was swallowed.
    legacyBackend();
    RecordingClient a = client("a");
    a.request(1, "tools/call", call("a"));
    Thread.currentThread().interrupt();
    ServerMessageHandler.Reply r = mux.onRequest("roots/list", Map.of());
    assertTrue(Thread.interrupted(), "the interrupt is kept for the caller");
    assertEquals(new ServerMessageHandler.Error(ErrorCode.INTERNAL_ERROR.code(), "interrupted while roots/list awaited a client"), r);
  }

  @Test
  void theMultiplexerAndItsChannelsNameThemselves() {
    // Kills toString (969: its condition negated, "" returned), Channel.sessionId and
    // Channel.toString returning "" (1005, 1315).
    legacyBackend();
    RecordingClient a = client("a");
    assertEquals("Multiplexer['memory', 1 attached]", mux.toString());
    assertEquals("a", a.channel.sessionId());
    assertEquals("ClientChannel[a on 'memory']", a.channel.toString());
    mux.backendExited("exited 2");
    assertEquals("Multiplexer['memory', 1 attached, ended]", mux.toString());
  }

  @Test
  void aRequestWhoseIdIsANumberWithoutADecimalFormIsInvalid() {
    // The id rule is RequestId's: NaN and infinities are no ids (they would otherwise share one
    // key), and the text "NaN" is a string id of its own.
    legacyBackend();
    RecordingClient a = client("a");
    a.request(Double.NaN, "tools/call", call("nan"));
    a.request(Double.POSITIVE_INFINITY, "tools/call", call("infinity"));
    assertEquals(List.of(), backend.sent("tools/call"));
    assertEquals(2, a.answersTo(Json.NULL).size());
    a.answersTo(Json.NULL).forEach(m -> assertEquals(ErrorCode.INVALID_REQUEST.code(), error(m).get("code")));
    a.request("NaN", "tools/call", call("text"));
    assertEquals(1, backend.sent("tools/call").size());
  }

  @Test
  void aClientsAnswerToAServerRequestIsPassedOnWithDefaultsAndANonObjectResultIsAnError() throws Exception {
    // Kills Channel.answered, either condition of `result == null || result == Json.NULL`
    // negated (1265, uncovered before); also pins its defaults for an error without a code or a
    // message.
    legacyBackend();
    RecordingClient a = client("a");
    a.request(1, "tools/call", call("a"));
    a.onServerRequest = r -> Map.of("error", Map.of("message", "declined"));
    assertEquals(new ServerMessageHandler.Error(ErrorCode.INTERNAL_ERROR.code(), "declined"),
        mux.onRequestAsync("elicitation/create", Map.of()).toCompletableFuture().get());
    a.onServerRequest = r -> Map.of("error", Map.of("code", 7));
    assertEquals(new ServerMessageHandler.Error(7, ""),
        mux.onRequestAsync("elicitation/create", Map.of()).toCompletableFuture().get());

    a.onServerRequest = r -> Map.of("result", Json.NULL);
    assertEquals(new ServerMessageHandler.Result(Map.of()), mux.onRequestAsync("roots/list", Map.of()).toCompletableFuture().get());
    a.onServerRequest = r -> {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("result", null);
      return m;
    };
    assertEquals(new ServerMessageHandler.Result(Map.of()), mux.onRequestAsync("roots/list", Map.of()).toCompletableFuture().get());
    a.onServerRequest = r -> Map.of("result", "yes");
    assertEquals(new ServerMessageHandler.Error(ErrorCode.INTERNAL_ERROR.code(),
            "the client answered elicitation/create with a result that is not an object"),
        mux.onRequestAsync("elicitation/create", Map.of()).toCompletableFuture().get());
  }

  @Test
  void absentOrNullParamsAreEmptyAndParamsThatAreNotAnObjectAreRefused() {
    // Kills Channel.fromClient, each condition of `objectParams` negated (1021), and the refusal
    // of a request whose params are not an object removed (1034).
    legacyBackend();
    RecordingClient a = client("a");
    Map<String, Object> absent = new LinkedHashMap<>(Map.of("jsonrpc", "2.0", "id", 1, "method", "tools/list"));
    a.channel.fromClient(absent);
    Map<String, Object> nullParams = new LinkedHashMap<>(absent);
    nullParams.put("id", 2);
    nullParams.put("method", "prompts/list");
    nullParams.put("params", Json.NULL);
    a.channel.fromClient(nullParams);
    assertEquals(Map.of(), backend.only("tools/list").params());
    assertEquals(Map.of(), backend.only("prompts/list").params());

    a.channel.fromClient(Map.of("jsonrpc", "2.0", "id", 3, "method", "tools/call", "params", List.of("echo")));
    assertEquals(ErrorCode.INVALID_PARAMS.code(), error(a.answersTo(3).get(0)).get("code"));
    a.channel.fromClient(Map.of("jsonrpc", "2.0", "method", "notifications/roots/list_changed", "params", List.of()));
    assertEquals(List.of(), backend.sent("tools/call"));
    assertEquals(List.of(), backend.notifications, "a notification with params that are not an object is dropped");
  }

  @Test
  void aSubscribeOrUnsubscribeWithoutAUriIsRefused() {
    // Kills subscribe and Channel.request without the delivery of their refusal (738, 1094).
    legacyBackend();
    RecordingClient a = client("a");
    a.request(1, "resources/subscribe", Map.of());
    a.request(2, "resources/unsubscribe", Map.of("uri", 5));
    assertEquals(ErrorCode.INVALID_PARAMS.code(), error(a.answersTo(1).get(0)).get("code"));
    assertEquals(ErrorCode.INVALID_PARAMS.code(), error(a.answersTo(2).get(0)).get("code"));
    assertEquals(List.of(), backend.requests);
  }

  @Test
  void aSubscribeThatCannotBeWrittenIsInterrupted() {
    // Kills subscribe without its call to subscribed when the write fails (767): the subscriber
    // waited for an answer that never came.
    legacyBackend();
    RecordingClient a = client("a");
    backend.gone = true;
    a.request(1, "resources/subscribe", Map.of("uri", "file:///x"));
    assertEquals(ErrorCode.CALL_INTERRUPTED.code(), error(a.answersTo(1).get(0)).get("code"));
    assertTrue(mux.ended().isPresent());
  }

  @Test
  void theUnsubscribeCarriesTheEraEntriesOfTheLastSubscriberToLeave() {
    // Kills unsubscribeAtBackend, `on == null` negated (828): the discover-era backend got an
    // unsubscribe naming no client.
    modernBackend();
    RecordingClient alice = client("alice");
    alice.request(1, "resources/subscribe", Map.of("uri", "file:///x"));
    backend.only("resources/subscribe").result(Map.of());
    alice.request(2, "resources/unsubscribe", Map.of("uri", "file:///x"));
    assertEquals(Map.of("uri", "file:///x",
            "_meta", Mcp.modernMeta(Map.of("name", "alice", "version", "1.0.0"), RecordingClient.CAPABLE)),
        backend.only("resources/unsubscribe").params());
  }

  @Test
  void anInitializeEraBackendsSetLevelCarriesNoEraEntries() {
    // Kills withOwnMeta, `b.era() != DISCOVER` negated (854).
    legacyBackend();
    RecordingClient a = client("a");
    a.request(1, "logging/setLevel", Map.of("level", "info"));
    assertEquals(Map.of("level", "info"), backend.only("logging/setLevel").params());
  }

  @Test
  void theMultiplexersOwnRequestsCarryTheEraEntriesOfTheClientTheyAreMadeFor() {
    // Kills withOwnMeta, `c.legacyClient` and `!c.eraMeta.isEmpty()` negated (858, 860), its
    // return replaced with an empty map (866); and Channel.request's capture of a modern
    // client's era entries: either condition of its era test negated (1054), its
    // protocolVersion test negated (1056), its per-key test negated (1059).
    backend = new MemorySession(HandshakeEra.DISCOVER);
    mux.bind(backend, DISCOVER_WITH_LOGGING, HandshakeEra.DISCOVER);
    RecordingClient alice = client("alice");
    RecordingClient bob = RecordingClient.attach(mux, "bob", Map.of());
    RecordingClient dan = RecordingClient.attach(mux, "dan", Map.of());
    RecordingClient eve = RecordingClient.attach(mux, "eve", Map.of());

    Map<String, Object> bobMeta = new LinkedHashMap<>(Mcp.modernMeta(Map.of("name", "bob", "version", "9"), Map.of("roots", Map.of())));
    Map<String, Object> withExtras = new LinkedHashMap<>(bobMeta);
    withExtras.put("custom", "x");
    withExtras.put("progressToken", "t");
    bob.request(1, "tools/list", Map.of("_meta", withExtras));
    Map<String, Object> danMeta = Map.of(Mcp.META_PROTOCOL_VERSION, Mcp.MODERN_VERSION,
        Mcp.META_CLIENT_INFO, Map.of("name", "dan", "version", "2"));
    dan.request(1, "tools/list", Map.of("_meta", danMeta));

    alice.request(2, "logging/setLevel", Map.of("level", "emergency"));
    bob.request(2, "logging/setLevel", Map.of("level", "warning"));
    dan.request(2, "logging/setLevel", Map.of("level", "info"));
    eve.request(2, "logging/setLevel", Map.of("level", "debug"));
    List<Object> metas = backend.sent("logging/setLevel").stream().map(s -> (Object) s.meta()).toList();
    assertEquals(List.of(
            Mcp.modernMeta(Map.of("name", "alice", "version", "1.0.0"), RecordingClient.CAPABLE),
            bobMeta,
            danMeta,
            Mcp.modernMeta(EraBridge.OWN_CLIENT_INFO, Map.of())),
        metas);
  }

  @Test
  void aLocalInitializeOnADiscoverBackendAnswersTheVersionAskedForOrTheClientsOwnOrTheLegacyOne() {
    // Kills initializeResult, either condition of `v instanceof String && !v.isEmpty()` negated
    // (875), and `c.legacyClient` negated (876).
    modernBackend();
    RecordingClient alice = client("alice");
    RecordingClient bob = RecordingClient.attach(mux, "bob", Map.of());
    alice.request(1, "initialize", Map.of());
    alice.request(2, "initialize", Map.of("protocolVersion", ""));
    alice.request(3, "initialize", Map.of("protocolVersion", "2025-03-26"));
    bob.request(1, "initialize", Map.of());
    assertEquals(VERSION, result(alice.answersTo(1).get(0)).get("protocolVersion"));
    assertEquals(VERSION, result(alice.answersTo(2).get(0)).get("protocolVersion"));
    assertEquals("2025-03-26", result(alice.answersTo(3).get(0)).get("protocolVersion"));
    assertEquals(Mcp.LEGACY_VERSION, result(bob.answersTo(1).get(0)).get("protocolVersion"));
  }

  @Test
  void progressOfACallThatWasCancelledLeftOrInterruptedReachesNobody() {
    // Kills Channel.cancelled and Channel.close, `r.backendToken != null` negated (1233, 1286),
    // and ended without progressOwners.clear() (616): the session's token stayed owned, and
    // later progress under it reached a client whose call had ended.
    legacyBackend();
    backend.lateAnswers = true;
    RecordingClient a = client("a");
    RecordingClient b = client("b");
    RecordingClient c = client("c");
    a.request(1, "tools/call", callWithToken("a1", "tok"));
    Object cancelled = backend.withMarker("tools/call", "a1").meta().get("progressToken");
    a.notification("notifications/cancelled", Map.of("requestId", 1));
    mux.onNotification("notifications/progress", Map.of("progressToken", cancelled, "progress", 1));

    b.request(1, "tools/call", callWithToken("b1", "tok"));
    Object left = backend.withMarker("tools/call", "b1").meta().get("progressToken");
    b.channel.close();
    mux.onNotification("notifications/progress", Map.of("progressToken", left, "progress", 1));

    c.request(1, "tools/call", callWithToken("c1", "tok"));
    Object interrupted = backend.withMarker("tools/call", "c1").meta().get("progressToken");
    mux.backendExited("exited 4");
    mux.onNotification("notifications/progress", Map.of("progressToken", interrupted, "progress", 1));

    assertEquals(List.of(), a.messages("notifications/progress"));
    assertEquals(List.of(), b.messages("notifications/progress"));
    assertEquals(List.of(), c.messages("notifications/progress"));
    assertEquals(List.of(), hazards.seen, "late progress under a token the multiplexer issued is no hazard");
  }

  @Test
  void progressAfterACancelIsDroppedWithoutAHazardButATokenNeverIssuedStillIsOne() {
    legacyBackend();
    backend.lateAnswers = true;
    RecordingClient a = client("a");
    RecordingClient b = client("b");
    a.request(1, "tools/call", callWithToken("a1", "tok"));
    Object token = backend.withMarker("tools/call", "a1").meta().get("progressToken");
    a.notification("notifications/cancelled", Map.of("requestId", 1));
    mux.onNotification("notifications/progress", Map.of("progressToken", token, "progress", 2));
    assertEquals(List.of(), a.messages("notifications/progress"));
    assertEquals(List.of(), b.messages("notifications/progress"));
    assertEquals(List.of(), hazards.seen);
    // One the multiplexer has not given out yet, or never would, is nobody's: observed.
    mux.onNotification("notifications/progress", Map.of("progressToken", "cotenant-99", "progress", 1));
    mux.onNotification("notifications/progress", Map.of("progressToken", "cotenant-x", "progress", 1));
    assertEquals(2, hazards.seen.size(), hazards.seen.toString());
  }

  @Test
  void theEndIsLoggedOnceWithItsFirstReasonAndClosingIsNotLoggedAsAnEnd() {
    // Kills ended, `first` and `!CLOSED_REASON.equals(reason)` negated (618).
    legacyBackend();
    String exited = Stderr.capture(() -> {
      mux.backendExited("exited 137");
      mux.backendExited("a later reason");
    });
    List<String> lines = exited.lines().filter(l -> l.contains("the backend of 'memory' ended")).toList();
    assertEquals(1, lines.size(), exited);
    assertTrue(lines.get(0).contains("ended (exited 137); 0 call(s) interrupted, none replayed"), exited);

    Multiplexer other = new Multiplexer("other", hazards, MuxSettings.defaults());
    other.bind(new MemorySession(HandshakeEra.INITIALIZE), INITIALIZE_RESULT, HandshakeEra.INITIALIZE);
    String closed = Stderr.capture(other::close);
    assertFalse(closed.contains("ended"), closed);
  }
}
