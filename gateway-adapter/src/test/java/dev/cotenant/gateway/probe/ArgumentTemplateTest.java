package dev.cotenant.gateway.probe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.api.Json;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ArgumentTemplateTest {
  @Test
  void ofCopiesAParsedObjectAndGivesItsJsonText() {
    Map<String, Object> nested = new LinkedHashMap<>();
    nested.put("w", "in {workspace}");
    nested.put("none", Json.NULL);
    Map<String, Object> source = new LinkedHashMap<>();
    source.put("text", "{marker}");
    source.put("n", 1L);
    source.put("x", new BigDecimal("1.5"));
    source.put("flag", false);
    source.put("list", new ArrayList<>(List.of(nested, "{marker}!")));
    source.put("javaNull", null);

    ArgumentTemplate t = ArgumentTemplate.of(source);
    String text = "{\"text\":\"{marker}\",\"n\":1,\"x\":1.5,\"flag\":false,"
        + "\"list\":[{\"w\":\"in {workspace}\",\"none\":null},\"{marker}!\"],\"javaNull\":null}";
    assertEquals(text, t.toString());
    assertTrue(t.carriesMarker());
    // The JSON text is the template: parsing it renders the same arguments.
    assertEquals(StatelessnessProbe.toJson(ArgumentTemplate.parse("--args", text).render("m-1", "ws-1")),
        StatelessnessProbe.toJson(t.render("m-1", "ws-1")));

    Map<String, Object> rendered = t.render("alpha-1-0a1b2c3d", "cotenant-probe-a-0a1b2c3d-1");
    assertEquals("alpha-1-0a1b2c3d", rendered.get("text"));
    Map<String, Object> expectedNested = new LinkedHashMap<>();
    expectedNested.put("w", "in cotenant-probe-a-0a1b2c3d-1");
    expectedNested.put("none", null);
    assertEquals(List.of(expectedNested, "alpha-1-0a1b2c3d!"), rendered.get("list"));
    assertTrue(rendered.containsKey("javaNull"));
    assertEquals(null, rendered.get("javaNull"));

    // Later changes to the source do not reach the template.
    source.put("text", "changed");
    nested.put("w", "changed");
    assertEquals(text, t.toString());
    assertEquals("alpha-1-0a1b2c3d", t.render("alpha-1-0a1b2c3d", "ws").get("text"));
  }

  @Test
  void ofWithoutAMarkerSaysSo() {
    assertFalse(ArgumentTemplate.of(Map.of("w", "{workspace}")).carriesMarker());
    assertEquals("{}", ArgumentTemplate.of(Map.of()).toString());
  }

  @Test
  void ofBoundsDepthExactlyAsParseDoes() {
    // The object itself is level 1; 32 levels are accepted by both, 33 by neither.
    ArgumentTemplate.parse("--args", nestedText(ArgumentTemplate.MAX_DEPTH));
    ArgumentTemplate.of(nestedMap(ArgumentTemplate.MAX_DEPTH));
    assertThrows(IllegalArgumentException.class,
        () -> ArgumentTemplate.parse("--args", nestedText(ArgumentTemplate.MAX_DEPTH + 1)));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> ArgumentTemplate.of(nestedMap(ArgumentTemplate.MAX_DEPTH + 1)));
    assertTrue(e.getMessage().contains("deeper than 32 levels"), e.getMessage());
    assertTrue(e.getMessage().contains("/a/a/a"), e.getMessage());
  }

  @Test
  void ofCountsArraysAsLevelsToo() {
    Object v = "{marker}";
    for (int i = 1; i < ArgumentTemplate.MAX_DEPTH; i++) {
      v = List.of(v);
    }
    ArgumentTemplate.of(Map.of("a", v));
    Object deeper = List.of(v);
    assertThrows(IllegalArgumentException.class, () -> ArgumentTemplate.of(Map.of("a", deeper)));
  }

  @Test
  void ofRefusesWhatIsNotJson() {
    assertTrue(assertThrows(IllegalArgumentException.class, () -> ArgumentTemplate.of(Map.of("x", Double.NaN)))
        .getMessage().contains("/x"));
    assertThrows(IllegalArgumentException.class,
        () -> ArgumentTemplate.of(Map.of("x", Double.POSITIVE_INFINITY)));
    assertTrue(assertThrows(IllegalArgumentException.class, () -> ArgumentTemplate.of(Map.of("x", new Object())))
        .getMessage().contains("not a JSON value"));
    Map<Object, Object> badKey = new HashMap<>();
    badKey.put(1, "v");
    assertTrue(assertThrows(IllegalArgumentException.class, () -> ArgumentTemplate.of(Map.of("x", badKey)))
        .getMessage().contains("not a string"));
    assertThrows(IllegalArgumentException.class, () -> ArgumentTemplate.of(Map.of("x", List.of(new int[] {1}))));
    // Finite doubles are JSON numbers.
    assertEquals("{\"x\":0.5}", ArgumentTemplate.of(Map.of("x", 0.5d)).toString());
  }

  @Test
  void ofNamesTheKeyOfAValueItRefusesEscaped() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> ArgumentTemplate.of(Map.of("a/b\n", Arrays.asList(1, Float.NaN))));
    assertTrue(e.getMessage().contains("/a~1b\\n/1"), e.getMessage());
    assertFalse(e.getMessage().contains("\n"), e.getMessage());
  }

  private static String nestedText(int levels) {
    return "{\"a\":".repeat(levels - 1) + "{}" + "}".repeat(levels - 1);
  }

  private static Map<String, Object> nestedMap(int levels) {
    Map<String, Object> m = Map.of();
    for (int i = 1; i < levels; i++) {
      m = Map.of("a", m);
    }
    return m;
  }
}
