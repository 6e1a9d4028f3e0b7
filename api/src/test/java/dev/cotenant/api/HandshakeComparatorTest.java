package dev.cotenant.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;
import static org.quicktheories.generators.SourceDSL.longs;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.BiFunction;
import org.junit.jupiter.api.Test;
import org.quicktheories.QuickTheory;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;

/**
 * {@link HandshakeComparator} on hand-written snapshots, and three properties. Each property is a
 * static method taking the theory to run and the comparison it checks, so
 * {@link PropertiesBiteTest} can show it fails on a broken one.
 */
class HandshakeComparatorTest {

  /** Examples per property: the boolean one has 16 cases in all. */
  static final int EXAMPLES = 200;

  private static Map<String, Object> tool(String name, Map<String, Object> annotations) {
    Map<String, Object> t = new LinkedHashMap<>();
    t.put("name", name);
    t.put("description", "does " + name);
    if (annotations != null) {
      t.put("annotations", annotations);
    }
    return t;
  }

  private static Map<String, Object> snapshot(Map<String, Object> overrides) {
    Map<String, Object> s = new LinkedHashMap<>();
    s.put("protocolVersion", "2025-06-18");
    s.put("capabilities", Map.of("tools", Map.of("listChanged", true)));
    s.put("serverInfo", Map.of("name", "echo", "version", "1.0.0"));
    s.put("tools", List.of(tool("a", Map.of("readOnlyHint", true)), tool("b", null)));
    s.putAll(overrides);
    return s;
  }

  private static List<String> compare(Map<String, Object> a, Map<String, Object> b) {
    return HandshakeComparator.compare(a, b);
  }

  @Test
  void identicalSnapshotsDoNotDiverge() {
    assertEquals(List.of(), compare(snapshot(Map.of()), snapshot(Map.of())));
  }

  @Test
  void reorderedToolsAreNotADivergence() {
    Map<String, Object> a = snapshot(Map.of("tools",
        List.of(tool("a", Map.of("readOnlyHint", true)), tool("b", Map.of("destructiveHint", false)))));
    Map<String, Object> b = snapshot(Map.of("tools",
        List.of(tool("b", Map.of("destructiveHint", false)), tool("a", Map.of("readOnlyHint", true)))));
    assertEquals(List.of(), compare(a, b));
  }

  @Test
  void reorderedAnnotationsAndKeysAreNotADivergence() {
    Map<String, Object> ann1 = new LinkedHashMap<>();
    ann1.put("readOnlyHint", true);
    ann1.put("openWorldHint", false);
    Map<String, Object> ann2 = new LinkedHashMap<>();
    ann2.put("openWorldHint", false);
    ann2.put("readOnlyHint", true);
    Map<String, Object> a = snapshot(Map.of("tools", List.of(tool("x", ann1), tool("y", Map.of()))));
    Map<String, Object> b = snapshot(Map.of("tools", List.of(tool("y", ann2), tool("x", Map.of()))));
    // Annotations are never paired with names: the multiset {ann, {}} is the same on both sides.
    assertEquals(List.of(), compare(a, b));
  }

  @Test
  void aDifferingAnnotationClaimIsADivergence() {
    Map<String, Object> a = snapshot(Map.of("tools", List.of(tool("a", Map.of("readOnlyHint", true)))));
    Map<String, Object> b = snapshot(Map.of("tools", List.of(tool("a", Map.of("readOnlyHint", false)))));
    assertEquals(List.of(HandshakeComparator.TOOL_ANNOTATIONS), compare(a, b));
  }

  @Test
  void annotationMultiplicityCounts() {
    Map<String, Object> ro = Map.of("readOnlyHint", true);
    Map<String, Object> a = snapshot(Map.of("tools", List.of(tool("a", ro), tool("b", ro), tool("c", Map.of()))));
    Map<String, Object> b = snapshot(Map.of("tools", List.of(tool("a", ro), tool("b", Map.of()), tool("c", Map.of()))));
    assertEquals(List.of(HandshakeComparator.TOOL_ANNOTATIONS), compare(a, b));
  }

