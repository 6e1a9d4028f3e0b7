package dev.cotenant.cli.daemon.http;

import static dev.cotenant.cli.daemon.http.McpHttpHarness.answer;
import static dev.cotenant.cli.daemon.http.McpHttpHarness.await;
import static dev.cotenant.cli.daemon.http.McpHttpHarness.echo;
import static dev.cotenant.cli.daemon.http.McpHttpHarness.errorCode;
import static dev.cotenant.cli.daemon.http.McpHttpHarness.json;
import static dev.cotenant.cli.daemon.http.McpHttpHarness.messages;
import static dev.cotenant.cli.daemon.http.McpHttpHarness.request;
import static dev.cotenant.cli.daemon.http.McpHttpHarness.text;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.gateway.pool.EntrySnapshot;
import dev.cotenant.gateway.sharing.SharingSettings;
import dev.cotenant.spi.Mcp;
import dev.cotenant.testkit.process.ChecksProcessLeaks;
import dev.cotenant.testkit.server.FakeServer;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * MCP over Streamable HTTP end to end: the JDK's HTTP client against a daemon HTTP server on an
 * ephemeral port, each session's backend a real process (the testkit's scripted server).
 */
@ChecksProcessLeaks(waitMillis = 30_000)
class McpHttpEndpointTest extends McpHttpServerTest {
  private static final FakeServer FAKE = FakeServer.builder().name("fake").era(FakeServer.Era.LEGACY).tool("echo")
      .reportsProgress().notifiesFromArguments().build();
  /** Speaks both eras: its backends take the stateless requests of 2026-07-28. */
  private static final FakeServer MODERN = FakeServer.builder().name("modern").era(FakeServer.Era.BOTH).tool("echo")
      .build();

  private McpHttpHarness start(String... config) throws Exception {
    http = new McpHttpHarness(records, List.of(FAKE.description(), MODERN.description()), config);
    return http;
  }

  @Test
  void aSessionIsOpenedByInitializeAndEachRequestIsAnsweredToItsOwnCaller() throws Exception {
    start();
    HttpResponse<String> init = http.send(http.post("fake", json(McpHttpHarness.initializeRequest(0))));
    assertEquals(200, init.statusCode(), init.body());
    String session = init.headers().firstValue(McpHttpEndpoint.SESSION_HEADER).orElseThrow();
    assertTrue(session.matches("[0-9a-f]{32}"), "a 128-bit hex id: " + session);
    Map<?, ?> result = (Map<?, ?>) answer(init).get("result");
    assertEquals("2025-11-25", result.get("protocolVersion"), init.body());
    assertEquals(1, http.endpoint.sessionCount());

    HttpResponse<String> list = http.post("fake", session, request(1, "tools/list", Map.of()));
    assertEquals(200, list.statusCode(), list.body());
    assertEquals(1, ((Number) answer(list).get("id")).intValue());
    assertTrue(list.body().contains("\"echo\""), list.body());

    HttpResponse<String> call = http.post("fake", session, echo(2, Map.of("marker", "first-call")));
    assertEquals(200, call.statusCode(), call.body());
    assertEquals(2, ((Number) answer(call).get("id")).intValue());
    assertTrue(text(answer(call)).contains("first-call"), call.body());
  }

  @Test
  void twoSessionsCallingAtOnceEachGetTheirOwnAnswers() throws Exception {
    start();
    String a = http.initialize("fake");
    String b = http.initialize("fake");
    assertNotEquals(a, b);
    assertEquals(2, http.endpoint.sessionCount());
    // Both calls are in flight together: each sleeps before answering.
    CompletableFuture<HttpResponse<String>> fa = http.client.sendAsync(
        http.post("fake", json(echo(7, Map.of("marker", "from-a", "delayMillis", 500))),
            McpHttpEndpoint.SESSION_HEADER, a).build(), HttpResponse.BodyHandlers.ofString());
    CompletableFuture<HttpResponse<String>> fb = http.client.sendAsync(
        http.post("fake", json(echo(7, Map.of("marker", "from-b", "delayMillis", 500))),
            McpHttpEndpoint.SESSION_HEADER, b).build(), HttpResponse.BodyHandlers.ofString());
    String ta = text(answer(fa.get()));
    String tb = text(answer(fb.get()));
    assertTrue(ta.contains("from-a") && !ta.contains("from-b"), ta);
    assertTrue(tb.contains("from-b") && !tb.contains("from-a"), tb);
  }

