package dev.cotenant.gateway.mux;

import dev.cotenant.api.LogSafe;
import dev.cotenant.spi.ProviderConfig;
import java.util.Optional;

/**
 * The bounds of a {@link Multiplexer}, read from {@link ProviderConfig}:
 *
 * <table>
 *   <caption>Multiplexer settings</caption>
 *   <tr><th>key</th><th>default</th><th>meaning</th></tr>
 *   <tr><td>{@value #MAX_SESSIONS}</td><td>{@value #DEFAULT_MAX_SESSIONS}</td>
 *       <td>client sessions attached to one backend at most; one more is told to take a
 *       dedicated backend ({@link Attach.NeedsDedicated})</td></tr>
 *   <tr><td>{@value #MAX_IN_FLIGHT_PER_SESSION}</td><td>{@value #DEFAULT_MAX_IN_FLIGHT_PER_SESSION}</td>
 *       <td>requests of one client session forwarded to the backend and not yet answered, at
 *       most; one more is answered at once with {@link dev.cotenant.spi.rpc.ErrorCode#INTERNAL_ERROR} and not forwarded</td></tr>
 * </table>
 *
 * <p>Both bound what one client can make the multiplexer keep. Immutable.
 *
 * @param maxSessions client sessions attached at most, at least 1
 * @param maxInFlightPerSession forwarded requests awaiting an answer per session at most, at least 1
 */
public record MuxSettings(int maxSessions, int maxInFlightPerSession) {
  /** The configuration key of {@link #maxSessions()}. */
  public static final String MAX_SESSIONS = "cotenant.mux.max-sessions";

  /** The configuration key of {@link #maxInFlightPerSession()}. */
  public static final String MAX_IN_FLIGHT_PER_SESSION = "cotenant.mux.max-in-flight-per-session";

  /** {@link #maxSessions()} when none is configured. */
  public static final int DEFAULT_MAX_SESSIONS = 64;

  /** {@link #maxInFlightPerSession()} when none is configured. */
  public static final int DEFAULT_MAX_IN_FLIGHT_PER_SESSION = 256;

  /**
   * Checks the bounds.
   *
   * @throws IllegalArgumentException naming the key of a bound below 1
   */
  public MuxSettings {
    if (maxSessions < 1) {
      throw new IllegalArgumentException(MAX_SESSIONS + " must be at least 1, got " + maxSessions);
    }
    if (maxInFlightPerSession < 1) {
      throw new IllegalArgumentException(MAX_IN_FLIGHT_PER_SESSION + " must be at least 1, got " + maxInFlightPerSession);
    }
  }

  /** The defaults: {@value #DEFAULT_MAX_SESSIONS} sessions, {@value #DEFAULT_MAX_IN_FLIGHT_PER_SESSION} calls each. */
  public static MuxSettings defaults() {
    return new MuxSettings(DEFAULT_MAX_SESSIONS, DEFAULT_MAX_IN_FLIGHT_PER_SESSION);
  }

  /**
   * The settings in {@code config}; an unset key takes its default.
   *
   * @throws IllegalArgumentException naming the key whose value is not a whole number of at least 1
   */
  public static MuxSettings fromConfig(ProviderConfig config) {
    return new MuxSettings(
        positive(config, MAX_SESSIONS, DEFAULT_MAX_SESSIONS),
        positive(config, MAX_IN_FLIGHT_PER_SESSION, DEFAULT_MAX_IN_FLIGHT_PER_SESSION));
  }

  private static int positive(ProviderConfig config, String key, int fallback) {
    Optional<String> v = config.get(key);
    if (v.isEmpty()) {
      return fallback;
    }
    try {
      int n = Integer.parseInt(v.get().strip());
      if (n >= 1) {
        return n;
      }
    } catch (NumberFormatException e) {
      // falls through to the refusal
    }
    throw new IllegalArgumentException(key + " must be a whole number of at least 1, got '"
        + LogSafe.escape(v.get(), 40) + "'");
  }
}