  @Test
  void aToolWithAnEmptyNameCannotMisalignAnything() {
    // Same length, same names as a set; the nameless tool carries the annotation on one side and
    // a named tool on the other. Pairing by index would "see" a reorder; the multiset does not.
    Map<String, Object> ro = Map.of("readOnlyHint", true);
    Map<String, Object> a = snapshot(Map.of("tools", List.of(tool("", ro), tool("a", null), tool("b", null))));
    Map<String, Object> b = snapshot(Map.of("tools", List.of(tool("a", null), tool("b", ro), tool("", null))));
    assertEquals(List.of(), compare(a, b));
    // And a nameless tool that appears on one side only is seen as a tool-set difference.
    Map<String, Object> c = snapshot(Map.of("tools", List.of(tool("a", null), tool("b", ro))));
    assertEquals(List.of(HandshakeComparator.TOOLS), compare(a, c));
  }

  @Test
  void toolNamesCompareAsASet() {
    Map<String, Object> a = snapshot(Map.of("tools", List.of(tool("a", null), tool("b", null))));
    Map<String, Object> b = snapshot(Map.of("tools", List.of(tool("a", null), tool("c", null))));
    assertEquals(List.of(HandshakeComparator.TOOLS), compare(a, b));
    Map<String, Object> dup = snapshot(Map.of("tools", List.of(tool("a", null), tool("b", null), tool("a", null))));
    assertEquals(List.of(), compare(a, dup));
  }

  @Test
  void freeFormLeavesDoNotDiverge() {
    Map<String, Object> a = snapshot(Map.of(
        "serverInfo", Map.of("name", "echo", "version", "1.0.0+build.1"),
        "capabilities", Map.of("experimental", Map.of("build", Map.of("id", "abc", "n", 1))),
        "tools", List.of(tool("a", Map.of("title", "Alpha", "readOnlyHint", true)))));
    Map<String, Object> b = snapshot(Map.of(
        "serverInfo", Map.of("name", "echo-for-bob", "version", "1.0.0+build.2"),
        "capabilities", Map.of("experimental", Map.of("build", Map.of("id", "xyz", "n", 2))),
        "tools", List.of(tool("a", Map.of("title", "Alpha for Bob", "readOnlyHint", true)))));
    assertEquals(List.of(), compare(a, b));
  }

  @Test
  void keysPresentVersusAbsentDiverge() {
    Map<String, Object> a = snapshot(Map.of("serverInfo", Map.of("name", "echo", "version", "1")));
    Map<String, Object> b = snapshot(Map.of("serverInfo", Map.of("name", "echo")));
    assertEquals(List.of(HandshakeComparator.SERVER_INFO), compare(a, b));

    Map<String, Object> c = snapshot(Map.of("capabilities", Map.of("tools", Map.of())));
    Map<String, Object> d = snapshot(Map.of("capabilities", Map.of("tools", Map.of(), "prompts", Map.of())));
    assertEquals(List.of(HandshakeComparator.CAPABILITIES), compare(c, d));
  }

  @Test
  void emptyLoggingObjectCountsAsPresent() {
    Map<String, Object> a = snapshot(Map.of("capabilities", Map.of("tools", Map.of(), "logging", Map.of())));
    Map<String, Object> b = snapshot(Map.of("capabilities", Map.of("tools", Map.of())));
    assertEquals(List.of(HandshakeComparator.CAPABILITIES), compare(a, b));
    assertNotEquals(HandshakeComparator.shape(Map.of("logging", Map.of())), HandshakeComparator.shape(Map.of()));
  }

  @Test
  void booleanFlagsAreCompared() {
    Map<String, Object> a = snapshot(Map.of("capabilities", Map.of("tools", Map.of("listChanged", true))));
    Map<String, Object> b = snapshot(Map.of("capabilities", Map.of("tools", Map.of("listChanged", false))));
    assertEquals(List.of(HandshakeComparator.CAPABILITIES), compare(a, b));
  }

  @Test
  void experimentalKeysAreCapabilityShape() {
    Map<String, Object> a = snapshot(Map.of("capabilities", Map.of("experimental", Map.of("cotenant.caller-identity", Map.of()))));
    Map<String, Object> b = snapshot(Map.of("capabilities", Map.of("experimental", Map.of())));
    assertEquals(List.of(HandshakeComparator.CAPABILITIES), compare(a, b));
  }

  @Test
  void protocolVersionIsComparedVerbatim() {
    Map<String, Object> a = snapshot(Map.of("protocolVersion", "2025-06-18"));
    Map<String, Object> b = snapshot(Map.of("protocolVersion", "2025-03-26"));
    assertEquals(List.of(HandshakeComparator.PROTOCOL_VERSION), compare(a, b));
  }