  @Test
  void progressArrivesOnThePostsEventStreamBeforeTheAnswer() throws Exception {
    start();
    String session = http.initialize("fake");
    Map<String, Object> call = request(3, "tools/call", Map.of("name", "echo",
        "arguments", Map.of("marker", "slowly", "delayMillis", 200), "_meta", Map.of("progressToken", "tok-1")));
    HttpResponse<String> r = http.post("fake", session, call);
    assertEquals(200, r.statusCode(), r.body());
    assertEquals("text/event-stream", r.headers().firstValue("Content-Type").orElse(""), r.body());
    List<Map<String, Object>> got = messages(r);
    assertEquals(2, got.size(), r.body());
    assertEquals("notifications/progress", got.get(0).get("method"), r.body());
    Map<?, ?> params = (Map<?, ?>) got.get(0).get("params");
    assertEquals("tok-1", params.get("progressToken"), "the client's own token: " + r.body());
    assertEquals("slowly", params.get("message"), r.body());
    assertEquals(3, ((Number) got.get(1).get("id")).intValue(), r.body());
    assertTrue(text(got.get(1)).contains("slowly"), r.body());
  }

  @Test
  void deleteEndsTheSessionAndItsBackendProcessExits() throws Exception {
    start();
    String session = http.initialize("fake");
    List<EntrySnapshot> entries = http.sharing.accounting();
    assertEquals(1, entries.size(), entries.toString());
    ProcessHandle backend = ProcessHandle.of(entries.get(0).pid().orElseThrow()).orElseThrow();
    assertTrue(backend.isAlive());

    HttpResponse<String> deleted = http.send(HttpRequest.newBuilder(http.uri("fake"))
        .header("Authorization", "Bearer " + McpHttpHarness.TOKEN)
        .header(McpHttpEndpoint.SESSION_HEADER, session).DELETE());
    assertEquals(204, deleted.statusCode(), deleted.body());
    assertEquals(0, http.endpoint.sessionCount());

    HttpResponse<String> after = http.post("fake", session, request(4, "tools/list", Map.of()));
    assertEquals(404, after.statusCode(), after.body());
    await("the backend process exits as the pool drains", () -> !backend.isAlive());
    await("the pool holds no backend", () -> http.sharing.accounting().isEmpty());

    HttpResponse<String> again = http.send(HttpRequest.newBuilder(http.uri("fake"))
        .header("Authorization", "Bearer " + McpHttpHarness.TOKEN)
        .header(McpHttpEndpoint.SESSION_HEADER, session).DELETE());
    assertEquals(404, again.statusCode(), "a session is deleted once");
  }

  @Test
  void aServerWhoseNameHasASpaceOrAQuestionMarkIsReachedByItsPercentEncodedName() throws Exception {
    FakeServer spaced = FakeServer.builder().name("my server?").era(FakeServer.Era.LEGACY).tool("echo").build();
    http = new McpHttpHarness(records, List.of(spaced.description(), FAKE.description()));
    assertTrue(http.uri("my server?").toString().endsWith("/mcp/my%20server%3F"), http.uri("my server?").toString());
    http.assertListsEcho("my server?", 2);
  }

  @Test
  void unknownSessionsAndServersAre404AndAMissingSessionIs400() throws Exception {
    start();
    HttpResponse<String> noSuchSession = http.post("fake", "0123456789abcdef0123456789abcdef",
        request(1, "tools/list", Map.of()));
    assertEquals(404, noSuchSession.statusCode(), noSuchSession.body());

    HttpResponse<String> noSuchServer = http.send(http.post("nope", json(McpHttpHarness.initializeRequest(0))));
    assertEquals(404, noSuchServer.statusCode(), noSuchServer.body());
    assertTrue(noSuchServer.body().contains("unknown server 'nope'"), noSuchServer.body());
    assertEquals(0, ((Number) McpHttpHarness.parse(noSuchServer.body()).get("id")).intValue(), noSuchServer.body());

    String session = http.initialize("fake");
    HttpResponse<String> otherServersPath = http.post("nope", session, request(2, "tools/list", Map.of()));
    assertEquals(404, otherServersPath.statusCode(), "a session belongs to its server's path: " + otherServersPath.body());

    HttpResponse<String> missing = http.send(http.post("fake", json(request(3, "tools/list", Map.of()))));
    assertEquals(400, missing.statusCode(), missing.body());
    assertTrue(missing.body().contains(McpHttpEndpoint.SESSION_HEADER), missing.body());
    assertTrue(http.sharing.accounting().size() == 1, "nothing but the one session reached a backend");
  }

