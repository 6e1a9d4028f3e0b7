package dev.cotenant.spi.rpc;

import java.math.BigDecimal;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A JSON-RPC request id: a string or a number, as the peer wrote it. Two ids are equal when they
 * name the same request: numbers by value ({@code 1}, {@code 1.0} and {@code 1e0} alike), strings
 * by their text, and a number never equals a string ({@code 1} and {@code "1"} apart). An answer
 * carries {@link #json()}, the value exactly as it came. Immutable.
 */
public final class RequestId {
  private final Object json;
  private final String key;

  private RequestId(Object json, String key) {
    this.json = json;
    this.key = key;
  }

  /** The id {@code n}. */
  public static RequestId of(long n) {
    return new RequestId(n, "n:" + n);
  }

  /** The id {@code text}. */
  public static RequestId of(String text) {
    return new RequestId(text, "s:" + text);
  }

  /**
   * The id a message's {@code "id"} member holds, or {@code null} when it holds no valid id
   * (absent, JSON {@code null}, an object, a list, a boolean, or a number that is not finite).
   */
  public static @Nullable RequestId parse(@Nullable Object json) {
    if (json instanceof String s) {
      return of(s);
    }
    if (json instanceof Long || json instanceof Integer || json instanceof Short || json instanceof Byte) {
      return new RequestId(json, "n:" + ((Number) json).longValue());
    }
    if (json instanceof Number n) {
      if ((n instanceof Double d && !Double.isFinite(d)) || (n instanceof Float f && !Float.isFinite(f))) {
        return null;
      }
      try {
        return new RequestId(json, "n:" + new BigDecimal(n.toString()).stripTrailingZeros().toPlainString());
      } catch (NumberFormatException e) {
        return null;
      }
    }
    return null;
  }

  /** The id as the peer wrote it: a {@code String} or a {@code Number}. */
  public Object json() {
    return json;
  }

  /** Whether the peer wrote a string. */
  public boolean isString() {
    return json instanceof String;
  }

  /**
   * A text that is equal for equal ids and different otherwise ({@code "n:1"}, {@code "s:1"}), for
   * tables keyed by text.
   */
  public String key() {
    return key;
  }

  @Override
  public boolean equals(@Nullable Object o) {
    return o instanceof RequestId other && key.equals(other.key);
  }

  @Override
  public int hashCode() {
    return key.hashCode();
  }

  /** The id as JSON text would show it: {@code 7} or {@code "abc"}. */
  @Override
  public String toString() {
    return json instanceof String s ? '"' + s + '"' : Objects.toString(json);
  }
}
