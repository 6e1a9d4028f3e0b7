package dev.cotenant.cli.daemon.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.spi.rpc.ErrorCode;
import dev.cotenant.spi.rpc.RequestId;
import dev.cotenant.spi.rpc.RpcMessage;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Where one HTTP session's messages from the backend go, and what its streams write, without a
 * server: each stream is an {@link EventStream} over a {@link FakeExchange}. A message routed to
 * the wrong stream reaches a request of the same client that did not ask for it, or none; each
 * test names the mutants of {@link HttpClientSession} and {@link EventStream} it kills.
 */
class HttpClientSessionTest {
  private final HttpClientSession session = new HttpClientSession("s1", "fake");

  /** A POST stream awaiting the answer to request {@code id}, with an optional progress token. */
  private FakeExchange post(Object id, String progressToken) {
    FakeExchange x = new FakeExchange();
    Map<String, Object> params = new HashMap<>();
    if (progressToken != null) {
      params.put("_meta", Map.of("progressToken", progressToken));
    }
    RpcMessage.Request request = request(Map.of("jsonrpc", "2.0", "id", id, "method", "tools/call", "params", params));
    assertEquals(HttpClientSession.Await.AWAITING, session.await(request, x.stream(session::streamGone), answer -> {}));
    return x;
  }

  /** {@code json} read as the request it is. */
  private static RpcMessage.Request request(Map<String, Object> json) {
    try {
      return (RpcMessage.Request) RpcMessage.read(json);
    } catch (RpcMessage.InvalidMessage e) {
      throw new AssertionError(e);
    }
  }

  private FakeExchange standalone() {
    FakeExchange x = new FakeExchange();
    assertTrue(session.openStandalone(() -> x.stream(session::streamGone)));
    return x;
  }

  private static Map<String, Object> answer(Object id, String text) {
    return Map.of("jsonrpc", "2.0", "id", id, "result", Map.of("text", text));
  }

  private static Map<String, Object> notice(String text) {
    return Map.of("jsonrpc", "2.0", "method", "notifications/message", "params", Map.of("data", text));
  }

  private static Map<String, Object> progress(String token, String text) {
    return Map.of("jsonrpc", "2.0", "method", "notifications/progress",
        "params", Map.of("progressToken", token, "progress", 1, "message", text));
  }

  /**
   * Once request 1, which gave {@code tok-a}, is gone: a new request reusing id 1 and a request 3
   * are posted, and progress for {@code tok-a} does not reach the new request 1 ({@code why} says
   * so when it does) but goes to the most recent request, as a token nobody gave does.
   */
  private void assertTokenGone(String why) {
    FakeExchange reused = post(1, null);
    FakeExchange latest = post(3, null);
    session.send(progress("tok-a", "late"));
    assertEquals(List.of(), texts(reused), why);
    assertEquals(List.of("late"), texts(latest));
  }

  private static List<String> texts(FakeExchange x) {
    List<String> out = new ArrayList<>();
    for (Map<String, Object> m : x.messages()) {
      Map<?, ?> inner = (Map<?, ?>) (m.containsKey("result") ? m.get("result") : m.get("params"));
      Object t = inner.get("text") != null ? inner.get("text") : inner.get("data");
      out.add(String.valueOf(t != null ? t : inner.get("message")));
    }
    return out;
  }

  /**
   * Each answer reaches the POST that awaits its id, as the body of an {@code application/json}
   * response with status 200. Mutants: {@code EventStream.finish} without {@code setStatus}.
   */
  @Test
  void eachAnswerEndsThePostThatAwaitsItsId() {
    FakeExchange one = post(1, null);
    FakeExchange two = post(2, null);
    session.send(answer(2, "second"));
    assertEquals(List.of("second"), texts(two));
    assertEquals("application/json", two.contentType());
    assertEquals(200, two.status());
    assertTrue(two.completed());
    assertEquals("", one.body(), "nothing for the first request yet");
    assertFalse(one.completed());

    session.send(answer(1, "first"));
    assertEquals(List.of("first"), texts(one));
    assertTrue(one.completed());
    session.send(answer(1, "again"));
    assertEquals(List.of("first"), texts(one), "an answer nobody awaits is dropped");
  }