  @Test
  void malformedJsonIsAParseErrorAndABatchIsRefused() throws Exception {
    start();
    String session = http.initialize("fake");
    HttpResponse<String> malformed = http.send(http.post("fake", "{\"jsonrpc\": \"2.0\", \"id\": 1,",
        McpHttpEndpoint.SESSION_HEADER, session));
    assertEquals(400, malformed.statusCode(), malformed.body());
    assertEquals(-32700, errorCode(malformed), malformed.body());

    HttpResponse<String> batch = http.send(http.post("fake", json(List.of(request(1, "tools/list", Map.of()),
        request(2, "tools/list", Map.of()))), McpHttpEndpoint.SESSION_HEADER, session));
    assertEquals(400, batch.statusCode(), batch.body());
    assertEquals(-32600, errorCode(batch), batch.body());
    assertTrue(batch.body().contains("batch"), batch.body());

    HttpResponse<String> notJsonRpc = http.send(http.post("fake", "{\"hello\": 1}", McpHttpEndpoint.SESSION_HEADER,
        session));
    assertEquals(400, notJsonRpc.statusCode(), notJsonRpc.body());
    assertEquals(-32600, errorCode(notJsonRpc), notJsonRpc.body());
  }

  @Test
  void aRequestMustAcceptJsonAndEventStreamsAndNameASupportedVersion() throws Exception {
    start();
    String session = http.initialize("fake");
    HttpResponse<String> jsonOnly = http.send(http.post("fake", json(request(1, "tools/list", Map.of())),
        McpHttpEndpoint.SESSION_HEADER, session, "Accept", "application/json"));
    assertEquals(400, jsonOnly.statusCode(), jsonOnly.body());
    assertTrue(jsonOnly.body().contains("text/event-stream"), jsonOnly.body());

    HttpResponse<String> oldVersion = http.send(http.post("fake", json(request(2, "tools/list", Map.of())),
        McpHttpEndpoint.SESSION_HEADER, session, McpHttpEndpoint.VERSION_HEADER, "2023-01-01"));
    assertEquals(400, oldVersion.statusCode(), oldVersion.body());

    HttpResponse<String> known = http.send(http.post("fake", json(request(3, "tools/list", Map.of())),
        McpHttpEndpoint.SESSION_HEADER, session, McpHttpEndpoint.VERSION_HEADER, "2025-11-25"));
    assertEquals(200, known.statusCode(), known.body());

    HttpResponse<String> getWithoutSse = http.send(HttpRequest.newBuilder(http.uri("fake"))
        .header("Authorization", "Bearer " + McpHttpHarness.TOKEN).header("Accept", "application/json")
        .header(McpHttpEndpoint.SESSION_HEADER, session).GET());
    assertEquals(405, getWithoutSse.statusCode(), getWithoutSse.body());
  }

  @Test
  void aStatelessRequestIsAnsweredWithoutASessionAndItsBackendIsReleased() throws Exception {
    start();
    Map<String, Object> meta = Map.of(Mcp.META_PROTOCOL_VERSION, Mcp.MODERN_VERSION,
        Mcp.META_CLIENT_INFO, Map.of("name", "stateless-test", "version", "1"), Mcp.META_CLIENT_CAPABILITIES, Map.of());
    HttpResponse<String> r = http.send(http.post("modern", json(request(9, "tools/call", Map.of("name", "echo",
        "arguments", Map.of("marker", "no-session"), "_meta", meta))), McpHttpEndpoint.VERSION_HEADER, Mcp.MODERN_VERSION));
    assertEquals(200, r.statusCode(), r.body());
    assertTrue(text(answer(r)).contains("no-session"), r.body());
    assertFalse(r.headers().firstValue(McpHttpEndpoint.SESSION_HEADER).isPresent(), "no session is opened");
    assertEquals(0, http.endpoint.sessionCount());

    HttpResponse<String> discover = http.send(http.post("modern", json(request(10, "server/discover", Map.of("_meta", meta)))));
    assertEquals(200, discover.statusCode(), discover.body());
    Map<?, ?> result = (Map<?, ?>) answer(discover).get("result");
    assertTrue(String.valueOf(result).contains(Mcp.MODERN_VERSION), discover.body());
    await("the one-shot sessions' backends drain", () -> http.sharing.accounting().isEmpty());
  }

