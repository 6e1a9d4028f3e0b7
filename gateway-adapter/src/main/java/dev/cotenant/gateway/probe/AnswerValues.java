package dev.cotenant.gateway.probe;

import dev.cotenant.api.Json;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The values {@link AnswerDiff} compares: their JSON kind, and deep equality by its rules
 * (numbers numerically, key order ignored). Pure, static and thread-safe.
 */
final class AnswerValues {
  private AnswerValues() {}

  /** The JSON type of a value. */
  enum Kind {
    OBJECT,
    ARRAY,
    STRING,
    NUMBER,
    BOOLEAN,
    NULL,
    OTHER;

    static Kind of(@Nullable Object v) {
      if (v == null || v == Json.NULL) {
        return NULL;
      }
      if (v instanceof Map<?, ?>) {
        return OBJECT;
      }
      if (v instanceof List<?>) {
        return ARRAY;
      }
      if (v instanceof String) {
        return STRING;
      }
      if (v instanceof Number) {
        return NUMBER;
      }
      if (v instanceof Boolean) {
        return BOOLEAN;
      }
      return OTHER;
    }
  }

  static Object norm(@Nullable Object v) {
    return v == null ? Json.NULL : v;
  }

  /** Deep equality by the rules of this class (numbers numerically, key order ignored), without recursion. */
  static boolean sameValue(@Nullable Object x, @Nullable Object y) {
    Deque<Object[]> work = new ArrayDeque<>();
    work.push(new Object[] {norm(x), norm(y)});
    while (!work.isEmpty()) {
      Object[] pair = work.pop();
      Kind kind = Kind.of(pair[0]);
      if (Kind.of(pair[1]) != kind) {
        return false;
      }
      switch (kind) {
        case OBJECT: {
          Map<?, ?> mx = (Map<?, ?>) pair[0];
          Map<?, ?> my = (Map<?, ?>) pair[1];
          if (mx.size() != my.size()) {
            return false;
          }
          for (Map.Entry<?, ?> e : mx.entrySet()) {
            if (!my.containsKey(e.getKey())) {
              return false;
            }
            work.push(new Object[] {norm(e.getValue()), norm(my.get(e.getKey()))});
          }
          break;
        }
        case ARRAY: {
          List<?> lx = (List<?>) pair[0];
          List<?> ly = (List<?>) pair[1];
          if (lx.size() != ly.size()) {
            return false;
          }
          Iterator<?> iy = ly.iterator();
          for (Object o : lx) {
            work.push(new Object[] {norm(o), norm(iy.next())});
          }
          break;
        }
        case NUMBER:
          if (!sameNumber((Number) pair[0], (Number) pair[1])) {
            return false;
          }
          break;
        case NULL:
          break;
        default:
          if (!pair[0].equals(pair[1])) {
            return false;
          }
      }
    }
    return true;
  }

  private static boolean sameNumber(Number x, Number y) {
    BigDecimal dx = decimal(x);
    BigDecimal dy = decimal(y);
    if (dx != null && dy != null) {
      return dx.compareTo(dy) == 0;
    }
    // NaN and the infinities, which only a double or a float can hold.
    return dx == null && dy == null && Double.compare(x.doubleValue(), y.doubleValue()) == 0;
  }

  private static @Nullable BigDecimal decimal(Number n) {
    if (n instanceof BigDecimal) {
      return (BigDecimal) n;
    }
    if (n instanceof BigInteger) {
      return new BigDecimal((BigInteger) n);
    }
    if (n instanceof Integer || n instanceof Long || n instanceof Short || n instanceof Byte) {
      return BigDecimal.valueOf(n.longValue());
    }
    if (n instanceof Double || n instanceof Float) {
      double d = n.doubleValue();
      // A float's shortest decimal form, not its binary value widened to a double's.
      return Double.isFinite(d) ? new BigDecimal(n instanceof Float ? Float.toString(n.floatValue()) : Double.toString(d)) : null;
    }
    try {
      return new BigDecimal(n.toString());
    } catch (NumberFormatException e) {
      return null;
    }
  }
}
