package dev.cotenant.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * What a start recording covers and answers: the versions its callers asked, the capability paths
 * they varied, each page by the cursor handed out before it, and what a live server answered
 * differently; its JSON form read back, and refused with the member named when malformed.
 */
class StartRecordingTest {
  private static StartRecording recording() {
    TreeMap<String, List<Map<String, Object>>> listings = new TreeMap<>();
    listings.put("tools/list", List.of(
        Map.of("result", Map.of("tools", List.of(Map.of("name", "a")), "nextCursor", "c1")),
        Map.of("result", Map.of("tools", List.of(Map.of("name", "b"))))));
    listings.put("prompts/list", List.of(Map.of("error", Map.of("code", -32601, "message", "no"))));
    return new StartRecording(new TreeMap<>(Map.of("2025-11-25", "2025-11-25", "2025-06-18", "2025-03-26")),
        List.of("roots", "extensions/io.modelcontextprotocol/ui"),
        Map.of("capabilities", Map.of("tools", Map.of()), "serverInfo", Map.of("name", "s")), listings);
  }

  @Test
  void aClientIsAnsweredTheVersionNegotiatedForTheOneItAsked() {
    StartRecording r = recording();
    assertEquals("2025-03-26", r.initializeResult("2025-06-18").orElseThrow().get("protocolVersion"));
    assertEquals("2025-11-25", r.initializeResult("2025-11-25").orElseThrow().get("protocolVersion"));
    assertEquals(Optional.empty(), r.initializeResult("2024-11-05"));
  }

  @Test
  void capabilityPathsNameEachExtensionAndOnlyWhatTheCallersVariedIsCovered() {
    Map<String, Object> caps = Map.of("roots", Map.of("listChanged", true), "extensions",
        Map.of("io.modelcontextprotocol/ui", Map.of(), "vendor/x", Map.of()), "experimental", Map.of("k", 1));
    assertEquals(List.of("experimental/k", "extensions/io.modelcontextprotocol/ui", "extensions/vendor/x", "roots"),
        StartRecording.capabilityPaths(caps));
    assertEquals(List.of("experimental/k", "extensions/vendor/x"), recording().uncovered(caps));
    assertEquals(List.of(), recording().uncovered(Map.of("roots", Map.of())));
    assertEquals(List.of("sampling"), recording().uncovered(Map.of("sampling", Map.of())));
  }

  @Test
  void pagesAreServedByTheCursorHandedOutBeforeThem() {
    StartRecording r = recording();
    assertEquals("c1", ((Map<?, ?>) r.page("tools/list", null).orElseThrow().get("result")).get("nextCursor"));
    assertEquals(List.of(Map.of("name", "b")), ((Map<?, ?>) r.page("tools/list", "c1").orElseThrow().get("result"))
        .get("tools"));
    assertEquals(Optional.empty(), r.page("tools/list", "unknown"));
    assertEquals(Optional.empty(), r.page("resources/list", null));
    assertTrue(r.page("prompts/list", null).orElseThrow().containsKey("error"));
  }

  @Test
  void aLiveServerAnsweringOtherwiseIsNamedPartByPart() {
    StartRecording r = recording();
    Map<String, Object> init = r.initializeResult("2025-11-25").orElseThrow();
    List<Map<String, Object>> sameTools = List.of(
        Map.of("result", Map.of("tools", List.of(Map.of("name", "a")), "nextCursor", "another-cursor")),
        Map.of("result", Map.of("tools", List.of(Map.of("name", "b")))));
    assertEquals(List.of(), r.differences("2025-11-25", init, Map.of("tools/list", sameTools)));
    List<Map<String, Object>> moreTools = List.of(Map.of("result", Map.of("tools",
        List.of(Map.of("name", "a"), Map.of("name", "b"), Map.of("name", "c")))));
    assertEquals(List.of("tools/list"), r.differences("2025-11-25", init, Map.of("tools/list", moreTools)));
    Map<String, Object> other = new java.util.LinkedHashMap<>(init);
    other.put("instructions", "new");
    assertEquals(List.of("initialize"), r.differences("2025-11-25", other, Map.of()));
    assertEquals(List.of("initialize"), r.differences("2025-06-18", init, Map.of()), "the version negotiated differs");
  }

  @Test
  void itsJsonFormIsReadBackAndAMalformedOneRefusedNamingTheMember() {
    StartRecording r = recording();
    assertEquals(r.toJson(), StartRecording.fromJson(r.toJson()).toJson());
    Map<String, Object> bad = new java.util.LinkedHashMap<>(r.toJson());
    bad.put("listings", Map.of("tools/list", List.of("not an answer")));
    assertEquals("its listing tools/list is not a list of answers",
        assertThrows(IllegalArgumentException.class, () -> StartRecording.fromJson(bad)).getMessage());
    bad.put("versions", Map.of());
    assertEquals("its versions are not an object of versions",
        assertThrows(IllegalArgumentException.class, () -> StartRecording.fromJson(bad)).getMessage());
    assertThrows(IllegalArgumentException.class, () -> new StartRecording(new TreeMap<>(Map.of("a", "a")), List.of(),
        Map.of("protocolVersion", "a"), new TreeMap<>()), "the result is kept without its version");
    assertThrows(IllegalArgumentException.class, () -> new StartRecording(new TreeMap<>(Map.of("a", "a")), List.of(),
        Map.of(), new TreeMap<>(Map.of("tools/list", List.of(Map.of("result", 1, "error", 2))))));
  }
}
