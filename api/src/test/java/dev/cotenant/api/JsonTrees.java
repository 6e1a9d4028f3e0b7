package dev.cotenant.api;

import java.util.HashMap;
import java.util.Map;

/** Deeply nested JSON objects, for the tests of hostile nesting. */
final class JsonTrees {
  private JsonTrees() {}

  /**
   * {@code levels} nested objects under the returned one, each holding the next under {@code "k"};
   * the innermost holds the entries of {@code innermost}. Mutable, like a parsed tree.
   */
  static Map<String, Object> nestedUnderK(int levels, Map<String, Object> innermost) {
    Map<String, Object> root = new HashMap<>();
    Map<String, Object> cur = root;
    for (int i = 0; i < levels; i++) {
      Map<String, Object> next = new HashMap<>();
      cur.put("k", next);
      cur = next;
    }
    cur.putAll(innermost);
    return root;
  }
}
