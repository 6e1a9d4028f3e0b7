package dev.cotenant.providers.session;

import dev.cotenant.spi.ProviderConfig;

/**
 * The range checks of the settings records of this module's {@code stdio} providers
 * ({@link SessionSettings}, and the pre-flight's), each refusal naming the configuration key, so
 * a bound read from the configuration and one given to a constructor are refused alike.
 * Stateless.
 */
public final class Bounds {
  private Bounds() {}

  /**
   * The whole number under {@code key} as an {@code int}, read by {@link ProviderConfig#getLong}
   * (which names the key in its refusals), or {@code fallback} when unset.
   *
   * @throws IllegalArgumentException naming the key when the value is not an integer, is below
   *     {@code min}, or does not fit an {@code int}
   */
  public static int intValue(ProviderConfig config, String key, int fallback, int min) {
    long v = config.getLong(key, fallback, min);
    if (v > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(
          "configuration key " + key + " must be at most " + Integer.MAX_VALUE + ", got '" + v + "'");
    }
    return (int) v;
  }

  /**
   * Refuses a bound that is not positive.
   *
   * @throws IllegalArgumentException naming {@code key} when {@code value} is not positive
   */
  public static void positive(String key, long value) {
    if (value <= 0) {
      throw new IllegalArgumentException("configuration key " + key + " must be positive, got " + value);
    }
  }

  /**
   * Refuses a negative bound.
   *
   * @throws IllegalArgumentException naming {@code key} when {@code value} is negative
   */
  public static void nonNegative(String key, long value) {
    if (value < 0) {
      throw new IllegalArgumentException("configuration key " + key + " must not be negative, got " + value);
    }
  }

  /**
   * Refuses a bound above its ceiling.
   *
   * @throws IllegalArgumentException naming {@code key} when {@code value} is above {@code max}
   */
  public static void atMost(String key, long value, long max) {
    if (value > max) {
      throw new IllegalArgumentException("configuration key " + key + " must be at most " + max + ", got " + value);
    }
  }
}