  /** The answer's hook runs before the answer is written. Mutant: the hook's call removed. */
  @Test
  void theAnswersHookRunsBeforeItIsWritten() {
    FakeExchange x = new FakeExchange();
    List<String> seen = new ArrayList<>();
    session.await(request(Map.of("id", 5, "method", "initialize")), x.stream(session::streamGone),
        a -> seen.add(a.json().get("id") + " with body '" + x.body() + "'"));
    session.send(answer(5, "hello"));
    assertEquals(List.of("5 with body ''"), seen);
    assertEquals(List.of("hello"), texts(x));
  }

  /**
   * Progress goes to the request that gave its token, not to the most recent one, and the token
   * is forgotten with its answer. Mutants: {@code route}'s three conditions negated, and
   * {@code send} keeping a token once its request is answered (line 185 negated): a later
   * request reusing the id then took progress meant for nobody.
   */
  @Test
  void progressGoesToTheRequestThatGaveItsTokenUntilItIsAnswered() {
    FakeExchange a = post(1, "tok-a");
    FakeExchange b = post(2, null);
    session.send(progress("tok-a", "for a"));
    assertEquals(List.of("for a"), texts(a));
    assertEquals("text/event-stream", a.contentType(), "progress turns the POST into an event stream");
    assertEquals(200, a.status());
    assertEquals(List.of(), texts(b));

    session.send(progress("tok-unknown", "for the latest"));
    assertEquals(List.of("for the latest"), texts(b), "a token nobody gave: the most recent request");

    session.send(answer(1, "a done"));
    assertEquals(List.of("for a", "a done"), texts(a));
    assertTokenGone("the token died with its request, not with the id");
  }

  /**
   * A message that is not an answer goes to the most recent request in flight, else to the
   * standalone stream, else waits in the queue for one, in order. Each goes to one stream only.
   * Mutants: {@code EventStream.send} and {@code sendSse} answering false (every message then
   * also went to the standalone stream or the queue) or {@code isOpen} answering true (a message
   * went to an answered request, and on to the standalone stream instead of the open request).
   */
  @Test
  void otherMessagesGoToTheLatestOpenRequestElseTheStandaloneStreamElseTheQueue() {
    session.send(notice("queued 1"));
    session.send(notice("queued 2"));
    FakeExchange get = standalone();
    assertEquals(List.of("queued 1", "queued 2"), texts(get));

    FakeExchange a = post(1, null);
    FakeExchange b = post(2, null);
    session.send(notice("to b"));
    assertEquals(List.of("to b"), texts(b));
    session.send(answer(2, "b done"));
    session.send(notice("to a"));
    assertEquals(List.of("to a"), texts(a));
    assertEquals(List.of("to b", "b done"), texts(b));
    session.send(answer(1, "a done"));
    session.send(notice("to the stream"));
    assertEquals(List.of("queued 1", "queued 2", "to the stream"), texts(get), "each message once, on one stream");
    assertEquals(List.of("to a", "a done"), texts(a));
  }

  /**
   * A standalone stream is open from its first byte: status 200, an event stream, a comment.
   * Mutants: {@code EventStream.open}'s condition negated or its write removed,
   * {@code startSse} without {@code setStatus}, and {@code openStandalone} without {@code open}.
   */
  @Test
  void aStandaloneStreamShowsItselfOpenBeforeAnyMessage() {
    FakeExchange get = standalone();
    assertEquals(200, get.status());
    assertEquals("text/event-stream", get.contentType());
    assertEquals(":\n\n", get.body());
    assertFalse(get.completed());
  }

  /**
   * One standalone stream at a time; another may open once it has gone. Mutants:
   * {@code openStandalone} answering false or true, and {@code streamGone} forgetting the
   * standalone stream when another stream went (line 155 negated).
   */
  @Test
  void oneStandaloneStreamAtATime() {
    FakeExchange first = standalone();
    AtomicInteger made = new AtomicInteger();
    assertFalse(session.openStandalone(() -> {
      made.incrementAndGet();
      return new FakeExchange().stream(session::streamGone);
    }));
    assertEquals(0, made.get(), "no stream is made when one is open");

    FakeExchange post = post(1, null);
    post.clientGoesAway(new java.io.IOException("reset"));
    session.send(notice("after the post went"));
    assertEquals(List.of("after the post went"), texts(first), "the standalone stream is still the one");

    first.clientGoesAway(new java.io.IOException("reset"));
    FakeExchange second = standalone();
    session.send(notice("to the second"));
    assertEquals(List.of("to the second"), texts(second));
  }

