package dev.cotenant.gateway.sharing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.api.HazardCode;
import dev.cotenant.api.ProbePass;
import dev.cotenant.spi.PreflightRecord;
import dev.cotenant.spi.StartRecording;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * When a session's start is answered from the records ({@link StartDecision}) and which clients a
 * shared backend serves ({@link ShapeGroup}): each condition, and the reason given when it fails.
 */
class StartDecisionTest {
  static final StartRecording START = new StartRecording(
      new TreeMap<>(Map.of("2025-11-25", "2025-11-25", "2025-06-18", "2025-06-18")),
      List.of("elicitation", "roots", "sampling"), Map.of("capabilities", Map.of("tools", Map.of())),
      new TreeMap<>(Map.of("tools/list", List.of(Map.of("result", Map.of("tools", List.of()))))));

  static Optional<PreflightRecord> row(Optional<StartRecording> start, String notRecorded) {
    return Optional.of(new PreflightRecord("s", "id", true, false, List.of(), 1.0, Optional.empty(), Optional.empty(),
        start, notRecorded));
  }

  static Map<String, Object> init(String version, Map<String, Object> caps) {
    return Map.of("protocolVersion", version, "capabilities", caps, "clientInfo", Map.of("name", "c", "version", "1"));
  }

  private static StartDecision decide(Map<String, Object> init, Optional<PreflightRecord> row, Set<HazardCode> seen,
      Optional<String> incomplete) {
    return StartDecision.decide(true, init, row, seen, incomplete);
  }

  @Test
  void aCoveredClientIsDeferredAndEveryOtherOneSaysWhyNot() {
    Map<String, Object> ok = init("2025-06-18", Map.of("roots", Map.of()));
    StartDecision yes = decide(ok, row(Optional.of(START), ""), Set.of(), Optional.empty());
    assertTrue(yes.deferred(), yes.why());
    assertEquals(Optional.of(START), yes.start());

    assertEquals("deferring is off (cotenant.sharing.defer=false)",
        StartDecision.decide(false, ok, row(Optional.of(START), ""), Set.of(), Optional.empty()).why());
    assertEquals("the client speaks 2026-07-28, naming itself in every request",
        decide(Map.of(), row(Optional.of(START), ""), Set.of(), Optional.empty()).why());
    assertEquals("no pre-flight on record under its current launch identity (`cotenant measure` records one)",
        decide(ok, Optional.empty(), Set.of(), Optional.empty()).why());
    assertEquals("its pre-flight could not run: exited 1 before answering", decide(ok, Optional.of(new PreflightRecord(
        "s", "id", false, false, List.of("exited 1 before answering"), 1.0, Optional.empty(), Optional.empty())),
        Set.of(), Optional.empty()).why());
    assertEquals("its pre-flight recorded no start: its tools/list differs between callers",
        decide(ok, row(Optional.empty(), "its tools/list differs between callers"), Set.of(), Optional.empty()).why());
    assertTrue(decide(ok, row(Optional.empty(), ""), Set.of(), Optional.empty()).why()
        .contains("taken before starts were recorded"));
    assertEquals("the hazard ledger could not be read completely: cut off",
        decide(ok, row(Optional.of(START), ""), Set.of(), Optional.of("cut off")).why());
    assertTrue(decide(ok, row(Optional.of(START), ""), Set.of(HazardCode.DEFERRED_ANSWER_CHANGED), Optional.empty())
        .why().startsWith("a start answered from the records differed from the live server"));
    assertTrue(decide(ok, row(Optional.of(START), ""), Set.of(HazardCode.CROSS_SESSION_LEAK), Optional.empty())
        .deferred(), "a sharing hazard says nothing about the start");
    assertEquals("the client asks protocol version 2025-03-26; its recorded start covers 2025-06-18, 2025-11-25",
        decide(init("2025-03-26", Map.of()), row(Optional.of(START), ""), Set.of(), Optional.empty()).why());
    assertEquals("the client declares extensions/io.modelcontextprotocol/ui, which its pre-flight's callers did not vary",
        decide(init("2025-11-25", Map.of("extensions", Map.of("io.modelcontextprotocol/ui", Map.of()))),
            row(Optional.of(START), ""), Set.of(), Optional.empty()).why());
  }

  @Test
  void onRecordSaysWhetherAnyClientCouldBeDeferred() {
    assertTrue(StartDecision.onRecord(true, row(Optional.of(START), ""), Set.of(), Optional.empty()).deferred());
    assertFalse(StartDecision.onRecord(true, row(Optional.empty(), "x"), Set.of(), Optional.empty()).deferred());
    assertFalse(StartDecision.onRecord(false, row(Optional.of(START), ""), Set.of(), Optional.empty()).deferred());
  }

  @Test
  void theCoveredGroupNeedsTheRecordingAndAProbeOfTheClientsVersion() {
    ClientShape older = ClientShape.of(init("2025-06-18", Map.of("roots", Map.of())));
    ClientShape newer = ClientShape.of(init("2025-11-25", Map.of()));
    ProbePass both = ProbePass.wholeSurface("id", 3, 1.0, ProbePass.Surface.of(List.of("t"), Map.of(),
        List.of("roots"), List.of("2025-06-18", "2025-11-25")));
    ProbePass oneVersion = ProbePass.wholeSurface("id", 3, 1.0, ProbePass.Surface.of(List.of("t"), Map.of(),
        List.of("roots"), List.of("2025-11-25")));

    ShapeGroup a = ShapeGroup.of(older, row(Optional.of(START), ""), Set.of(), Optional.of(both));
    ShapeGroup b = ShapeGroup.of(newer, row(Optional.of(START), ""), Set.of(), Optional.of(both));
    assertEquals(ShapeGroup.COVERED, a.key());
    assertEquals(a.key(), b.key(), "one backend for both");
    assertEquals(Optional.of("2025-06-18"), a.answeredVersion());
    assertEquals(ShapeGroup.COVERED, ShapeGroup.of(older, row(Optional.of(START), ""), Set.of(), Optional.empty()).key(),
        "a server that declares its isolation needs no probe");

    ShapeGroup notProbed = ShapeGroup.of(older, row(Optional.of(START), ""), Set.of(), Optional.of(oneVersion));
    assertEquals(older.key(), notProbed.key());
    assertEquals(Optional.empty(), notProbed.answeredVersion());
    assertTrue(notProbed.why().endsWith("its whole-surface probe ran as clients of 2025-11-25, not 2025-06-18"));
    assertTrue(ShapeGroup.of(older, row(Optional.empty(), "x"), Set.of(), Optional.of(both)).why()
        .contains("recorded no start"));
    assertEquals(older.key(), ShapeGroup.of(older, row(Optional.of(START), ""),
        Set.of(HazardCode.DEFERRED_ANSWER_CHANGED), Optional.of(both)).key());
    ClientShape old = ClientShape.of(init("2025-03-26", Map.of()));
    assertTrue(ShapeGroup.of(old, row(Optional.of(START), ""), Set.of(), Optional.of(both)).why()
        .endsWith("the client asks protocol version 2025-03-26, and its pre-flight covers 2025-06-18, 2025-11-25"));
    ClientShape odd = ClientShape.of(init("2025-11-25", Map.of("experimental", Map.of("x", Map.of()))));
    assertEquals(odd.key(), ShapeGroup.of(odd, row(Optional.of(START), ""), Set.of(), Optional.of(both)).key());
  }
}
