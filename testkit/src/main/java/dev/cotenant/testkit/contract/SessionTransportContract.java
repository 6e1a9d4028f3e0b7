package dev.cotenant.testkit.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.cotenant.api.ServerDescription;
import dev.cotenant.spi.HandshakeEra;
import dev.cotenant.spi.Mcp;
import dev.cotenant.spi.ServerMessageHandler;
import dev.cotenant.spi.ServerSession;
import dev.cotenant.spi.SessionException;
import dev.cotenant.spi.SessionTransport;
import dev.cotenant.spi.rpc.ErrorCode;
import dev.cotenant.testkit.process.ChecksProcessLeaks;
import dev.cotenant.testkit.process.ProcessSnapshot;
import dev.cotenant.testkit.process.Processes;
import dev.cotenant.testkit.server.FakeServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The contract of a {@link SessionTransport} and the {@link ServerSession}s it opens, run against
 * the kit's {@link FakeServer}.
 *
 * <p><b>Checks:</b> the handshake of each era ({@code INITIALIZE}, {@code DISCOVER}) completes and
 * is reported by {@code completedHandshake()}, {@code notifications/initialized} included;
 * {@code AUTO} picks {@code server/discover} when the server offers {@value Mcp#MODERN_VERSION}
 * and falls back to {@code initialize} when it does not; requests in flight together, from several
 * threads, each get their own answer even when the server answers out of order; a notification
 * reaches the server; the server's own request reaches the handler and the handler's
 * {@link ServerMessageHandler.Reply} (result or error) reaches the server; a server notification
 * reaches the handler; {@code close} leaves no process behind, the server's own child included,
 * even for a server that ignores stdin closing and SIGTERM, is idempotent, and fails the answers
 * still awaited; {@code abort} kills the server and fails awaited answers; a server that exits
 * fails pending requests with {@link SessionException.Kind#EXITED}; a command that does not exist
 * fails {@code open} with {@link SessionException.Kind#START}; a silent server times the handshake out with
 * {@link SessionException.Kind#TIMEOUT}. Every test also fails if it leaves a process running
 * ({@link ChecksProcessLeaks}).
 *
 * <p><b>Extending:</b> implement {@link #transport()}; override {@link #timeout()} and
 * {@link #teardownBound()} when your transport needs longer. The transport must pass a
 * description's {@code env} to the process (the fake server's marker travels there). Test
 * methods are package-private: a subclass cannot override a rule away.
 *
 * <p><b>Thread-safety:</b> one suite instance per test, as JUnit does by default; not for parallel
 * execution (the process checks see every process this JVM starts).
 */
@ChecksProcessLeaks
public abstract class SessionTransportContract {
  /** The client info presented in every handshake. */
  protected static final Map<String, Object> CLIENT = Map.of("name", "contract-client", "version", "1.0.0");

  /** The client capabilities declared in every handshake. */
  protected static final Map<String, Object> CAPABILITIES = Map.of();

  /** A fresh directory per test. */
  @TempDir protected Path directory;

  private final List<ServerSession> opened = new CopyOnWriteArrayList<>();

  /** For subclasses. */
  protected SessionTransportContract() {}

  /** The transport under test. Called once per opened session. */
  protected abstract SessionTransport transport() throws Exception;

  /** How long a handshake or an answer may take; 30 s by default (a fake server is a JVM). */
  protected Duration timeout() {
    return Duration.ofSeconds(30);
  }

  /** How long {@code close} or {@code abort} may take to end every process; 20 s by default. */
  protected Duration teardownBound() {
    return Duration.ofSeconds(20);
  }

  @AfterEach
  void closeEverySession() {
    for (ServerSession s : opened) {
      try {
        s.close();
      } catch (RuntimeException e) {
        // The test that opened it reports what matters.
      }
    }
  }

  /** Opens {@code server} through {@link #transport()}, closed after the test. */
  protected final ServerSession open(ServerDescription server, ServerMessageHandler handler) throws Exception {
    ServerSession s = transport().open(server, "contract", handler);
    assertNotNull(s, "open returned null");
    opened.add(s);
    return s;
  }

  private ServerSession open(FakeServer server) throws Exception {
    return open(server.description(), ServerMessageHandler.noUser("a contract test has no user"));
  }

  /** Opens {@code server} as {@link #open(FakeServer)} does and hands it the {@code initialize} handshake. */
  private ServerSession openInitialized(FakeServer server) throws Exception {
    ServerSession s = open(server);
    handshake(s, HandshakeEra.INITIALIZE);
    return s;
  }

  private Map<String, Object> handshake(ServerSession s, HandshakeEra era) throws Exception {
    Map<String, Object> answer = s.handshake(era, CLIENT, CAPABILITIES, timeout());
    assertNotNull(answer, "handshake returned null");
    return answer;
  }

  private Map<String, Object> await(CompletableFuture<Map<String, Object>> f, String what) throws Exception {
    try {
      return f.get(timeout().toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      throw new AssertionError("no answer to " + what + " within " + timeout().toMillis() + " ms", e);
    }
  }

  private Map<String, Object> params(ServerSession s, Map<String, Object> extra) {
    Map<String, Object> p = new LinkedHashMap<>(extra);
    Map<String, Object> meta = s.eraMeta(CLIENT, CAPABILITIES);
    if (!meta.isEmpty()) {
      p.put("_meta", meta);
    }
    return p;
  }

  private CompletableFuture<Map<String, Object>> call(ServerSession s, Map<String, Object> arguments) throws Exception {
    return s.request("tools/call", params(s, Map.of("name", "echo", "arguments", arguments)));
  }

  /** The text of a {@code tools/call} answer. */
  private static String text(Map<String, Object> response) {
    Map<?, ?> result = assertInstanceOf(Map.class, response.get("result"), "no result in " + response);
    List<?> content = assertInstanceOf(List.class, result.get("content"), "no content in " + response);
    Map<?, ?> first = assertInstanceOf(Map.class, content.get(0), "no content item in " + response);
    return String.valueOf(first.get("text"));
  }

  private static Map<?, ?> result(Map<String, Object> response) {
    return assertInstanceOf(Map.class, response.get("result"), "an error or no result: " + response);
  }

  @Test
  void handshakeInTheInitializeEra() throws Exception {
    ServerSession s = open(FakeServer.builder().era(FakeServer.Era.LEGACY).tool("echo").build());
    assertEquals(Optional.empty(), s.completedHandshake(), "completedHandshake() before any handshake");
    Map<String, Object> answer = handshake(s, HandshakeEra.INITIALIZE);
    assertEquals(Mcp.LEGACY_VERSION, answer.get("protocolVersion"), "the initialize result was not returned: " + answer);
    assertEquals(Optional.of(HandshakeEra.INITIALIZE), s.completedHandshake());
    assertEquals(Map.of(), s.eraMeta(CLIENT, CAPABILITIES), "the initialize era needs no per-request _meta");
    Map<?, ?> tools = result(await(s.request("tools/list", params(s, Map.of())), "tools/list"));
    assertEquals(1, ((List<?>) tools.get("tools")).size(), "tools/list after initialize: " + tools);
    List<?> received = (List<?>) result(await(s.request(FakeServer.RECEIVED_NOTIFICATIONS, Map.of()), "notifications")).get("notifications");
    assertTrue(received.stream().anyMatch(n -> "notifications/initialized".equals(((Map<?, ?>) n).get("method"))),
        "the server never received notifications/initialized: " + received);
  }

  @Test
  void handshakeInTheDiscoverEra() throws Exception {
    ServerSession s = open(FakeServer.builder().era(FakeServer.Era.MODERN).tool("echo").build());
    Map<String, Object> answer = handshake(s, HandshakeEra.DISCOVER);
    assertTrue(String.valueOf(answer.get("supportedVersions")).contains(Mcp.MODERN_VERSION),
        "the server/discover result was not returned: " + answer);
    assertEquals(Optional.of(HandshakeEra.DISCOVER), s.completedHandshake());
    assertEquals(Mcp.MODERN_VERSION, s.eraMeta(CLIENT, CAPABILITIES).get(Mcp.META_PROTOCOL_VERSION));
    Map<?, ?> tools = result(await(s.request("tools/list", params(s, Map.of())), "tools/list"));
    assertEquals(1, ((List<?>) tools.get("tools")).size(), "tools/list in the discover era: " + tools);
  }

  @Test
  void autoPrefersDiscoverWhenTheServerOffersIt() throws Exception {
    ServerSession s = open(FakeServer.builder().era(FakeServer.Era.BOTH).build());
    handshake(s, HandshakeEra.AUTO);
    assertEquals(Optional.of(HandshakeEra.DISCOVER), s.completedHandshake());
  }

  @Test
  void autoFallsBackToInitialize() throws Exception {
    ServerSession s = open(FakeServer.builder().era(FakeServer.Era.LEGACY).build());
    Map<String, Object> answer = handshake(s, HandshakeEra.AUTO);
    assertEquals(Optional.of(HandshakeEra.INITIALIZE), s.completedHandshake());
    assertEquals(Mcp.LEGACY_VERSION, answer.get("protocolVersion"), "the initialize result was not returned: " + answer);
  }

  @Test
  void requestsInFlightFromSeveralThreadsGetTheirOwnAnswers() throws Exception {
    ServerSession s = openInitialized(FakeServer.builder().era(FakeServer.Era.LEGACY).tool("echo").build());
    int threads = 6;
    int each = 8;
    List<String> wrong = Concurrently.run(threads, timeout().toSeconds() * 2, worker -> {
      List<CompletableFuture<Map<String, Object>>> futures = new ArrayList<>();
      for (int i = 0; i < each; i++) {
        futures.add(call(s, Map.of("marker", "m-" + worker + "-" + i, "delayMillis", (i * 37 + worker * 11) % 60)));
      }
      for (int i = 0; i < each; i++) {
        String t = text(await(futures.get(i), "call " + worker + "-" + i));
        if (!t.contains("\"m-" + worker + "-" + i + "\"")) {
          return "call m-" + worker + "-" + i + " got " + t;
        }
      }
      return "";
    });
    assertEquals(List.of(), wrong.stream().filter(w -> !w.isEmpty()).collect(Collectors.toList()),
        "answers went to the wrong requests");
  }

  @Test
  void aNotificationReachesTheServer() throws Exception {
    ServerSession s = openInitialized(FakeServer.builder().era(FakeServer.Era.LEGACY).build());
    s.notify("notifications/contract", Map.of("marker", "n-1"));
    List<?> received = (List<?>) result(await(s.request(FakeServer.RECEIVED_NOTIFICATIONS, Map.of()), "notifications")).get("notifications");
    assertTrue(received.stream().anyMatch(n -> "notifications/contract".equals(((Map<?, ?>) n).get("method"))
            && "n-1".equals(((Map<?, ?>) ((Map<?, ?>) n).get("params")).get("marker"))),
        "the server did not receive the notification: " + received);
  }

  /** A handler that answers server requests and drops notifications. */
  private abstract static class AnswersRequests implements ServerMessageHandler {
    @Override
    public void onNotification(String method, Map<String, Object> params) {}
  }

  /** A legacy fake server that asks {@code roots/list} on each call, opened with {@code handler} and initialized. */
  private ServerSession openAskingForRoots(ServerMessageHandler handler) throws Exception {
    ServerSession s = open(FakeServer.builder().era(FakeServer.Era.LEGACY).sendsServerRequestOnCall("roots/list").build()
        .description(), handler);
    handshake(s, HandshakeEra.INITIALIZE);
    return s;
  }

  @Test
  void aServerRequestReachesTheHandlerAndItsReplyReachesTheServer() throws Exception {
    List<String> asked = new CopyOnWriteArrayList<>();
    ServerMessageHandler handler = new AnswersRequests() {
      @Override
      public Reply onRequest(String method, Map<String, Object> params) {
        asked.add(method + " " + params.get("marker"));
        if ("refuse".equals(params.get("marker"))) {
          return new Error(-1, "declined-by-contract");
        }
        return new Result(Map.of("roots", List.of(Map.of("uri", "file:///contract-marker"))));
      }
    };
    ServerSession s = openAskingForRoots(handler);
    String answered = text(await(call(s, Map.of("marker", "accept")), "a call that makes the server ask"));
    assertTrue(answered.contains("file:///contract-marker"), "the handler's result did not reach the server: " + answered);
    String refused = text(await(call(s, Map.of("marker", "refuse")), "a call that makes the server ask"));
    assertTrue(refused.contains("declined-by-contract") && refused.contains("-1"),
        "the handler's error did not reach the server: " + refused);
    assertEquals(List.of("roots/list accept", "roots/list refuse"), asked, "the handler was not asked as expected");
  }

  @Test
  void anAnswerTheHandlerGivesLaterReachesTheServer() throws Exception {
    ServerMessageHandler handler = new AnswersRequests() {
      @Override
      public Reply onRequest(String method, Map<String, Object> params) {
        return new Error(ErrorCode.INTERNAL_ERROR.code(), "onRequest was called; onRequestAsync should have been");
      }

      @Override
      public java.util.concurrent.CompletionStage<Reply> onRequestAsync(String method, Map<String, Object> params) {
        // Completed on another thread, after the session's reader has moved on.
        return CompletableFuture.supplyAsync(() -> new Result(Map.of("roots", List.of(Map.of("uri", "file:///later")))));
      }
    };
    ServerSession s = openAskingForRoots(handler);
    String answered = text(await(call(s, Map.of("marker", "later")), "a call whose server request is answered later"));
    assertTrue(answered.contains("file:///later"), "the later reply did not reach the server: " + answered);
  }

  @Test
  void cancelTellsTheServerAndEndsTheAwaitedAnswer() throws Exception {
    ServerSession s = openInitialized(FakeServer.builder().era(FakeServer.Era.LEGACY).tool("echo").build());
    CompletableFuture<Map<String, Object>> slow = call(s, Map.of("marker", "slow", "delayMillis", 60_000));
    assertTrue(s.cancel(slow, "contract: no longer needed"), "cancel did not find the awaited answer");
    assertTrue(slow.isCancelled(), "the cancelled answer is still awaited");
    assertFalse(s.cancel(slow, "again"), "a second cancel of the same request found it again");
    List<?> received = (List<?>) result(await(s.request(FakeServer.RECEIVED_NOTIFICATIONS, Map.of()), "notifications")).get("notifications");
    assertTrue(received.stream().anyMatch(n -> "notifications/cancelled".equals(((Map<?, ?>) n).get("method"))
            && "contract: no longer needed".equals(((Map<?, ?>) ((Map<?, ?>) n).get("params")).get("reason"))
            && ((Map<?, ?>) ((Map<?, ?>) n).get("params")).get("requestId") != null),
        "the server was not told: " + received);
    // The session still works after a cancel.
    assertTrue(text(await(call(s, Map.of("marker", "after")), "a call after the cancel")).contains("\"after\""));
    assertFalse(s.cancel(new CompletableFuture<>(), "not ours"), "cancel of an answer the session never awaited");
  }

  @Test
  void aServerNotificationReachesTheHandler() throws Exception {
    List<String> got = new CopyOnWriteArrayList<>();
    ServerMessageHandler handler = new ServerMessageHandler() {
      @Override
      public Reply onRequest(String method, Map<String, Object> params) {
        return new Error(ErrorCode.METHOD_NOT_FOUND.code(), ErrorCode.METHOD_NOT_FOUND.title());
      }

      @Override
      public void onNotification(String method, Map<String, Object> params) {
        got.add(method + " " + params.get("marker"));
      }
    };
    ServerSession s = open(FakeServer.builder().era(FakeServer.Era.LEGACY).sendsNotificationOnCall("notifications/message")
        .build().description(), handler);
    handshake(s, HandshakeEra.INITIALIZE);
    await(call(s, Map.of("marker", "n-7")), "a call that makes the server notify");
    long deadline = System.nanoTime() + timeout().toNanos();
    while (!got.contains("notifications/message n-7") && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
    assertTrue(got.contains("notifications/message n-7"), "the handler did not get the server's notification: " + got);
  }

  /**
   * Opens and initializes {@code server}, waits for the {@code processes} it starts, closes the
   * session and asserts they are all gone ({@code after} names the close); returns the session.
   */
  private ServerSession closedWithNothingLeft(FakeServer server, int processes, String after) throws Exception {
    ProcessSnapshot before = ProcessSnapshot.take();
    ServerSession s = openInitialized(server);
    List<ProcessHandle> started = awaitStarted(before, processes);
    s.close();
    assertGone(started, after);
    return s;
  }

  @Test
  void closeLeavesNoProcessBehind() throws Exception {
    ServerSession s = closedWithNothingLeft(FakeServer.builder().era(FakeServer.Era.LEGACY).spawnsChild().build(), 2, "close");
    s.close();
  }

  @Test
  void closeEndsAServerThatIgnoresTermination() throws Exception {
    closedWithNothingLeft(FakeServer.builder().era(FakeServer.Era.LEGACY).ignoresTermination().build(), 1,
        "close of a server that ignores stdin closing and SIGTERM");
  }

  @Test
  void closeFailsTheAnswersStillAwaited() throws Exception {
    ServerSession s = openInitialized(FakeServer.builder().era(FakeServer.Era.LEGACY).build());
    CompletableFuture<Map<String, Object>> pending = call(s, Map.of("delayMillis", 120_000));
    s.close();
    assertFailsWith(pending, null, "an answer awaited when the session closed");
  }

  @Test
  void abortKillsTheServerAndFailsAwaitedAnswers() throws Exception {
    ProcessSnapshot before = ProcessSnapshot.take();
    ServerSession s = openInitialized(FakeServer.builder().era(FakeServer.Era.LEGACY).build());
    List<ProcessHandle> started = awaitStarted(before, 1);
    CompletableFuture<Map<String, Object>> pending = call(s, Map.of("delayMillis", 120_000));
    s.abort("contract abort");
    assertFailsWith(pending, null, "an answer awaited when the session was aborted");
    assertGone(started, "abort");
    s.close();
  }

  @Test
  void aServerThatExitsFailsPendingRequestsWithExited() throws Exception {
    // initialize is request 1, the slow call request 2; the server exits on reading request 3.
    ServerSession s = openInitialized(FakeServer.builder().era(FakeServer.Era.LEGACY).exitAfter(2).build());
    CompletableFuture<Map<String, Object>> slow = call(s, Map.of("delayMillis", 120_000));
    CompletableFuture<Map<String, Object>> last = s.request("ping", Map.of());
    assertFailsWith(slow, SessionException.Kind.EXITED, "a request pending when the server exited");
    assertFailsWith(last, SessionException.Kind.EXITED, "the request the server exited on");
    try {
      CompletableFuture<Map<String, Object>> after = s.request("ping", Map.of());
      assertFailsWith(after, null, "a request written after the server exited");
    } catch (SessionException expected) {
      // Refusing to write to a server that is gone is fine too.
    }
  }

  @Test
  void aCommandThatDoesNotExistFailsWithStart() throws Exception {
    ServerDescription missing = ServerDescription.stdio("missing", directory.resolve("no-such-command").toString(), "--serve");
    try {
      open(missing, ServerMessageHandler.noUser("a contract test has no user"));
      fail("open of a command that does not exist returned a session");
    } catch (SessionException e) {
      assertEquals(SessionException.Kind.START, e.kind(), "a command that does not exist failed with " + e.kind() + ": " + e.getMessage());
    }
  }

  @Test
  void aSilentServerTimesTheHandshakeOut() throws Exception {
    ServerSession s = open(FakeServer.builder().silent().build());
    long start = System.nanoTime();
    try {
      s.handshake(HandshakeEra.INITIALIZE, CLIENT, CAPABILITIES, Duration.ofSeconds(1));
      fail("a handshake with a silent server completed");
    } catch (SessionException e) {
      assertEquals(SessionException.Kind.TIMEOUT, e.kind(), "a silent server failed the handshake with " + e.kind());
    }
    long took = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    assertTrue(took < 1_000 + teardownBound().toMillis(), "a 1 s handshake timeout took " + took + " ms");
  }

  /** The processes started since {@code before}, once at least {@code count} of them run. */
  private List<ProcessHandle> awaitStarted(ProcessSnapshot before, int count) throws InterruptedException {
    long deadline = System.nanoTime() + timeout().toNanos();
    List<ProcessHandle> started = before.startedSince();
    while (started.size() < count && System.nanoTime() < deadline) {
      Thread.sleep(20);
      started = before.startedSince();
    }
    assertTrue(started.size() >= count, "expected " + count + " new process(es), found " + started.size());
    return started;
  }

  private void assertGone(List<ProcessHandle> processes, String after) throws InterruptedException {
    List<ProcessHandle> left = Processes.awaitExit(processes, teardownBound());
    assertFalse(!left.isEmpty(), after + " left processes running after " + teardownBound().toMillis() + " ms: "
        + left.stream().map(Processes::describe).collect(Collectors.joining("; ")));
  }

  /** Waits for {@code f} to fail with a {@link SessionException}, of {@code kind} unless null. */
  private void assertFailsWith(CompletableFuture<Map<String, Object>> f, SessionException.@Nullable Kind kind, String what)
      throws InterruptedException {
    try {
      Map<String, Object> answer = f.get(timeout().toMillis(), TimeUnit.MILLISECONDS);
      fail(what + " was answered: " + answer);
    } catch (TimeoutException e) {
      fail(what + " neither failed nor was answered within " + timeout().toMillis() + " ms");
    } catch (ExecutionException e) {
      SessionException cause = assertInstanceOf(SessionException.class, e.getCause(),
          what + " failed with something other than a SessionException");
      if (kind != null) {
        assertEquals(kind, cause.kind(), what + " failed with " + cause.kind() + ": " + cause.getMessage());
      }
    }
  }
}