  @Test
  void supportedVersionsCompareAsASet() {
    Map<String, Object> a = snapshot(Map.of("protocolVersion", "2026-07-28",
        "supportedVersions", List.of("2026-07-28", "2025-11-25")));
    Map<String, Object> b = snapshot(Map.of("protocolVersion", "2026-07-28",
        "supportedVersions", List.of("2025-11-25", "2026-07-28")));
    Map<String, Object> c = snapshot(Map.of("protocolVersion", "2026-07-28",
        "supportedVersions", List.of("2026-07-28")));
    assertEquals(List.of(), compare(a, b));
    assertEquals(List.of(HandshakeComparator.PROTOCOL_VERSION), compare(a, c));
  }

  @Test
  void listingsAreComparedWhenPresent() {
    Map<String, Object> a = snapshot(Map.of(
        "prompts", List.of(Map.of("name", "greet", "description", "one")),
        "resources", List.of(Map.of("uri", "file:///a", "name", "A"))));
    Map<String, Object> b = snapshot(Map.of(
        "prompts", List.of(Map.of("name", "greet", "description", "two")),
        "resources", List.of(Map.of("uri", "file:///b", "name", "A"))));
    assertEquals(List.of(HandshakeComparator.RESOURCES), compare(a, b));
    Map<String, Object> noPrompts = snapshot(Map.of("resources", List.of(Map.of("uri", "file:///a"))));
    assertEquals(List.of(HandshakeComparator.PROMPTS), compare(a, noPrompts));
  }

  @Test
  void aFailedListingDiffersFromAnAnsweredOneButNotFromAnotherFailure() {
    Map<String, Object> a = snapshot(Map.of("tools", "failed: -32601"));
    Map<String, Object> b = snapshot(Map.of("tools", "failed: -32603 different text"));
    Map<String, Object> c = snapshot(Map.of("tools", List.of()));
    assertEquals(List.of(), compare(a, b));
    assertEquals(List.of(HandshakeComparator.TOOLS, HandshakeComparator.TOOL_ANNOTATIONS), compare(a, c));
  }

  @Test
  void everyFacetIsReportedInStableOrder() {
    Map<String, Object> a = snapshot(Map.of(
        "protocolVersion", "2025-06-18",
        "capabilities", Map.of("tools", Map.of()),
        "serverInfo", Map.of("name", "a"),
        "tools", List.of(tool("a", Map.of("readOnlyHint", true))),
        "prompts", List.of(Map.of("name", "p")),
        "resources", List.of(Map.of("uri", "u"))));
    Map<String, Object> b = snapshot(Map.of(
        "protocolVersion", "2025-11-25",
        "capabilities", Map.of(),
        "serverInfo", Map.of("name", "a", "title", "A"),
        "tools", List.of(tool("b", Map.of("readOnlyHint", false))),
        "prompts", List.of(Map.of("name", "q")),
        "resources", List.of(Map.of("uri", "v"))));
    assertEquals(HandshakeComparator.FACETS, compare(a, b));
    assertEquals(HandshakeComparator.FACETS, compare(b, a));
  }

  @Test
  void nullLeavesAndJavaNullsCollapseToPresence() {
    Map<String, Object> withNull = new HashMap<>();
    withNull.put("name", null);
    assertEquals(HandshakeComparator.shape(Map.of("name", "x")), HandshakeComparator.shape(withNull));
    assertEquals(HandshakeComparator.shape(Map.of("name", Json.NULL)), HandshakeComparator.shape(Map.of("name", List.of(1))));
  }

  @Test
  void keysThatLookLikeSyntaxDoNotCollide() {
    assertNotEquals(
        HandshakeComparator.shape(Map.of("a\":*,\"b", 1)),
        HandshakeComparator.shape(Map.of("a", 1, "b", 2)));
  }

  @Test
  void hostileNestingNeitherOverflowsNorDiverges() {
    Map<String, Object> deepA = JsonTrees.nestedUnderK(100_000, Map.of("leaf", true));
    Map<String, Object> deepB = JsonTrees.nestedUnderK(100_000, Map.of("leaf", false));
    // Below MAX_DEPTH the two shapes are both "deep": the difference at depth 100,000 is unseen.
    assertEquals(List.of(), compare(snapshot(Map.of("capabilities", deepA)), snapshot(Map.of("capabilities", deepB))));
    assertTrue(HandshakeComparator.shape(deepA).contains(HandshakeComparator.DEEP));
  }

