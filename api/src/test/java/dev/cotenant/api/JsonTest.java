package dev.cotenant.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@link Json#thaw} undoes {@link Json#freeze}: NULL becomes null again, and the copy is mutable.
 * {@link Json#nestsDeeperThan} counts maps and lists alike and stops on a cyclic tree.
 */
class JsonTest {
  @Test
  void thawUndoesFreezeAtEveryDepth() {
    Map<String, Object> tree = new LinkedHashMap<>();
    tree.put("a", null);
    tree.put("b", new ArrayList<>(Arrays.asList(1, null, Map.of("c", "d"))));
    Object frozen = Json.freeze(tree);
    assertEquals(Json.NULL, ((Map<?, ?>) frozen).get("a"));

    Object thawed = Json.thaw(frozen);

    assertEquals(tree, thawed);
    assertNull(((Map<?, ?>) thawed).get("a"));
    @SuppressWarnings("unchecked")
    List<Object> list = (List<Object>) ((Map<?, ?>) thawed).get("b");
    list.add("mutable");
    assertNull(Json.thaw(Json.NULL));
    assertEquals("x", Json.thaw("x"));
  }

  @Test
  void nestingIsCountedThroughMapsAndListsAlike() {
    assertFalse(Json.nestsDeeperThan("x", 0));
    assertFalse(Json.nestsDeeperThan(Map.of("a", List.of("b")), 2));
    assertTrue(Json.nestsDeeperThan(Map.of("a", List.of("b")), 1));
    assertTrue(Json.nestsDeeperThan(List.of(List.of(Map.of())), 1));
    assertFalse(Json.nestsDeeperThan(List.of(List.of(Map.of())), 2));
  }

  @Test
  void aCyclicTreeIsAnsweredWithoutOverflowing() {
    List<Object> loop = new ArrayList<>();
    loop.add(loop);
    assertTrue(Json.nestsDeeperThan(loop, 32));
  }

  @Test
  void sameComparesJsonValuesNotJavaTypes() {
    Map<String, Object> a = new java.util.LinkedHashMap<>();
    a.put("n", 1);
    a.put("l", List.of(1.5, "x", true));
    a.put("z", null);
    Map<String, Object> b = new java.util.LinkedHashMap<>();
    b.put("z", Json.NULL);
    b.put("l", List.of(new java.math.BigDecimal("1.50"), "x", true));
    b.put("n", 1L);
    assertTrue(Json.same(a, b));
    assertTrue(Json.same(1, 1.0));
    assertFalse(Json.same(1, 2));
    assertFalse(Json.same(List.of(1, 2), List.of(2, 1)));
    assertFalse(Json.same(Map.of("a", 1), Map.of("a", 1, "b", 2)));
    assertFalse(Json.same(Map.of("a", 1), Map.of("b", 1)));
    assertFalse(Json.same("1", 1));
    assertFalse(Json.same(Json.NULL, false));
    assertFalse(Json.same(List.of(), Map.of()));
  }
}
