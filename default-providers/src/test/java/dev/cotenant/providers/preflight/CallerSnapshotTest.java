package dev.cotenant.providers.preflight;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.spi.HandshakeEra;
import dev.cotenant.spi.Mcp;
import dev.cotenant.spi.ProviderConfig;
import dev.cotenant.spi.ServerSession;
import dev.cotenant.spi.SessionException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * What one caller's snapshot holds, read over a scripted session without a process: the part of
 * the handshake the comparison reads, and every page of each listing the server advertises. The
 * snapshot is what two callers' answers are compared by, so a key left out would make two
 * different servers look alike. Each test names the mutants of {@link CallerSnapshot} it kills
 * (method, line at the time, mutator).
 */
class CallerSnapshotTest {
  /** A session that completes the handshake of {@code era} with {@code answer} and serves queued answers in order. */
  private static final class Scripted implements ServerSession {
    final HandshakeEra era;
    final Map<String, Object> answer;
    final Deque<Map<String, Object>> responses = new ArrayDeque<>();
    final List<String> asked = new ArrayList<>();
    final List<Map<String, Object>> params = new ArrayList<>();
    String askedVersion;

    Scripted(HandshakeEra era, Map<String, Object> answer) {
      this.era = era;
      this.answer = answer;
    }

    Scripted then(Map<String, Object> response) {
      responses.add(response);
      return this;
    }

    @Override
    public Map<String, Object> handshake(HandshakeEra e, Map<String, Object> clientInfo,
        Map<String, Object> capabilities, Duration timeout) {
      return answer;
    }

    @Override
    public Map<String, Object> handshake(HandshakeEra e, Map<String, Object> clientInfo,
        Map<String, Object> capabilities, String protocolVersion, Duration timeout) {
      askedVersion = protocolVersion;
      return answer;
    }

    @Override
    public Optional<HandshakeEra> completedHandshake() {
      return Optional.ofNullable(era);
    }

    @Override
    public CompletableFuture<Map<String, Object>> request(String method, Map<String, Object> p) {
      asked.add(method);
      params.add(p);
      Map<String, Object> next = responses.poll();
      return next == null ? new CompletableFuture<>() : CompletableFuture.completedFuture(next);
    }

    @Override
    public void notify(String method, Map<String, Object> p) {}

    @Override
    public boolean cancel(CompletableFuture<Map<String, Object>> a, String reason) {
      return false;
    }

    @Override
    public OptionalLong pid() {
      return OptionalLong.empty();
    }

    @Override
    public void abort(String reason) {}

    @Override
    public void close() {}
  }

  private static Map<String, Object> map(Object... keysAndValues) {
    Map<String, Object> o = new java.util.LinkedHashMap<>();
    for (int i = 0; i < keysAndValues.length; i += 2) {
      o.put((String) keysAndValues[i], keysAndValues[i + 1]);
    }
    return o;
  }

  private static Map<String, Object> result(Object... keysAndValues) {
    return map("jsonrpc", "2.0", "id", 1, "result", map(keysAndValues));
  }

  private static final PreflightSettings SETTINGS = PreflightSettings.from(ProviderConfig.of(Map.of(
      PreflightSettings.TIMEOUT_MS, "5000", PreflightSettings.MAX_LIST_PAGES, "3", PreflightSettings.MAX_LIST_ITEMS, "4")));

  private static Map<String, Object> take(Scripted s) throws Exception {
    return CallerSnapshot.take(s, Caller.FIRST, SETTINGS).snapshot();
  }

  /**
   * Kills {@code take} returning an empty map (43, 65), without its {@code copy} calls (59, 61,
   * 62) or its {@code listings} (64), and {@code listings} with its conditions negated (78, 79,
   * 82): the snapshot holds the version, capabilities, server info and every advertised listing.
   */
  @Test
  void anInitializeSnapshotHoldsWhatTheComparisonReads() throws Exception {
    Map<String, Object> caps = map("tools", map(), "prompts", map());
    Scripted s = new Scripted(HandshakeEra.INITIALIZE, map("protocolVersion", Mcp.LEGACY_VERSION,
        "capabilities", caps, "serverInfo", map("name", "x", "version", "1"), "instructions", "ignored"))
        .then(result("tools", List.of(map("name", "echo"))))
        .then(result("prompts", List.of(map("name", "greet"))));
    Map<String, Object> snapshot = take(s);
    assertEquals(map("protocolVersion", Mcp.LEGACY_VERSION, "capabilities", caps,
        "serverInfo", map("name", "x", "version", "1"), "tools", List.of(map("name", "echo")),
        "prompts", List.of(map("name", "greet"))), snapshot);
    assertEquals(List.of("tools/list", "prompts/list"), s.asked);
    // Without _meta in the initialize era.
    assertEquals(List.of(map(), map()), s.params);
  }

