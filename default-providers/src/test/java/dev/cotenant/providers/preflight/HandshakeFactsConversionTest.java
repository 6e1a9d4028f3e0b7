package dev.cotenant.providers.preflight;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.api.HandshakeFacts;
import dev.cotenant.api.ToolFacts;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class HandshakeFactsConversionTest {

  @Test
  void factsComeFromTheSnapshotAsIs() {
    Map<String, Object> snapshot = new HashMap<>();
    snapshot.put("protocolVersion", "2025-03-26");
    snapshot.put("capabilities", Map.of("logging", Map.of(), "tools", Map.of("listChanged", true),
        "experimental", Map.of("cotenant.caller-identity", Map.of())));
    snapshot.put("serverInfo", Map.of("name", "s", "version", "9"));
    List<Object> tools = new ArrayList<>();
    tools.add(Map.of("name", "r", "annotations", Map.of("readOnlyHint", true)));
    tools.add(Map.of("annotations", "not an object"));
    tools.add("not a tool");
    snapshot.put("tools", tools);
    HandshakeFacts f = StdioPreflightTransport.facts(snapshot);
    assertEquals("2025-03-26", f.protocolVersion());
    assertTrue(f.hasCapability("logging"));
    assertEquals(Boolean.TRUE, f.capabilityFlags().get("tools/listChanged"));
    assertTrue(f.experimentalKeys().contains("cotenant.caller-identity"));
    assertEquals(Optional.of("9"), f.reportedVersion());
    assertEquals(List.of(new ToolFacts("r", Optional.of(Map.of("readOnlyHint", true))), ToolFacts.unannotated("")), f.tools());
  }

  @Test
  void aSnapshotMissingEverythingGivesEmptyFacts() {
    HandshakeFacts f = StdioPreflightTransport.facts(Map.of("protocolVersion", 3, "tools", "failed: -32601"));
    assertEquals("", f.protocolVersion());
    assertTrue(f.capabilityPaths().isEmpty());
    assertTrue(f.tools().isEmpty());
    assertFalse(f.reportedVersion().isPresent());
  }
}
