package dev.cotenant.api;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Helpers for plain JSON trees in the core: maps with string keys, lists, strings, numbers,
 * booleans, and {@link #NULL} for JSON {@code null} (the core carries no Java nulls).
 */
public final class Json {
  /** JSON {@code null}. */
  public static final Object NULL = new Object() {
    @Override
    public String toString() {
      return "null";
    }
  };

  private Json() {}

  /** A deep, unmodifiable copy of a JSON object, preserving key order. */
  public static Map<String, Object> freezeMap(Map<String, ?> map) {
    Map<String, Object> out = new LinkedHashMap<>();
    for (Map.Entry<String, ?> e : map.entrySet()) {
      out.put(e.getKey(), freeze(e.getValue()));
    }
    return Collections.unmodifiableMap(out);
  }

  /** A deep, unmodifiable copy of a JSON value; Java {@code null} becomes {@link #NULL}. */
  public static Object freeze(@org.jspecify.annotations.Nullable Object value) {
    if (value == null) {
      return NULL;
    }
    if (value instanceof Map<?, ?>) {
      Map<String, Object> out = new LinkedHashMap<>();
      for (Map.Entry<?, ?> e : ((Map<?, ?>) value).entrySet()) {
        out.put(String.valueOf(e.getKey()), freeze(e.getValue()));
      }
      return Collections.unmodifiableMap(out);
    }
    if (value instanceof List<?>) {
      List<Object> out = new ArrayList<>();
      for (Object o : (List<?>) value) {
        out.add(freeze(o));
      }
      return Collections.unmodifiableList(out);
    }
    return value;
  }

  /**
   * The inverse of {@link #freeze}: a mutable copy of a plain JSON value in which {@link #NULL}
   * is Java {@code null} again, as JSON libraries write it.
   */
  public static @org.jspecify.annotations.Nullable Object thaw(@org.jspecify.annotations.Nullable Object value) {
    if (value == NULL) {
      return null;
    }
    if (value instanceof Map<?, ?>) {
      Map<String, Object> out = new LinkedHashMap<>();
      ((Map<?, ?>) value).forEach((k, x) -> out.put(String.valueOf(k), thaw(x)));
      return out;
    }
    if (value instanceof List<?>) {
      List<Object> out = new ArrayList<>();
      ((List<?>) value).forEach(x -> out.add(thaw(x)));
      return out;
    }
    return value;
  }

  /**
   * Whether a plain JSON value nests deeper than {@code limit}: a scalar is at depth 0, the
   * values of a map or list one deeper than the map or list. The walk stops descending once it
   * is past {@code limit}, so even a cyclic in-memory tree is answered.
   */
  public static boolean nestsDeeperThan(@org.jspecify.annotations.Nullable Object value, int limit) {
    return depth(value, 0, limit) > limit;
  }

  private static int depth(@org.jspecify.annotations.Nullable Object v, int d, int limit) {
    if (d > limit) {
      return d;
    }
    int max = d;
    if (v instanceof Map<?, ?>) {
      for (Object x : ((Map<?, ?>) v).values()) {
        max = Math.max(max, depth(x, d + 1, limit));
      }
    } else if (v instanceof List<?>) {
      for (Object x : (List<?>) v) {
        max = Math.max(max, depth(x, d + 1, limit));
      }
    }
    return max;
  }

  /**
   * Whether two plain JSON values are the same JSON value, whatever Java types carry them: objects
   * with the same members (in any order) of the same values, arrays of the same values in the same
   * order, equal strings and booleans, numbers of equal value ({@code 1}, {@code 1L} and
   * {@code 1.0} alike), and {@link #NULL} or Java {@code null} for JSON null.
   */
  public static boolean same(@org.jspecify.annotations.Nullable Object a, @org.jspecify.annotations.Nullable Object b) {
    Object x = a == null ? NULL : a;
    Object y = b == null ? NULL : b;
    if (x instanceof Map<?, ?> mx) {
      if (!(y instanceof Map<?, ?> my) || mx.size() != my.size()) {
        return false;
      }
      for (Map.Entry<?, ?> e : mx.entrySet()) {
        if (!my.containsKey(e.getKey()) || !same(e.getValue(), my.get(e.getKey()))) {
          return false;
        }
      }
      return true;
    }
    if (x instanceof List<?> lx) {
      if (!(y instanceof List<?> ly) || lx.size() != ly.size()) {
        return false;
      }
      for (int i = 0; i < lx.size(); i++) {
        if (!same(lx.get(i), ly.get(i))) {
          return false;
        }
      }
      return true;
    }
    if (x instanceof Number nx && y instanceof Number ny) {
      try {
        return new java.math.BigDecimal(nx.toString()).compareTo(new java.math.BigDecimal(ny.toString())) == 0;
      } catch (NumberFormatException e) {
        return nx.toString().equals(ny.toString());
      }
    }
    return x.equals(y);
  }
}
