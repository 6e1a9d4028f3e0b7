package dev.cotenant.gateway.probe;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.MathContext;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import dev.cotenant.gateway.probe.SchemaArguments.Fail;
import dev.cotenant.gateway.probe.SchemaArguments.Omit;
import dev.cotenant.gateway.probe.SchemaArguments.Result;
import dev.cotenant.gateway.probe.SchemaArguments.Value;

/**
 * The numeric keywords of {@link SchemaArguments}' synthesis: the smallest valid value of at least
 * 1 of an integer or number schema within {@code minimum}, {@code maximum},
 * {@code exclusiveMinimum}, {@code exclusiveMaximum} (numbers, or draft-04 booleans) and
 * {@code multipleOf}, or its {@code default} or first example. Pure, static and thread-safe.
 */
final class SchemaNumbers {
  /** Bounds beyond this many digits are refused (a bound like {@code 1e999999} is not a real one). */
  private static final int MAX_DIGITS = 400;
  private SchemaNumbers() {}

  /** The value of an integer or number schema. */
  static Result number(Map<String, Object> s, boolean integer, boolean required) {
    Bounds b;
    try {
      b = Bounds.of(s, integer);
    } catch (IllegalArgumentException e) {
      return new Fail(e.getMessage());
    }
    BigDecimal candidate = b.smallest();
    if (candidate != null && b.valid(candidate)) {
      return new Value(plain(candidate));
    }
    if (!required) {
      return Omit.OMIT;
    }
    for (Object fallback : SchemaStrings.fallbacks(s)) {
      BigDecimal v = fallback instanceof Number ? decimal((Number) fallback) : null;
      if (v != null && b.valid(v)) {
        return new Value(plain(v));
      }
    }
    return new Fail("no " + (integer ? "integer" : "number") + " of at least 1 satisfies " + b
        + ", and neither \"default\" nor the first of \"examples\" does");
  }

  /** The numeric constraints of a schema. */
  private static final class Bounds {
    private final boolean integer;
    private final @Nullable BigDecimal lower;
    private final boolean lowerExclusive;
    private final @Nullable BigDecimal upper;
    private final boolean upperExclusive;
    private final @Nullable BigDecimal multipleOf;

    private Bounds(boolean integer, @Nullable BigDecimal lower, boolean lowerExclusive, @Nullable BigDecimal upper,
        boolean upperExclusive, @Nullable BigDecimal multipleOf) {
      this.integer = integer;
      this.lower = lower;
      this.lowerExclusive = lowerExclusive;
      this.upper = upper;
      this.upperExclusive = upperExclusive;
      this.multipleOf = multipleOf;
    }

    /**
     * The constraints of {@code s}.
     *
     * @throws IllegalArgumentException naming a keyword that is not a usable number
     */
    static Bounds of(Map<String, Object> s, boolean integer) {
      BigDecimal minimum = bound(s, "minimum");
      BigDecimal maximum = bound(s, "maximum");
      Side lower = Side.of(s, minimum, "exclusiveMinimum", 1);
      Side upper = Side.of(s, maximum, "exclusiveMaximum", -1);
      BigDecimal multipleOf = bound(s, "multipleOf");
      if (multipleOf != null && multipleOf.signum() <= 0) {
        throw new IllegalArgumentException("\"multipleOf\" " + multipleOf.toPlainString() + " is not above 0");
      }
      return new Bounds(integer, lower.value(), lower.exclusive(), upper.value(), upper.exclusive(), multipleOf);
    }

    /** One side's bound, and whether it is exclusive. */
    private record Side(@Nullable BigDecimal value, boolean exclusive) {
      /**
       * The side whose inclusive bound is {@code inclusive}: {@code exclusiveKey} as a boolean (draft 4)
       * makes that bound exclusive; as a number it replaces the bound when it is at least as tight,
       * tighter being larger for {@code direction} 1 and smaller for -1.
       */
      static Side of(Map<String, Object> s, @Nullable BigDecimal inclusive, String exclusiveKey, int direction) {
        Object exclusive = s.get(exclusiveKey);
        if (Boolean.TRUE.equals(exclusive)) {
          return new Side(inclusive, inclusive != null);
        }
        if (exclusive != null && !(exclusive instanceof Boolean)) {
          BigDecimal ex = bound(s, exclusiveKey);
          if (inclusive == null || direction * ex.compareTo(inclusive) >= 0) {
            return new Side(ex, true);
          }
        }
        return new Side(inclusive, false);
      }
    }