  /**
   * A stream takes messages while it is open, and none once it has ended, even while its last
   * write is still on its way. Mutants: {@code send} and {@code sendSse} answering true or false.
   */
  @Test
  void aStreamTakesMessagesOnlyWhileItIsOpen() {
    FakeExchange x = new FakeExchange();
    EventStream s = x.stream(g -> {});
    assertTrue(s.send("{\"n\":1}"));
    x.holdWrites();
    s.end();
    assertFalse(s.send("{\"n\":2}"), "ended, its last write held");
    x.releaseWrites();
    assertTrue(x.completed());
    assertEquals("event: message\ndata: {\"n\":1}\n\n", x.body());
  }

  /**
   * The queue keeps the newest {@value HttpClientSession#QUEUE_LIMIT} messages. Mutants: its bound's
   * boundary and condition.
   */
  @Test
  void theQueueKeepsTheNewestMessagesUpToItsLimit() {
    for (int i = 0; i <= HttpClientSession.QUEUE_LIMIT; i++) {
      session.send(notice("m" + i));
    }
    List<String> got = texts(standalone());
    assertEquals(HttpClientSession.QUEUE_LIMIT, got.size());
    assertEquals("m1", got.get(0), "the oldest was dropped");
    assertEquals("m" + HttpClientSession.QUEUE_LIMIT, got.get(got.size() - 1));
  }

  /**
   * Closing answers every request in flight with an error naming why, ends the standalone
   * stream, and refuses everything after. Mutants: {@code close} without the standalone
   * stream's {@code end}; {@code EventStream.end}'s conditions negated or its write removed.
   */
  @Test
  void closingAnswersEveryRequestInFlightAndEndsTheStandaloneStream() {
    FakeExchange a = post(1, null);
    FakeExchange b = post("two", "tok");
    FakeExchange get = standalone();
    session.close("the daemon stops");
    for (FakeExchange x : List.of(a, b)) {
      Map<String, Object> error = x.messages().get(0);
      assertTrue(x.completed());
      assertEquals(ErrorCode.CALL_INTERRUPTED.code(), ((Number) ((Map<?, ?>) error.get("error")).get("code")).intValue());
      assertEquals("call interrupted: the session was closed: the daemon stops", ((Map<?, ?>) error.get("error")).get("message"));
    }
    assertEquals(1, ((Number) a.messages().get(0).get("id")).intValue());
    assertEquals("two", b.messages().get(0).get("id"));
    assertTrue(get.completed(), "the standalone stream ended");

    FakeExchange late = new FakeExchange();
    assertEquals(HttpClientSession.Await.CLOSED, session.await(request(Map.of("id", 9, "method", "ping")),
        late.stream(session::streamGone), m -> {}));
    session.send(notice("after close"));
    assertFalse(session.openStandalone(() -> new FakeExchange().stream(session::streamGone)));
    session.close("twice");
    assertEquals("call interrupted: the session was closed: the daemon stops",
        ((Map<?, ?>) a.messages().get(0).get("error")).get("message"), "closing twice writes nothing more");
  }

  /** A second request with an id in flight is refused. */
  @Test
  void anIdInFlightCannotBeUsedAgain() {
    post(1, null);
    FakeExchange x = new FakeExchange();
    assertEquals(HttpClientSession.Await.DUPLICATE_ID, session.await(request(Map.of("id", 1.0, "method", "ping")),
        x.stream(session::streamGone), m -> {}));
    session.send(answer(1, "one"));
    post(1, null);
  }

  /**
   * {@code forget} drops a request, with its token, only for the stream that awaits it.
   * Mutants: its conditions negated (lines 122, 124); without the token's removal a later
   * request reusing the id took progress meant for nobody.
   */
  @Test
  void forgetDropsARequestOnlyForItsOwnStream() {
    FakeExchange a = post(1, "tok-a");
    session.forget(RequestId.of(1), new FakeExchange().stream(g -> {}));
    session.send(progress("tok-a", "still a's"));
    assertEquals(List.of("still a's"), texts(a), "a stranger's forget changes nothing");

    session.forget(RequestId.of(1), a.stream());
    session.send(answer(1, "a done"));
    assertEquals(List.of("still a's"), texts(a), "a forgotten request's answer is dropped");
    assertTokenGone("the token went with its request");
  }

