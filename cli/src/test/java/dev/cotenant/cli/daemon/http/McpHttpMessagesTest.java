package dev.cotenant.cli.daemon.http;

import static dev.cotenant.cli.daemon.http.McpHttpHarness.errorCode;
import static dev.cotenant.cli.daemon.http.McpHttpHarness.json;
import static dev.cotenant.cli.daemon.http.McpHttpHarness.request;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

import dev.cotenant.spi.Mcp;
import dev.cotenant.testkit.process.ChecksProcessLeaks;
import dev.cotenant.testkit.server.FakeServer;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Flow;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;
import org.junit.jupiter.api.Test;

/**
 * What a POST may carry, told apart before anything reaches a backend: the body's size limit,
 * with and without a {@code Content-Length}; the {@code Accept} ranges; a client's answer to a
 * server's request; notifications with and without a session; and the path of a server whose
 * name is one character. Each test names the mutants of {@link McpHttpEndpoint} it kills.
 */
@ChecksProcessLeaks(waitMillis = 30_000)
class McpHttpMessagesTest extends McpHttpServerTest {
  private static final FakeServer FAKE = FakeServer.builder().name("fake").era(FakeServer.Era.LEGACY).tool("echo")
      .build();
  private static final FakeServer ONE_LETTER = FakeServer.builder().name("a").era(FakeServer.Era.LEGACY).tool("echo")
      .build();

  private void start() throws Exception {
    http = new McpHttpHarness(records, List.of(FAKE.description(), ONE_LETTER.description()));
  }

  /** A notification padded with spaces to exactly {@code size} bytes. */
  private static String notificationOf(int size) {
    String head = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/padded\"}";
    return head + " ".repeat(size - head.length());
  }