  @Test
  void aCyclicTreeTerminates() {
    Map<String, Object> cyclic = new HashMap<>();
    cyclic.put("self", cyclic);
    String shape = HandshakeComparator.shape(cyclic);
    assertTrue(shape.endsWith("}"));
    assertTrue(shape.contains(HandshakeComparator.DEEP));
  }

  @Test
  void inputsAreNotMutated() {
    Map<String, Object> a = snapshot(Map.of());
    List<Object> tools = new ArrayList<>(List.of(tool("z", Map.of("readOnlyHint", true)), tool("a", null)));
    a.put("tools", tools);
    Map<String, Object> before = new LinkedHashMap<>(a);
    List<Object> toolsBefore = new ArrayList<>(tools);
    compare(a, snapshot(Map.of()));
    assertEquals(before, a);
    assertEquals(toolsBefore, tools);
  }

  /** Up to 12 distinct tool names, each up to 255 ASCII letters. */
  private static Gen<List<String>> toolNames() {
    Gen<String> name = TextGenerators.strings(TextGenerators.alphaChar(), 0, Theories.DEFAULT_MAX_SIZE);
    return lists().of(name).ofSizeBetween(0, 12).map(names -> List.copyOf(new LinkedHashSet<>(names)));
  }

  @Test
  void anyPermutationOfToolsReplaysIdentically() {
    anyPermutationOfToolsReplaysIdentically(Theories.qt(EXAMPLES), HandshakeComparator::compare);
  }

  /** The same tools in the drawn order and in an order shuffled by a drawn seed never diverge. */
  static void anyPermutationOfToolsReplaysIdentically(
      QuickTheory qt, BiFunction<Map<String, Object>, Map<String, Object>, List<String>> compare) {
    qt.forAll(toolNames(), Generate.booleans(), longs().all())
        .checkAssert(
            (names, readOnly, seed) -> {
              List<Object> tools = new ArrayList<>();
              for (int i = 0; i < names.size(); i++) {
                tools.add(tool(names.get(i), i % 2 == 0 ? Map.of("readOnlyHint", readOnly) : null));
              }
              List<Object> shuffled = new ArrayList<>(tools);
              Collections.shuffle(shuffled, new Random(seed));
              assertEquals(
                  List.of(), compare.apply(snapshot(Map.of("tools", tools)), snapshot(Map.of("tools", shuffled))));
            });
  }

  /**
   * Snapshots that differ, or not, in every facet: each of the 16 drawn digits picks one choice
   * from a small set, so equal and differing facets are both common.
   */
  static Gen<Map<String, Object>> snapshots() {
    return lists().of(integers().between(0, 7)).ofSize(16).map(HandshakeComparatorTest::snapshotOf);
  }