  /**
   * A stream that went (its client left) takes its requests and their tokens with it, and their
   * ids are free again. Mutants: {@code streamGone}'s filter negated either way, its token
   * removal, and {@code forgetProgress} answering false (the request stayed, its id refused).
   */
  @Test
  void aStreamThatWentTakesItsRequestsWithIt() {
    FakeExchange a = post(1, "tok-a");
    FakeExchange b = post(2, null);
    FakeExchange c = post(3, "tok-c");
    b.clientGoesAway(new java.io.IOException("reset"));
    assertTrue(b.failure() != null, "the response was failed");
    session.send(progress("tok-c", "for c"));
    assertEquals(List.of("for c"), texts(c));
    FakeExchange again = post(2, null); // the id of a request whose client left is free again
    session.send(answer(2, "for the second 2"));
    assertEquals("", b.body(), "nothing is written for a request whose client left");
    assertEquals(List.of("for the second 2"), texts(again));
    session.send(progress("tok-a", "for a"));
    assertEquals(List.of("for a"), texts(a), "the other requests keep their streams");
  }

  /**
   * A session is idle when nothing is in flight, no stream is open and nothing happened since
   * the cutoff. Mutants: every mutant of {@code idleSince}.
   */
  @Test
  void aSessionIsIdleOnlyWithNothingInFlightNoStreamAndNothingSinceTheCutoff() {
    long later = System.nanoTime() + 3_600_000_000_000L;
    long earlier = System.nanoTime() - 3_600_000_000_000L;
    assertTrue(session.idleSince(later));
    assertFalse(session.idleSince(earlier), "used since the cutoff");

    post(1, null);
    assertFalse(session.idleSince(later), "a request in flight");
    session.send(answer(1, "done"));
    assertTrue(session.idleSince(later));

    FakeExchange get = standalone();
    assertFalse(session.idleSince(later), "a standalone stream open");
    get.clientGoesAway(new java.io.IOException("reset"));
    assertTrue(session.idleSince(later));
  }

  /**
   * A keep-alive writes a comment on every open stream, which makes a POST's stream an event
   * stream. Mutants: {@code keepAlive}'s collection and its writes removed.
   */
  @Test
  void aKeepAliveReachesEveryOpenStream() {
    FakeExchange a = post(1, null);
    FakeExchange get = standalone();
    session.keepAlive();
    assertEquals(":\n\n", a.body());
    assertEquals("text/event-stream", a.contentType());
    assertEquals(":\n\n:\n\n", get.body());
    session.send(answer(1, "done"));
    assertEquals(List.of("done"), texts(a), "the answer follows as an event");
  }

  /**
   * A client going away fails the response and ends the stream; an idle timeout does not.
   * Mutants: {@code EventStream}'s constructor without its failure listener or its idle-timeout
   * listener; {@code Writer.onCompleteFailure} without {@code failed} or {@code gone}.
   */
  @Test
  void aClientGoingAwayEndsTheStreamAndAnIdleTimeoutDoesNot() {
    FakeExchange x = new FakeExchange();
    List<EventStream> gone = new ArrayList<>();
    EventStream s = x.stream(gone::add);
    assertFalse(x.failsOnIdleTimeout(), "an open stream outlives the connection's idle timeout");
    assertTrue(s.isOpen());
    IllegalStateException why = new IllegalStateException("reset by peer");
    x.clientGoesAway(why);
    assertSame(why, x.failure());
    assertEquals(List.of(s), gone);
    assertFalse(s.isOpen());
    assertFalse(s.send("{}"), "nothing more is taken");
    assertFalse(s.finish("{}"));
  }

  /** {@code end} on a stream that wrote nothing makes it an empty event stream, once. */
  @Test
  void endingAStreamThatWroteNothingSendsAnEmptyEventStream() {
    FakeExchange x = new FakeExchange();
    List<EventStream> gone = new ArrayList<>();
    EventStream s = x.stream(gone::add);
    s.end();
    assertEquals(200, x.status());
    assertEquals("text/event-stream", x.contentType());
    assertEquals("", x.body());
    assertTrue(x.completed());
    assertEquals(List.of(s), gone);
    s.end();
    assertEquals(List.of(s), gone, "gone once");
    assertFalse(s.finish("{}"));
  }

  /** A finished stream answers false to more. Mutant: {@code finish} answering false. */
  @Test
  void finishAnswersWhetherItTookTheLastMessage() {
    FakeExchange x = new FakeExchange();
    EventStream s = x.stream(g -> {});
    x.holdWrites();
    assertTrue(s.finish("{\"id\":1}"));
    assertFalse(s.isOpen(), "ended, though its write is still on its way");
    assertFalse(s.finish("{\"id\":2}"));
    assertFalse(x.completed());
    x.releaseWrites();
    assertTrue(x.completed());
    assertEquals("{\"id\":1}", x.body());
  }
}