  /** Kills {@code listings} (82 negated): resources are listed when advertised, and only then. */
  @Test
  void resourcesAreListedWhenAdvertised() throws Exception {
    Scripted s = new Scripted(HandshakeEra.INITIALIZE, map("protocolVersion", Mcp.LEGACY_VERSION,
        "capabilities", map("resources", map())))
        .then(result("tools", List.of()))
        .then(result("resources", List.of(map("uri", "file:///a"))))
        .then(result("resourceTemplates", List.of()));
    assertEquals(List.of(map("uri", "file:///a")), take(s).get("resources"));
    assertEquals(List.of("tools/list", "resources/list", "resources/templates/list"), s.asked);
    Scripted none = new Scripted(HandshakeEra.INITIALIZE, map("protocolVersion", Mcp.LEGACY_VERSION, "capabilities", "x"))
        .then(result("tools", List.of()));
    assertEquals(map("protocolVersion", Mcp.LEGACY_VERSION, "capabilities", "x", "tools", List.of()), take(none));
  }

  /**
   * Kills {@code take} (55, the era test negated): a discover snapshot names the modern version and
   * the offered versions, and its requests carry the caller in {@code _meta}.
   */
  @Test
  void aDiscoverSnapshotNamesTheModernVersionAndSendsTheCallerInMeta() throws Exception {
    Scripted s = new Scripted(HandshakeEra.DISCOVER, map("supportedVersions", List.of(Mcp.MODERN_VERSION),
        "capabilities", map(), "serverInfo", map("name", "x"), "protocolVersion", "not read"))
        .then(result("tools", List.of()));
    Map<String, Object> snapshot = take(s);
    assertEquals(map("protocolVersion", Mcp.MODERN_VERSION, "supportedVersions", List.of(Mcp.MODERN_VERSION),
        "capabilities", map(), "serverInfo", map("name", "x"), "tools", List.of()), snapshot);
    assertEquals(map("_meta", Mcp.modernMeta(Caller.FIRST.clientInfo(), Caller.FIRST.capabilities())), s.params.get(0));
  }

  /**
   * Kills {@code list} (97, the page bound at {@code >=}; 102, the cursor not sent; 103 negated;
   * 118, the item bound at {@code >=}; 127 returning null): pages are followed by their cursor up
   * to the bounds, which are inclusive.
   */
  @Test
  void pagesAreFollowedByTheirCursorUpToInclusiveBounds() throws Exception {
    Scripted s = new Scripted(HandshakeEra.INITIALIZE, map("protocolVersion", Mcp.LEGACY_VERSION))
        .then(result("tools", List.of(map("name", "a"), map("name", "b")), "nextCursor", "p2"))
        .then(result("tools", List.of(map("name", "c")), "nextCursor", "p3"))
        .then(result("tools", List.of(map("name", "d")), "nextCursor", ""));
    assertEquals(List.of(map("name", "a"), map("name", "b"), map("name", "c"), map("name", "d")), take(s).get("tools"));
    assertEquals(List.of(map(), map("cursor", "p2"), map("cursor", "p3")), s.params);

    Scripted tooMany = new Scripted(HandshakeEra.INITIALIZE, map())
        .then(result("tools", List.of(), "nextCursor", "1"))
        .then(result("tools", List.of(), "nextCursor", "2"))
        .then(result("tools", List.of(), "nextCursor", "3"));
    SessionException pages = assertThrows(SessionException.class, () -> take(tooMany));
    assertEquals(SessionException.Kind.GARBAGE, pages.kind());
    assertEquals("tools/list did not end within 3 pages", pages.getMessage());

    Scripted fiveItems = new Scripted(HandshakeEra.INITIALIZE, map())
        .then(result("tools", List.of(1, 2, 3, 4, 5)));
    assertEquals("tools/list listed more than 4 items", assertThrows(SessionException.class, () -> take(fiveItems)).getMessage());
  }