    private static @Nullable BigDecimal bound(Map<String, Object> s, String key) {
      Object v = s.get(key);
      if (v == null) {
        return null;
      }
      BigDecimal d = v instanceof Number ? decimal((Number) v) : null;
      if (d == null) {
        throw new IllegalArgumentException("\"" + key + "\" is not a usable number but " + SchemaArguments.show(v));
      }
      return d;
    }

    /** The smallest candidate of at least 1 above the lower bound; null when there is none to try. */
    @Nullable BigDecimal smallest() {
      BigDecimal base = BigDecimal.ONE;
      if (lower != null && lower.compareTo(base) > 0) {
        base = lower;
      }
      if (multipleOf == null) {
        BigDecimal c = integer ? base.setScale(0, RoundingMode.CEILING) : base;
        if (lowerExclusive && c.compareTo(lower) <= 0) {
          c = lower.setScale(0, RoundingMode.FLOOR).add(BigDecimal.ONE);
        }
        return c;
      }
      BigInteger k = base.divide(multipleOf, MathContext.DECIMAL128).setScale(0, RoundingMode.CEILING).toBigInteger();
      for (int tries = 0; tries < 1000; tries++, k = k.add(BigInteger.ONE)) {
        BigDecimal c = multipleOf.multiply(new BigDecimal(k));
        if ((lowerExclusive && c.compareTo(lower) <= 0) || (integer && !whole(c)) || c.compareTo(base) < 0) {
          continue;
        }
        return c;
      }
      return null;
    }

    /** True when {@code v} satisfies every constraint. */
    boolean valid(BigDecimal v) {
      if (integer && !whole(v)) {
        return false;
      }
      if (lower != null && (lowerExclusive ? v.compareTo(lower) <= 0 : v.compareTo(lower) < 0)) {
        return false;
      }
      if (upper != null && (upperExclusive ? v.compareTo(upper) >= 0 : v.compareTo(upper) > 0)) {
        return false;
      }
      return multipleOf == null || v.remainder(multipleOf).signum() == 0;
    }

    @Override
    public String toString() {
      List<String> parts = new ArrayList<>();
      if (lower != null) {
        parts.add((lowerExclusive ? "> " : ">= ") + lower.toPlainString());
      }
      if (upper != null) {
        parts.add((upperExclusive ? "< " : "<= ") + upper.toPlainString());
      }
      if (multipleOf != null) {
        parts.add("a multiple of " + multipleOf.toPlainString());
      }
      return parts.isEmpty() ? "the schema" : String.join(", ", parts);
    }
  }

  private static boolean whole(BigDecimal v) {
    return v.signum() == 0 || v.stripTrailingZeros().scale() <= 0;
  }

  /** A JSON number as a decimal; null when it is not finite or out of any sensible range. */
  private static @Nullable BigDecimal decimal(Number n) {
    BigDecimal d;
    if (n instanceof BigDecimal) {
      d = (BigDecimal) n;
    } else if (n instanceof BigInteger) {
      d = new BigDecimal((BigInteger) n);
    } else if (n instanceof Double || n instanceof Float) {
      double x = n.doubleValue();
      if (Double.isNaN(x) || Double.isInfinite(x)) {
        return null;
      }
      d = BigDecimal.valueOf(x);
    } else if (n instanceof Integer || n instanceof Long || n instanceof Short || n instanceof Byte) {
      d = BigDecimal.valueOf(n.longValue());
    } else {
      return null;
    }
    if (Math.abs((long) d.precision() - d.scale()) > MAX_DIGITS || Math.abs((long) d.scale()) > MAX_DIGITS) {
      return null;
    }
    return d;
  }

  /** A whole number as a {@link Long} (or {@link BigInteger}), any other as a {@link BigDecimal}. */
  private static Number plain(BigDecimal v) {
    if (whole(v)) {
      BigInteger i = v.setScale(0, RoundingMode.UNNECESSARY).toBigInteger();
      return i.bitLength() < 64 ? (Number) Long.valueOf(i.longValue()) : i;
    }
    return v.stripTrailingZeros();
  }
}