  @Test
  void whatASessionIsSentOutsideItsRequestsReachesItsGetStreamQueuedUntilItOpens() throws Exception {
    // One shared backend: a list_changed the server sends during A's call is broadcast to B too.
    start(SharingSettings.FORCED, "fake");
    String a = http.initialize("fake");
    String b = http.initialize("fake");
    assertEquals(1, http.sharing.accounting().size(), "one shared backend");

    Map<String, Object> notify = Map.of("method", "notifications/tools/list_changed", "params", Map.of());
    HttpResponse<String> call = http.post("fake", a, echo(1, Map.of("marker", "m1", "notify", List.of(notify))));
    assertEquals(200, call.statusCode(), call.body());
    assertEquals("notifications/tools/list_changed", messages(call).get(0).get("method"),
        "A's own copy rides A's POST stream: " + call.body());

    // B had nothing in flight and no GET stream: its copy waited, and comes when the stream opens.
    try (McpHttpHarness.EventReader stream = http.new EventReader("fake", b)) {
      assertEquals(200, stream.response.statusCode());
      assertEquals("text/event-stream", stream.response.headers().firstValue("Content-Type").orElse(""));
      stream.next(m -> "notifications/tools/list_changed".equals(m.get("method")));

      McpHttpHarness.EventReader second = http.new EventReader("fake", b);
      assertEquals(409, second.response.statusCode(), "one GET stream per session");
      second.close();

      // While the stream is open, the next broadcast goes straight to it.
      Map<String, Object> resources = Map.of("method", "notifications/resources/list_changed", "params", Map.of());
      HttpResponse<String> call2 = http.post("fake", a, echo(2, Map.of("marker", "m2", "notify", List.of(resources))));
      assertEquals(200, call2.statusCode(), call2.body());
      stream.next(m -> "notifications/resources/list_changed".equals(m.get("method")));
    }
  }

  @Test
  void serversThatCannotBeReadAre500WithOneLineSayingWhy() throws Exception {
    http = new McpHttpHarness(records, name -> {
      throw new LookupException("mcp.json is not valid JSON at line 3");
    });
    HttpResponse<String> r = http.send(http.post("fake", json(McpHttpHarness.initializeRequest(0))));
    assertEquals(500, r.statusCode(), r.body());
    String message = String.valueOf(((Map<?, ?>) McpHttpHarness.parse(r.body()).get("error")).get("message"));
    assertTrue(message.contains("mcp.json is not valid JSON at line 3"), message);
    assertFalse(message.contains("\n"), message);
  }

  @Test
  void closingTheEndpointAnswersCallsInFlightAndEndsEverySession() throws Exception {
    start();
    String session = http.initialize("fake");
    long before = http.sharing.accounting().get(0).calls();
    CompletableFuture<HttpResponse<String>> slow = http.client.sendAsync(
        http.post("fake", json(echo(1, Map.of("marker", "never", "delayMillis", 60_000))),
            McpHttpEndpoint.SESSION_HEADER, session).build(), HttpResponse.BodyHandlers.ofString());
    // The call is in flight once the backend has it.
    await("the backend has the call", () -> http.sharing.accounting().get(0).calls() > before);
    http.endpoint.close();
    HttpResponse<String> r = slow.get();
    Map<String, Object> answer = answer(r);
    assertEquals(1, ((Number) answer.get("id")).intValue(), r.body());
    assertTrue(String.valueOf(answer.get("error")).contains("the session was closed"), r.body());
    assertEquals(0, http.endpoint.sessionCount());
    HttpResponse<String> after = http.post("fake", session, request(2, "tools/list", Map.of()));
    assertEquals(404, after.statusCode(), after.body());
  }
}
