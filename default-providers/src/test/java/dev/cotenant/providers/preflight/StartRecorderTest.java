package dev.cotenant.providers.preflight;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.spi.HandshakeEra;
import dev.cotenant.spi.Mcp;
import dev.cotenant.spi.StartRecording;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * When two callers' whole answers make a start that may be answered from the records, and the
 * words saying why not: exactly equal answers (the version each asked aside) from a server that
 * said nothing of its own, in the initialize era.
 */
class StartRecorderTest {
  private static Map<String, Object> map(Object... kv) {
    Map<String, Object> m = new LinkedHashMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      m.put((String) kv[i], kv[i + 1]);
    }
    return m;
  }

  private static SortedMap<String, List<Map<String, Object>>> tools(Object... pageResults) {
    SortedMap<String, List<Map<String, Object>>> pages = new TreeMap<>();
    List<Map<String, Object>> answers = new java.util.ArrayList<>();
    for (Object r : pageResults) {
      answers.add(map("result", r));
    }
    pages.put("tools/list", answers);
    return pages;
  }

  private static final Map<String, Object> TOOLS = map("tools", List.of(map("name", "echo",
      "inputSchema", map("type", "object"))));

  private static StartRecorder.Side side(Caller c, String answered, Map<String, Object> extra,
      SortedMap<String, List<Map<String, Object>>> pages, String unsolicited) {
    Map<String, Object> init = map("protocolVersion", answered, "capabilities", map("tools", map()),
        "serverInfo", map("name", "s", "version", "1"));
    init.putAll(extra);
    return new StartRecorder.Side(c, new CallerSnapshot.Answers(map(), HandshakeEra.INITIALIZE, init, pages), unsolicited);
  }

  private static StartRecorder.Side echoing(Caller c) {
    return side(c, c.protocolVersion(), map(), tools(TOOLS), null);
  }

  @Test
  void alikeAnswersAreRecordedWithWhatTheCallersVaried() {
    StartRecorder.Outcome o = StartRecorder.record(echoing(Caller.FIRST), echoing(Caller.SECOND));
    assertEquals("", o.notRecorded());
    StartRecording r = o.start().orElseThrow();
    assertEquals(Map.of(Mcp.LEGACY_VERSION, Mcp.LEGACY_VERSION, Mcp.PRIOR_VERSION, Mcp.PRIOR_VERSION), r.versions());
    assertEquals(List.of("elicitation", "extensions/" + Mcp.APPS_EXTENSION, "roots", "sampling"), r.clientCapabilities());
    assertFalse(r.initializeResult().containsKey("protocolVersion"));
    assertEquals(Map.of("protocolVersion", Mcp.PRIOR_VERSION, "capabilities", map("tools", map()),
        "serverInfo", map("name", "s", "version", "1")), r.initializeResult(Mcp.PRIOR_VERSION).orElseThrow());
    assertEquals(map("result", TOOLS), r.page("tools/list", null).orElseThrow());
    assertTrue(r.initializeResult("2024-11-05").isEmpty());
  }

  @Test
  void oneVersionForEveryCallerAgreesToo() {
    StartRecorder.Outcome o = StartRecorder.record(side(Caller.FIRST, "2025-03-26", map(), tools(TOOLS), null),
        side(Caller.SECOND, "2025-03-26", map(), tools(TOOLS), null));
    assertEquals(Map.of(Mcp.LEGACY_VERSION, "2025-03-26", Mcp.PRIOR_VERSION, "2025-03-26"),
        o.start().orElseThrow().versions());
  }

  @Test
  void versionsThatNeitherEchoNorAgreeAreNotRecorded() {
    StartRecorder.Outcome o = StartRecorder.record(side(Caller.FIRST, Mcp.PRIOR_VERSION, map(), tools(TOOLS), null),
        side(Caller.SECOND, "2025-03-26", map(), tools(TOOLS), null));
    assertTrue(o.start().isEmpty());
    assertEquals("it answered protocol version 2025-06-18 to a caller asking 2025-11-25 and 2025-03-26 to one asking"
        + " 2025-06-18", o.notRecorded());
  }

  @Test
  void anyDifferenceInTheInitializeResultOrAListingIsNotRecorded() {
    assertEquals("its initialize result differs between callers", StartRecorder.record(echoing(Caller.FIRST),
        side(Caller.SECOND, Mcp.PRIOR_VERSION, map("instructions", "hello cotenant-preflight-b"), tools(TOOLS), null))
        .notRecorded());
    assertEquals("its tools/list differs between callers", StartRecorder.record(echoing(Caller.FIRST),
        side(Caller.SECOND, Mcp.PRIOR_VERSION, map(), tools(map("tools", List.of(map("name", "echo",
            "inputSchema", map("type", "object", "title", "B"))))), null)).notRecorded());
  }

  @Test
  void cursorsDrawnAfreshByEachProcessDoNotCount() {
    StartRecorder.Outcome o = StartRecorder.record(
        side(Caller.FIRST, Mcp.LEGACY_VERSION, map(), tools(map("tools", List.of(), "nextCursor", "a1"), TOOLS), null),
        side(Caller.SECOND, Mcp.PRIOR_VERSION, map(), tools(map("tools", List.of(), "nextCursor", "b7"), TOOLS), null));
    StartRecording r = o.start().orElseThrow();
    assertEquals(map("result", TOOLS), r.page("tools/list", "a1").orElseThrow());
    assertTrue(r.page("tools/list", "b7").isEmpty());
  }

  @Test
  void aServerThatTalksBeforeItsListingsEndIsNotRecorded() {
    StartRecorder.Outcome o = StartRecorder.record(echoing(Caller.FIRST),
        side(Caller.SECOND, Mcp.PRIOR_VERSION, map(), tools(TOOLS), "a request roots/list"));
    assertEquals("it sent a request roots/list before its listings ended", o.notRecorded());
  }

  @Test
  void theDiscoverEraIsNotRecorded() {
    StartRecorder.Side modern = new StartRecorder.Side(Caller.FIRST,
        new CallerSnapshot.Answers(map(), HandshakeEra.DISCOVER, map(), tools(TOOLS)), null);
    assertTrue(StartRecorder.record(modern, echoing(Caller.SECOND)).notRecorded().contains("server/discover"));
  }

  @Test
  void answersTooDeepOrTooLargeForTheRecordsAreNotRecorded() {
    Object deep = "x";
    for (int i = 0; i < StartRecording.MAX_DEPTH + 5; i++) {
      deep = map("d", deep);
    }
    Map<String, Object> deepTools = map("tools", List.of(map("name", "echo", "inputSchema", deep)));
    assertTrue(StartRecorder.record(side(Caller.FIRST, Mcp.LEGACY_VERSION, map(), tools(deepTools), null),
        side(Caller.SECOND, Mcp.PRIOR_VERSION, map(), tools(deepTools), null)).notRecorded().contains("nest deeper"));
    Map<String, Object> large = map("tools", List.of(map("name", "echo", "description",
        "x".repeat(StartRecorder.MAX_BYTES + 1))));
    assertTrue(StartRecorder.record(side(Caller.FIRST, Mcp.LEGACY_VERSION, map(), tools(large), null),
        side(Caller.SECOND, Mcp.PRIOR_VERSION, map(), tools(large), null)).notRecorded().contains("KiB"));
  }
}