  private static Map<String, Object> snapshotOf(List<Integer> d) {
    Map<String, Object> s = new LinkedHashMap<>();
    s.put("protocolVersion", d.get(0) % 2 == 0 ? "2025-06-18" : "2025-11-25");
    if (d.get(1) % 4 != 0) {
      List<String> versions = new ArrayList<>();
      if ((d.get(1) & 1) != 0) {
        versions.add("2025-06-18");
      }
      if ((d.get(1) & 2) != 0) {
        versions.add("2025-11-25");
      }
      if ((d.get(1) & 4) != 0) {
        Collections.reverse(versions);
      }
      s.put("supportedVersions", versions);
    }
    Map<String, Object> caps = new LinkedHashMap<>();
    if ((d.get(2) & 1) != 0) {
      caps.put("tools", Map.of("listChanged", (d.get(2) & 2) != 0));
    }
    if ((d.get(2) & 4) != 0) {
      caps.put("logging", Map.of());
    }
    if ((d.get(3) & 1) != 0) {
      caps.put("prompts", Map.of());
    }
    if ((d.get(3) & 2) != 0) {
      caps.put("experimental", Map.of("x", Map.of("on", (d.get(3) & 4) != 0)));
    }
    s.put("capabilities", caps);
    Map<String, Object> info = new LinkedHashMap<>();
    info.put("name", "echo-" + d.get(4));
    if ((d.get(5) & 1) != 0) {
      info.put("version", "1." + d.get(4));
    }
    if ((d.get(5) & 2) != 0) {
      info.put("title", "Echo");
    }
    s.put("serverInfo", info);
    switch (d.get(6) % 4) {
      case 0 -> { }
      case 1 -> s.put("tools", "failed: -3260" + d.get(7));
      default -> {
        List<Object> tools = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
          int t = d.get(7 + i);
          if (t % 4 != 0) {
            tools.add(tool(String.valueOf((char) ('a' + i)), t % 4 == 1 ? null : Map.of("readOnlyHint", t % 4 == 2)));
          }
        }
        if ((d.get(6) & 4) != 0) {
          Collections.reverse(tools);
        }
        s.put("tools", tools);
      }
    }
    if (d.get(10) % 4 != 0) {
      s.put("prompts", d.get(11) % 4 == 0 ? "failed: -32601" : names("name", "p", d.get(11), d.get(12)));
    }
    if (d.get(13) % 4 != 0) {
      s.put("resources", d.get(14) % 4 == 0 ? "failed: -32601" : names("uri", "file:///r", d.get(14), d.get(15)));
    }
    return s;
  }

  /** Up to three items whose {@code field} is {@code prefix} and a digit, chosen by {@code bits}. */
  private static List<Object> names(String field, String prefix, int bits, int order) {
    List<Object> items = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      if ((bits & (1 << i)) != 0) {
        items.add(Map.of(field, prefix + i, "description", "item " + order));
      }
    }
    if (order % 2 == 1) {
      Collections.reverse(items);
    }
    return items;
  }

  @Test
  void everyFacetIsSymmetric() {
    everyFacetIsSymmetric(Theories.qt(EXAMPLES), HandshakeComparator::compare);
  }

  /** Over snapshots differing in any facet, comparing a with b names what comparing b with a does. */
  static void everyFacetIsSymmetric(
      QuickTheory qt, BiFunction<Map<String, Object>, Map<String, Object>, List<String>> compare) {
    qt.forAll(snapshots(), snapshots())
        .checkAssert((a, b) -> assertEquals(compare.apply(a, b), compare.apply(b, a)));
  }

  @Test
  void theComparatorIsSymmetric() {
    theComparatorIsSymmetric(Theories.qt(EXAMPLES), HandshakeComparator::compare);
  }

  static void theComparatorIsSymmetric(
      QuickTheory qt, BiFunction<Map<String, Object>, Map<String, Object>, List<String>> compare) {
    qt.forAll(Generate.booleans(), Generate.booleans(), Generate.booleans(), Generate.booleans())
        .checkAssert(
            (flagA, flagB, loggingA, loggingB) -> {
              Map<String, Object> capsA = new HashMap<>(Map.of("tools", Map.of("listChanged", flagA)));
              Map<String, Object> capsB = new HashMap<>(Map.of("tools", Map.of("listChanged", flagB)));
              if (loggingA) {
                capsA.put("logging", Map.of());
              }
              if (loggingB) {
                capsB.put("logging", Map.of());
              }
              Map<String, Object> a = snapshot(Map.of("capabilities", capsA));
              Map<String, Object> b = snapshot(Map.of("capabilities", capsB));
              assertEquals(compare.apply(a, b), compare.apply(b, a));
              assertEquals(flagA == flagB && loggingA == loggingB, compare.apply(a, b).isEmpty());
            });
  }

  /**
   * The canonical form itself, not only its distinctness. Kills, in HandshakeComparator.shape,
   * the removed pushes of "}" (VoidMethodCallMutator, line 229), of a key (line 234) and of ","
   * (line 236), and the boundary and negated conditions on the separator (line 235); in
   * HandshakeComparator.quote, the negated loop and escape conditions (NegateConditionalsMutator)
   * and the "" return (EmptyObjectReturnValsMutator).
   */
  @Test
  void theCanonicalShapeIsExact() {
    assertEquals("{}", HandshakeComparator.shape(Map.of()));
    assertEquals(
        "{\"a\":true,\"b\":*,\"c\":{\"d\":false}}",
        HandshakeComparator.shape(Map.of("c", Map.of("d", false), "b", 1, "a", true)));
    assertEquals("{\"q\\\"u\\\\o\":*}", HandshakeComparator.shape(Map.of("q\"u\\o", "x")));
  }

  /**
   * Two annotation objects with the same values under different keys are different claims. Kills
   * HandshakeComparator.shape with the push of a map key removed (VoidMethodCallMutator, line
   * 234) and HandshakeComparator.quote returning "" (EmptyObjectReturnValsMutator): both make
   * {"readOnlyHint":true} and {"destructiveHint":true} compare equal, a missed divergence.
   */
  @Test
  void theSameValueUnderAnotherKeyIsADivergence() {
    assertNotEquals(HandshakeComparator.shape(Map.of("a", true)), HandshakeComparator.shape(Map.of("b", true)));
    Map<String, Object> first = snapshot(Map.of("tools", List.of(tool("t", Map.of("readOnlyHint", true)))));
    Map<String, Object> second = snapshot(Map.of("tools", List.of(tool("t", Map.of("destructiveHint", true)))));
    assertEquals(List.of(HandshakeComparator.TOOL_ANNOTATIONS), HandshakeComparator.compare(first, second));
  }

  /**
   * A map at exactly MAX_DEPTH is no longer descended into; one just above it is. Kills
   * HandshakeComparator.shape's changed boundary on frame.depth >= MAX_DEPTH
   * (ConditionalsBoundaryMutator, line 220).
   */
  @Test
  void descentStopsExactlyAtMaxDepth() {
    assertEquals(HandshakeComparator.DEEP, innermostShape(HandshakeComparator.MAX_DEPTH));
    assertEquals("{\"x\":true}", innermostShape(HandshakeComparator.MAX_DEPTH - 1));
  }

  /** The shape of the innermost map {"x":true} when it sits at {@code depth} below the root. */
  private static String innermostShape(int depth) {
    Object node = Map.of("x", true);
    for (int i = 0; i < depth; i++) {
      node = Map.of("k", node);
    }
    String shape = HandshakeComparator.shape(node);
    String prefix = "{\"k\":".repeat(depth);
    String suffix = "}".repeat(depth);
    assertTrue(shape.startsWith(prefix) && shape.endsWith(suffix), shape);
    return shape.substring(prefix.length(), shape.length() - suffix.length());
  }

  /**
   * A supportedVersions list holding a malformed version is not the same answer as no list at
   * all. Kills the negated condition on snapshot.containsKey(SUPPORTED_VERSIONS) in
   * HandshakeComparator.versions (NegateConditionalsMutator, line 150), which turns an absent
   * list into a malformed one.
   */
  @Test
  void aMalformedSupportedVersionDiffersFromNoList() {
    Map<String, Object> absent = snapshot(Map.of());
    Map<String, Object> malformed = snapshot(Map.of());
    malformed.put(HandshakeComparator.SUPPORTED_VERSIONS, List.of(Json.NULL));
    assertEquals(List.of(HandshakeComparator.PROTOCOL_VERSION), HandshakeComparator.compare(absent, malformed));
    Map<String, Object> notAList = snapshot(Map.of());
    notAList.put(HandshakeComparator.SUPPORTED_VERSIONS, "2025-06-18");
    assertEquals(List.of(HandshakeComparator.PROTOCOL_VERSION), HandshakeComparator.compare(absent, notAList));
  }

  /**
   * A negotiated version that is not a string is compared by its shape, and an absent one is
   * different from every present one. Kills the negated condition on
   * snapshot.containsKey(PROTOCOL_VERSION) in HandshakeComparator.versions
   * (NegateConditionalsMutator, line 142), which makes two malformed versions of different
   * shapes compare equal.
   */
  @Test
  void aNonStringNegotiatedVersionIsComparedByShape() {
    Map<String, Object> object = snapshot(Map.of());
    object.put(HandshakeComparator.PROTOCOL_VERSION, Map.of("major", true));
    Map<String, Object> number = snapshot(Map.of());
    number.put(HandshakeComparator.PROTOCOL_VERSION, 20250618);
    Map<String, Object> absent = snapshot(Map.of());
    absent.remove(HandshakeComparator.PROTOCOL_VERSION);
    assertEquals(List.of(HandshakeComparator.PROTOCOL_VERSION), HandshakeComparator.compare(object, number));
    assertEquals(List.of(HandshakeComparator.PROTOCOL_VERSION), HandshakeComparator.compare(absent, number));
    assertEquals(List.of(), HandshakeComparator.compare(number, snapshotWithVersion(7)));
  }

  private static Map<String, Object> snapshotWithVersion(Object version) {
    Map<String, Object> s = snapshot(Map.of());
    s.put(HandshakeComparator.PROTOCOL_VERSION, version);
    return s;
  }
}
