package dev.cotenant.spi;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Flat, immutable string configuration handed to providers, keyed like
 * {@code cotenant.evidence.caller-identity-keys}. Lists are comma-separated with surrounding
 * blanks trimmed. Thread-safe.
 */
public final class ProviderConfig {
  private static final ProviderConfig EMPTY = new ProviderConfig(Map.of());

  private final Map<String, String> values;

  private ProviderConfig(Map<String, String> values) {
    this.values = Collections.unmodifiableMap(new TreeMap<>(values));
  }

  /** No configuration: every provider uses its defaults. */
  public static ProviderConfig empty() {
    return EMPTY;
  }

  /** Configuration from a map (copied). */
  public static ProviderConfig of(Map<String, String> values) {
    return new ProviderConfig(values);
  }

  /** Every key and value, sorted by key. */
  public Map<String, String> asMap() {
    return values;
  }

  /** The value of {@code key}, if set. */
  public Optional<String> get(String key) {
    return Optional.ofNullable(values.get(key));
  }

  /** The value of {@code key}, or {@code fallback} when unset. */
  public String get(String key, String fallback) {
    return values.getOrDefault(key, fallback);
  }

  /**
   * The comma-separated list under {@code key}, or {@code fallback} when unset. An empty value
   * is an empty list.
   */
  public List<String> getList(String key, List<String> fallback) {
    String v = values.get(key);
    if (v == null) {
      return fallback;
    }
    List<String> out = new ArrayList<>();
    for (String part : v.split(",", -1)) {
      String t = part.strip();
      if (!t.isEmpty()) {
        out.add(t);
      }
    }
    return List.copyOf(out);
  }

  /**
   * The integer under {@code key}, or {@code fallback} when unset.
   *
   * @throws IllegalArgumentException naming the key when the value is not an integer
   */
  public int getInt(String key, int fallback) {
    String v = values.get(key);
    if (v == null) {
      return fallback;
    }
    try {
      return Integer.parseInt(v.strip());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("configuration key " + key + " must be an integer, got '" + v + "'", e);
    }
  }

  /**
   * The whole number under {@code key}, or {@code fallback} when unset.
   *
   * @throws IllegalArgumentException naming the key when the value is not an integer, or is
   *     below {@code min}
   */
  public long getLong(String key, long fallback, long min) {
    String v = values.get(key);
    if (v == null) {
      return fallback;
    }
    long n;
    try {
      n = Long.parseLong(v.strip());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("configuration key " + key + " must be an integer, got '" + v + "'", e);
    }
    if (n < min) {
      throw new IllegalArgumentException("configuration key " + key + " must be "
          + (min == 0 ? "0 or more" : min == 1 ? "positive" : "at least " + min) + ", got '" + v + "'");
    }
    return n;
  }

  /**
   * The duration under {@code key}, a whole number of milliseconds (Cotenant's duration keys end
   * in {@code -ms}), or {@code fallback} when unset.
   *
   * @param min the shortest duration taken: {@link java.time.Duration#ZERO} where zero means
   *     "do not wait", one millisecond where the duration must be positive
   * @throws IllegalArgumentException naming the key when the value is not an integer, or is
   *     shorter than {@code min}
   */
  public java.time.Duration getMillis(String key, java.time.Duration fallback, java.time.Duration min) {
    return java.time.Duration.ofMillis(getLong(key, fallback.toMillis(), min.toMillis()));
  }

  /** A copy with {@code key} set to {@code value}. */
  public ProviderConfig with(String key, String value) {
    Map<String, String> m = new TreeMap<>(values);
    m.put(key, value);
    return new ProviderConfig(m);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ProviderConfig && ((ProviderConfig) o).values.equals(values);
  }

  @Override
  public int hashCode() {
    return values.hashCode();
  }

  /**
   * Every key, with the value of each key that may carry a credential (its name contains
   * {@code password}, {@code secret}, {@code token}, {@code credential} or {@code url}: a URL may
   * hold {@code user:password@} or a password parameter) shown as {@code (set)}, so a configuration
   * that reaches a log or a message never carries one.
   */
  @Override
  public String toString() {
    Map<String, String> shown = new TreeMap<>();
    values.forEach((k, v) -> shown.put(k, mayHoldCredential(k) ? "(set)" : v));
    return "ProviderConfig" + shown;
  }

  private static boolean mayHoldCredential(String key) {
    String k = key.toLowerCase(java.util.Locale.ROOT);
    return k.contains("password") || k.contains("secret") || k.contains("token") || k.contains("credential")
        || k.contains("url");
  }
}
