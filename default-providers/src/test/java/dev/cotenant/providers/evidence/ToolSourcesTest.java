package dev.cotenant.providers.evidence;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.cotenant.api.Finding;
import dev.cotenant.api.HandshakeFacts;
import dev.cotenant.api.ToolFacts;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** {@code all_tools_read_only}, {@code no_tool_annotations} and {@code no_tools_listed}. */
class ToolSourcesTest {
  private final AllToolsReadOnlyProvider readOnly = new AllToolsReadOnlyProvider();
  private final NoToolAnnotationsProvider noAnnotations = new NoToolAnnotationsProvider();
  private final NoToolsListedProvider noTools = new NoToolsListedProvider();

  private static HandshakeFacts tools(ToolFacts... tools) {
    return Handshakes.with(Map.of("tools", Map.of()), List.of(tools));
  }

  @Test
  void everyToolReadOnlyIsSupportingEvidence() {
    HandshakeFacts h = tools(Handshakes.readOnly("get"), Handshakes.readOnly("list"));
    assertEquals(List.of(new Finding("all_tools_read_only", "all_tools_read_only", "")), Handshakes.run(readOnly, h));
    assertEquals(List.of(), Handshakes.run(noAnnotations, h));
    assertEquals(List.of(), Handshakes.run(noTools, h));
  }

  @Test
  void oneWritingToolMeansNotAllReadOnly() {
    HandshakeFacts h =
        tools(Handshakes.readOnly("get"), Handshakes.annotated("put", Map.of("readOnlyHint", false)));
    assertEquals(List.of(), Handshakes.run(readOnly, h));
  }

  @Test
  void aHintThatIsNotTheBooleanTrueDoesNotCount() {
    HandshakeFacts h = tools(Handshakes.annotated("get", Map.of("readOnlyHint", "true")));
    assertEquals(List.of(), Handshakes.run(readOnly, h));
    assertEquals(List.of(), Handshakes.run(noAnnotations, h), "the tool is annotated, so annotations were available");
  }

  @Test
  void anUnannotatedToolAmongReadOnlyOnesBreaksReadOnlyButAnnotationsWereAvailable() {
    HandshakeFacts h = tools(Handshakes.readOnly("get"), ToolFacts.unannotated("put"));
    assertEquals(List.of(), Handshakes.run(readOnly, h));
    assertEquals(List.of(), Handshakes.run(noAnnotations, h));
  }

  @Test
  void noToolAnnotatedCarriesTheNegotiatedVersion() {
    HandshakeFacts h =
        HandshakeFacts.fromJson(
            "2024-11-05", Map.of("tools", Map.of()), Map.of(), List.of(ToolFacts.unannotated("a"), ToolFacts.unannotated("b")));
    assertEquals(
        List.of(new Finding("no_tool_annotations", "no_tool_annotations", "2024-11-05")),
        Handshakes.run(noAnnotations, h));
    assertEquals(List.of(), Handshakes.run(readOnly, h));
    assertEquals(List.of(), Handshakes.run(noTools, h));
  }

  @Test
  void anEmptyToolListIsNoToolsListedAndNothingElse() {
    HandshakeFacts h = tools();
    assertEquals(List.of(new Finding("no_tools_listed", "no_tools_listed", "")), Handshakes.run(noTools, h));
    assertEquals(List.of(), Handshakes.run(readOnly, h), "vacuous truth is not evidence");
    assertEquals(List.of(), Handshakes.run(noAnnotations, h));
  }

  @Test
  void everyToolSourceIsSilentWithoutAHandshake() {
    for (var p : List.of(readOnly, noAnnotations, noTools)) {
      assertEquals(List.of(), Handshakes.run(p, Handshakes.STDIO, Optional.empty()), p.name());
    }
  }
}