  /** A body sent in chunks, with no {@code Content-Length}. */
  private static HttpRequest.BodyPublisher chunked(String body) {
    HttpRequest.BodyPublisher known = HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8);
    return HttpRequest.BodyPublishers.fromPublisher((Flow.Publisher<java.nio.ByteBuffer>) known::subscribe);
  }

  /**
   * A body of exactly {@value McpHttpEndpoint#MAX_BODY_BYTES} bytes is read, one byte more is
   * 413, with a {@code Content-Length} and without. Mutants: both comparisons with the limit
   * at {@code >=} (the declared length's in {@code readBody}, the read body's in {@code post}).
   */
  @Test
  void theBodyLimitIsExactlyFourMebibytesWithAndWithoutALength() throws Exception {
    start();
    for (boolean withLength : List.of(true, false)) {
      String at = notificationOf(McpHttpEndpoint.MAX_BODY_BYTES);
      String over = notificationOf(McpHttpEndpoint.MAX_BODY_BYTES + 1);
      HttpResponse<String> atLimit = http.send(http.post("fake", "")
          .POST(withLength ? HttpRequest.BodyPublishers.ofString(at) : chunked(at)));
      assertEquals(400, atLimit.statusCode(), "read, then refused for want of a session: " + atLimit.body());
      assertTrue(atLimit.body().contains(McpHttpEndpoint.SESSION_HEADER), atLimit.body());
      HttpResponse<String> overLimit = http.send(http.post("fake", "")
          .POST(withLength ? HttpRequest.BodyPublishers.ofString(over) : chunked(over)));
      assertEquals(413, overLimit.statusCode(), (withLength ? "with" : "without") + " a length: " + overLimit.body());
    }
  }

  private static Request accepting(String... values) {
    Request request = mock(Request.class);
    HttpFields.Mutable headers = HttpFields.build();
    for (String v : values) {
      headers.add(HttpHeader.ACCEPT, v);
    }
    when(request.getHeaders()).thenReturn(headers);
    return request;
  }

  /**
   * The {@code Accept} ranges: wildcards admit, {@code q=0} in any spelling refuses, other
   * weights admit, no header admits everything. Mutants: {@code accepts} answering false for a
   * request without the header, and its weight check's {@code |=} as {@code &=} or negated.
   */
  @Test
  void acceptRangesAdmitByTypeAndWildcardAndRefuseAtWeightZero() {
    assertTrue(McpHttpRules.accepts(accepting(), "text/event-stream"), "no Accept header admits anything");
    assertTrue(McpHttpRules.accepts(accepting("*/*"), "application/json"));
    assertTrue(McpHttpRules.accepts(accepting("application/*"), "application/json"));
    assertFalse(McpHttpRules.accepts(accepting("application/*"), "text/event-stream"));
    assertTrue(McpHttpRules.accepts(accepting("text/html", "Text/Event-Stream"), "text/event-stream"),
        "any of several headers, any case");
    assertTrue(McpHttpRules.accepts(accepting("text/event-stream; q=0.5"), "text/event-stream"));
    assertTrue(McpHttpRules.accepts(accepting("text/event-stream;level=1;q=1"), "text/event-stream"));
    assertFalse(McpHttpRules.accepts(accepting("text/event-stream;q=0"), "text/event-stream"));
    assertFalse(McpHttpRules.accepts(accepting("text/event-stream; q = 0.000"), "text/event-stream"));
    assertFalse(McpHttpRules.accepts(accepting("text/event-stream;level=1;q=0"), "text/event-stream"),
        "a refusing weight after another parameter");
    assertFalse(McpHttpRules.accepts(accepting("text/event-stream;q=0;level=1"), "text/event-stream"),
        "a refusing weight before another parameter");
    assertTrue(McpHttpRules.accepts(accepting("application/json;q=0, text/event-stream"), "text/event-stream"),
        "a refused range does not refuse the next");
  }

  /**
   * A client's answer to a server's request is taken into its session (202); one that carries
   * neither a result nor an error is not a JSON-RPC message; nor is a version other than 2.0, whose
   * refusal names its id. Mutants: the response check's conditions negated, and the invalid
   * reply's id choice.
   */
  @Test
  void aClientsAnswerIsTakenAndHalfMessagesAreRefused() throws Exception {
    start();
    String session = http.initialize("fake");
    HttpResponse<String> answer = http.post("fake", session, Map.of("jsonrpc", "2.0", "id", "srv-1",
        "result", Map.of()));
    assertEquals(202, answer.statusCode(), answer.body());
    HttpResponse<String> error = http.post("fake", session, Map.of("jsonrpc", "2.0", "id", 7,
        "error", Map.of("code", -1, "message", "declined")));
    assertEquals(202, error.statusCode(), error.body());

    HttpResponse<String> bare = http.post("fake", session, Map.of("jsonrpc", "2.0", "id", 8));
    assertEquals(400, bare.statusCode(), "an id alone: " + bare.body());
    assertEquals(-32600, errorCode(bare));
    assertEquals(8, ((Number) McpHttpHarness.parse(bare.body()).get("id")).intValue(), bare.body());

    HttpResponse<String> answerWithMethod = http.post("fake", session, Map.of("jsonrpc", "2.0", "id", 9,
        "method", 5, "result", Map.of()));
    assertEquals(400, answerWithMethod.statusCode(), "a method that is not a name: " + answerWithMethod.body());

    HttpResponse<String> oldVersion = http.post("fake", session, Map.of("jsonrpc", "1.0", "id", 10,
        "method", "tools/list"));
    assertEquals(400, oldVersion.statusCode(), oldVersion.body());
    assertEquals(10, ((Number) McpHttpHarness.parse(oldVersion.body()).get("id")).intValue(), oldVersion.body());

    HttpResponse<String> objectId = http.send(http.post("fake", "{\"jsonrpc\":\"1.0\",\"id\":{\"a\":1},\"method\":\"x\"}",
        McpHttpEndpoint.SESSION_HEADER, session));
    assertEquals(400, objectId.statusCode(), objectId.body());
    assertNull(McpHttpHarness.parse(objectId.body()).get("id"), "an id that is no id is not echoed: " + objectId.body());

    HttpResponse<String> jsonOnly = http.send(http.post("fake", json(request(12, "tools/list", Map.of())),
        McpHttpEndpoint.SESSION_HEADER, session, "Accept", "application/json"));
    assertEquals(400, jsonOnly.statusCode(), jsonOnly.body());
    assertEquals(12, ((Number) McpHttpHarness.parse(jsonOnly.body()).get("id")).intValue(),
        "a request's refusal names its id: " + jsonOnly.body());

    HttpResponse<String> list = http.post("fake", session, request(11, "tools/list", Map.of()));
    assertEquals(200, list.statusCode(), "the session still works: " + list.body());
  }

  /**
   * A notification in a session reaches the backend; one without a session is accepted only as
   * a stateless one. Mutants: the session's {@code fromClient} removed, and the stateless
   * notification's condition negated.
   */
  @Test
  void notificationsReachTheBackendInASessionAndAreAcceptedStatelessWithoutOne() throws Exception {
    start();
    String session = http.initialize("fake");
    HttpResponse<String> n = http.post("fake", session, Map.of("jsonrpc", "2.0", "method", "notifications/roots/list_changed"));
    assertEquals(202, n.statusCode(), n.body());
    HttpResponse<String> seen = http.post("fake", session, request(1, FakeServer.RECEIVED_NOTIFICATIONS, Map.of()));
    assertEquals(200, seen.statusCode(), seen.body());
    assertTrue(seen.body().contains("notifications/roots/list_changed"), seen.body());

    HttpResponse<String> stateless = http.send(http.post("fake",
        json(Map.of("jsonrpc", "2.0", "method", "notifications/cancelled", "params", Map.of("requestId", 1))),
        McpHttpEndpoint.VERSION_HEADER, Mcp.MODERN_VERSION));
    assertEquals(202, stateless.statusCode(), stateless.body());
    HttpResponse<String> orphan = http.send(http.post("fake",
        json(Map.of("jsonrpc", "2.0", "method", "notifications/cancelled", "params", Map.of("requestId", 1)))));
    assertEquals(400, orphan.statusCode(), "a session's notification without its session: " + orphan.body());
    assertEquals(1, http.sharing.accounting().size(), "only the session reached a backend");
  }

  /**
   * A server whose name is one character has a path of two. Mutant: the shortest path's bound
   * at {@code <= 2}, which left that server unreachable.
   */
  @Test
  void aServerWithAOneLetterNameIsReachable() throws Exception {
    start();
    http.assertListsEcho("a", 1);
  }

  /**
   * A session left idle past the timeout is closed, its backend released, and its id is then
   * unknown (whether a session is idle is {@code HttpClientSessionTest}'s). Mutants: the idle check of
   * {@code tick} negated or its cutoff computed with an addition, and the discard removed
   * (uncovered before).
   */
  @Test
  void aSessionLeftIdleIsClosedAndItsBackendReleased() throws Exception {
    http = new McpHttpHarness(records, ServerLookup.of(List.of(FAKE.description())), java.time.Duration.ofMillis(50),
        java.time.Duration.ofSeconds(2));
    String idle = http.initialize("fake");
    McpHttpHarness.await("the idle session to close", () -> http.endpoint.sessionCount() == 0);
    McpHttpHarness.await("its backend released", () -> http.sharing.accounting().isEmpty());
    HttpResponse<String> gone = http.post("fake", idle, request(2, "tools/list", Map.of()));
    assertEquals(404, gone.statusCode(), gone.body());
  }

  /**
   * Ticks every 50 ms close nothing that is not idle for its timeout: a session busy with a call,
   * then quiet for a few ticks, still answers. Mutants: {@code tick}'s idle check negated (the
   * busy session was closed at the first tick and its call failed) and its cutoff computed with
   * an addition (every quiet session was closed at once).
   */
  @Test
  void ticksCloseNoSessionBeforeItsIdleTimeout() throws Exception {
    http = new McpHttpHarness(records, ServerLookup.of(List.of(FAKE.description())), java.time.Duration.ofMillis(50),
        McpHttpEndpoint.SESSION_IDLE_TIMEOUT);
    String session = http.initialize("fake");
    HttpResponse<String> call = http.post("fake", session, McpHttpHarness.echo(1, Map.of("marker", "busy",
        "delayMillis", 500)));
    assertEquals(200, call.statusCode(), call.body());
    assertTrue(McpHttpHarness.text(McpHttpHarness.answer(call)).contains("busy"), call.body());
    Thread.sleep(300); // several ticks with nothing in flight
    HttpResponse<String> list = http.post("fake", session, request(2, "tools/list", Map.of()));
    assertEquals(200, list.statusCode(), list.body());
    assertEquals(1, http.endpoint.sessionCount());
  }
}