  /**
   * Kills {@code list} (108, negated; 109 returning null, uncovered before) and covers its other
   * refusals: an error answer is recorded as a marker, a repeated cursor is a loop, a listing that
   * is not a list or a result that is not an object is refused.
   */
  @Test
  void anErrorIsAMarkerAndMalformedListingsAreRefused() throws Exception {
    Scripted failed = new Scripted(HandshakeEra.INITIALIZE, map())
        .then(map("jsonrpc", "2.0", "id", 1, "error", map("code", -32601, "message", "no")));
    assertEquals("failed: -32601", take(failed).get("tools"));
    Scripted loop = new Scripted(HandshakeEra.INITIALIZE, map())
        .then(result("tools", List.of(), "nextCursor", "a"))
        .then(result("tools", List.of(), "nextCursor", "a"));
    assertEquals("tools/list repeated a nextCursor (a loop)", assertThrows(SessionException.class, () -> take(loop)).getMessage());
    Scripted notAList = new Scripted(HandshakeEra.INITIALIZE, map()).then(result("tools", "x"));
    assertEquals("tools/list answered tools that is not a list", assertThrows(SessionException.class, () -> take(notAList)).getMessage());
    Scripted noResult = new Scripted(HandshakeEra.INITIALIZE, map()).then(map("jsonrpc", "2.0", "id", 1, "result", 3));
    assertEquals("tools/list answered without a result object", assertThrows(SessionException.class, () -> take(noResult)).getMessage());
    Scripted absent = new Scripted(HandshakeEra.INITIALIZE, map()).then(result());
    assertEquals(List.of(), take(absent).get("tools"));
  }

  /** A listing that never answers fails at the caller's deadline with a message naming the wait. */
  @Test
  void aListingWithoutAnAnswerTimesOut() {
    PreflightSettings quick = PreflightSettings.from(ProviderConfig.of(Map.of(PreflightSettings.TIMEOUT_MS, "200")));
    Scripted silent = new Scripted(HandshakeEra.INITIALIZE, map());
    SessionException e = assertThrows(SessionException.class, () -> CallerSnapshot.take(silent, Caller.FIRST, quick));
    assertEquals(SessionException.Kind.TIMEOUT, e.kind());
    assertTrue(e.getMessage().startsWith("no answer to tools/list in 200 ms"), e.getMessage());
  }

  /** Covers {@code take}'s refusal (53) of a session that answered the handshake yet reports none completed. */
  @Test
  void aSessionWithoutACompletedHandshakeIsRefused() {
    SessionException e = assertThrows(SessionException.class, () -> take(new Scripted(null, map())));
    assertEquals(SessionException.Kind.ANSWER, e.kind());
    assertEquals("the session reported no completed handshake", e.getMessage());
  }

  /**
   * The start is kept whole beside the snapshot: the handshake's answer as written, and each
   * page's answer (cursors and errors included), resources' templates too (recorded, not compared);
   * each caller asks the protocol version it stands for.
   */
  @Test
  void everyPageIsKeptWholeForTheStartRecording() throws Exception {
    Map<String, Object> answer = map("protocolVersion", Mcp.PRIOR_VERSION, "capabilities", map("resources", map()),
        "instructions", "use it");
    Scripted s = new Scripted(HandshakeEra.INITIALIZE, answer)
        .then(result("tools", List.of(map("name", "a")), "nextCursor", "p2"))
        .then(result("tools", List.of(map("name", "b"))))
        .then(result("resources", List.of()))
        .then(map("jsonrpc", "2.0", "id", 4, "error", map("code", -32601, "message", "no templates")));
    CallerSnapshot.Answers a = CallerSnapshot.take(s, Caller.SECOND, SETTINGS);
    assertEquals(Mcp.PRIOR_VERSION, s.askedVersion);
    assertEquals(answer, a.handshake());
    assertEquals(HandshakeEra.INITIALIZE, a.era());
    assertEquals(List.of(map("result", map("tools", List.of(map("name", "a")), "nextCursor", "p2")),
        map("result", map("tools", List.of(map("name", "b"))))), a.pages().get("tools/list"));
    assertEquals(List.of(map("result", map("resources", List.of()))), a.pages().get("resources/list"));
    assertEquals(List.of(map("error", map("code", -32601, "message", "no templates"))),
        a.pages().get("resources/templates/list"));
    assertEquals(List.of("resources/list", "resources/templates/list", "tools/list"), List.copyOf(a.pages().keySet()));
  }

  /** A server that never answers for its templates is still measured; its start is kept without them. */
  @Test
  void templatesThatNeverAnswerLeaveTheMeasurementWhole() throws Exception {
    PreflightSettings quick = PreflightSettings.from(ProviderConfig.of(Map.of(PreflightSettings.TIMEOUT_MS, "300")));
    Scripted s = new Scripted(HandshakeEra.INITIALIZE, map("protocolVersion", Mcp.LEGACY_VERSION,
        "capabilities", map("resources", map())))
        .then(result("tools", List.of()))
        .then(result("resources", List.of()));
    CallerSnapshot.Answers a = CallerSnapshot.take(s, Caller.FIRST, quick);
    assertEquals(List.of(), a.snapshot().get("resources"));
    assertEquals(List.of("resources/list", "tools/list"), List.copyOf(a.pages().keySet()));
  }
}
