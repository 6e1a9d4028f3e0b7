package dev.cotenant.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Reading capability paths, flags and experimental keys out of a handshake answer. */
class HandshakeFactsTest {

  private static HandshakeFacts facts(Map<String, ?> capabilities) {
    return HandshakeFacts.fromJson("2024-11-05", capabilities, Map.of(), List.of());
  }

  @Test
  void anEmptyLoggingObjectCountsAsPresent() {
    HandshakeFacts f = facts(Map.of("logging", Map.of()));
    assertTrue(f.hasCapability("logging"));
    assertEquals(Set.of("logging"), f.capabilityPaths());
    assertEquals(Map.of(), f.capabilityFlags());
  }

  @Test
  void anAbsentCapabilityIsAbsent() {
    HandshakeFacts f = facts(Map.of("tools", Map.of()));
    assertFalse(f.hasCapability("logging"));
    assertFalse(f.hasCapability("tools/listChanged"));
  }

  @Test
  void nestedKeysBecomePathsAndBooleanLeavesBecomeFlags() {
    Map<String, Object> caps = new LinkedHashMap<>();
    caps.put("tools", Map.of("listChanged", true));
    caps.put("resources", Map.of("subscribe", false, "listChanged", true));
    caps.put("prompts", Map.of("mode", "fast"));
    HandshakeFacts f = facts(caps);
    assertEquals(
        Set.of(
            "tools",
            "tools/listChanged",
            "resources",
            "resources/subscribe",
            "resources/listChanged",
            "prompts",
            "prompts/mode"),
        f.capabilityPaths());
    assertEquals(
        Map.of("tools/listChanged", true, "resources/subscribe", false, "resources/listChanged", true),
        f.capabilityFlags());
    assertTrue(f.hasCapability("resources/subscribe"), "presence, whatever the value");
  }

  @Test
  void experimentalKeysAreListedAndNotDescendedInto() {
    Map<String, Object> exp = new LinkedHashMap<>();
    exp.put("cotenant.caller-identity", Map.of("version", 1, "enabled", true));
    exp.put("vendor.flag", true);
    HandshakeFacts f = facts(Map.of("experimental", exp, "logging", Map.of()));
    assertEquals(Set.of("cotenant.caller-identity", "vendor.flag"), f.experimentalKeys());
    assertEquals(Set.of("experimental", "logging"), f.capabilityPaths());
    assertEquals(Map.of(), f.capabilityFlags());
  }

  @Test
  void aNonObjectExperimentalHasNoKeys() {
    HandshakeFacts f = facts(Map.of("experimental", "yes"));
    assertEquals(Set.of(), f.experimentalKeys());
    assertTrue(f.hasCapability("experimental"));
  }

  @Test
  void deepNestingIsBoundedNotFatal() {
    Map<String, Object> root = JsonTrees.nestedUnderK(500, Map.of());
    HandshakeFacts f = facts(root);
    assertEquals(HandshakeFacts.MAX_CAPABILITY_DEPTH, f.capabilityPaths().size());
    assertTrue(f.hasCapability("k" + "/k".repeat(HandshakeFacts.MAX_CAPABILITY_DEPTH - 1)));
  }

  @Test
  void theInputIsNotMutatedAndTheFactsCannotBeMutated() {
    Map<String, Object> caps = new HashMap<>();
    caps.put("tools", new HashMap<>(Map.of("listChanged", true)));
    Map<String, Object> info = new HashMap<>(Map.of("name", "srv", "version", "1.2.0"));
    List<ToolFacts> tools = new ArrayList<>(List.of(ToolFacts.unannotated("t")));
    Map<String, Object> capsCopy = Map.of("tools", Map.of("listChanged", true));
    HandshakeFacts f = HandshakeFacts.fromJson("2025-03-26", caps, info, tools);
    assertEquals(capsCopy, caps);
    info.put("version", "9.9.9");
    tools.clear();
    assertEquals(Optional.of("1.2.0"), f.reportedVersion());
    assertEquals(1, f.tools().size());
    assertThrows(UnsupportedOperationException.class, () -> f.capabilityPaths().add("x"));
    assertThrows(UnsupportedOperationException.class, () -> f.capabilityFlags().put("x", true));
    assertThrows(UnsupportedOperationException.class, () -> f.serverInfo().put("x", 1));
  }

  @Test
  void theReportedVersionIsAStringOrNothing() {
    assertEquals(
        Optional.empty(),
        HandshakeFacts.fromJson("v", Map.of(), Map.of("version", 3), List.of()).reportedVersion());
    Map<String, Object> withNull = new HashMap<>();
    withNull.put("version", null);
    HandshakeFacts f = HandshakeFacts.fromJson("v", Map.of(), withNull, List.of());
    assertEquals(Optional.empty(), f.reportedVersion());
    assertEquals(Json.NULL, f.serverInfo().get("version"));
  }

  @Test
  void toolAnnotationsAndReadOnlyHint() {
    ToolFacts ro = new ToolFacts("read", Optional.of(Map.of("readOnlyHint", true)));
    ToolFacts stringly = new ToolFacts("s", Optional.of(Map.of("readOnlyHint", "true")));
    ToolFacts plain = ToolFacts.unannotated("w");
    assertTrue(ro.readOnly());
    assertFalse(stringly.readOnly(), "only JSON true counts");
    assertFalse(plain.readOnly());
    assertTrue(HandshakeFacts.fromJson("v", Map.of(), Map.of(), List.of(plain, ro)).anyToolAnnotated());
    assertFalse(HandshakeFacts.fromJson("v", Map.of(), Map.of(), List.of(plain)).anyToolAnnotated());
  }
}
