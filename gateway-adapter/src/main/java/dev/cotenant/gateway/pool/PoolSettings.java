package dev.cotenant.gateway.pool;

import dev.cotenant.spi.ProviderConfig;
import java.time.Duration;
import java.util.Objects;

/**
 * The pool's bounds.
 *
 * <table>
 *   <caption>Keys read by {@link #fromConfig}</caption>
 *   <tr><th>key</th><th>default</th><th>meaning</th></tr>
 *   <tr><td>{@value #DRAIN_GRACE_MS}</td><td>30000</td>
 *       <td>how long an entry stays open after its last session left, in milliseconds (0 or more)</td></tr>
 *   <tr><td>{@value #IDLE_CAP_MS}</td><td>300000</td>
 *       <td>the hard cap on an entry's idleness, from its first idle moment, in milliseconds (positive)</td></tr>
 *   <tr><td>{@value #RESTART_ATTEMPTS}</td><td>3</td>
 *       <td>consecutive failed restart attempts after which an entry fails (positive)</td></tr>
 *   <tr><td>{@value #SPAWN_BUDGET}</td><td>32</td>
 *       <td>live entries the pool may hold at once (positive)</td></tr>
 *   <tr><td>{@value #CLOSE_TIMEOUT_MS}</td><td>10000</td>
 *       <td>how long {@link TransportPool#close()} waits for the backends' closes, in milliseconds (0 or more)</td></tr>
 * </table>
 *
 * @param drainGrace how long an entry stays open after its last session left
 * @param idleCap the hard cap on an entry's idleness, measured from its first idle moment
 *     (see {@link TransportPool} for the exact rule)
 * @param restartAttempts consecutive failed restart attempts after which an entry fails
 * @param spawnBudget live entries (spawning, active or draining) the pool may hold at once
 * @param closeTimeout how long {@link TransportPool#close()} waits for the backends' closes
 */
public record PoolSettings(
    Duration drainGrace, Duration idleCap, int restartAttempts, int spawnBudget, Duration closeTimeout) {
  /** The drain grace, in milliseconds. */
  public static final String DRAIN_GRACE_MS = "cotenant.pool.drain-grace-ms";

  /** The hard idle cap, in milliseconds. */
  public static final String IDLE_CAP_MS = "cotenant.pool.idle-cap-ms";

  /** Consecutive failed restart attempts before an entry fails. */
  public static final String RESTART_ATTEMPTS = "cotenant.pool.restart-attempts";

  /** Live entries per pool. */
  public static final String SPAWN_BUDGET = "cotenant.pool.spawn-budget";

  /** How long {@link TransportPool#close()} waits, in milliseconds. */
  public static final String CLOSE_TIMEOUT_MS = "cotenant.pool.close-timeout-ms";

  private static final PoolSettings DEFAULTS =
      new PoolSettings(Duration.ofSeconds(30), Duration.ofMinutes(5), 3, 32, Duration.ofSeconds(10));

  /**
   * Checks the bounds.
   *
   * @throws IllegalArgumentException when a duration is negative, the idle cap is not positive,
   *     or a count is not positive
   */
  public PoolSettings {
    Objects.requireNonNull(drainGrace, "drainGrace");
    Objects.requireNonNull(idleCap, "idleCap");
    Objects.requireNonNull(closeTimeout, "closeTimeout");
    if (drainGrace.isNegative()) {
      throw new IllegalArgumentException("the drain grace must not be negative, got " + drainGrace);
    }
    if (idleCap.isNegative() || idleCap.isZero()) {
      throw new IllegalArgumentException("the idle cap must be positive, got " + idleCap);
    }
    if (restartAttempts < 1) {
      throw new IllegalArgumentException("the restart attempts must be positive, got " + restartAttempts);
    }
    if (spawnBudget < 1) {
      throw new IllegalArgumentException("the spawn budget must be positive, got " + spawnBudget);
    }
    if (closeTimeout.isNegative()) {
      throw new IllegalArgumentException("the close timeout must not be negative, got " + closeTimeout);
    }
  }

  /** 30 s grace, 5 min idle cap, 3 restart attempts, 32 live entries, 10 s close timeout. */
  public static PoolSettings defaults() {
    return DEFAULTS;
  }

  /**
   * The settings of {@code config}, each unset key at its default.
   *
   * @throws IllegalArgumentException naming the key and the value when a value is not an
   *     integer or is out of range
   */
  public static PoolSettings fromConfig(ProviderConfig config) {
    return new PoolSettings(
        Duration.ofMillis(number(config, DRAIN_GRACE_MS, DEFAULTS.drainGrace.toMillis(), 0)),
        Duration.ofMillis(number(config, IDLE_CAP_MS, DEFAULTS.idleCap.toMillis(), 1)),
        (int) number(config, RESTART_ATTEMPTS, DEFAULTS.restartAttempts, 1),
        (int) number(config, SPAWN_BUDGET, DEFAULTS.spawnBudget, 1),
        Duration.ofMillis(number(config, CLOSE_TIMEOUT_MS, DEFAULTS.closeTimeout.toMillis(), 0)));
  }

  private static long number(ProviderConfig config, String key, long fallback, long min) {
    String v = config.get(key).orElse(null);
    if (v == null) {
      return fallback;
    }
    long n;
    try {
      n = Long.parseLong(v.strip());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("configuration key " + key + " must be an integer, got '" + v + "'", e);
    }
    long max = key.endsWith("-ms") ? Long.MAX_VALUE : Integer.MAX_VALUE;
    if (n < min || n > max) {
      throw new IllegalArgumentException("configuration key " + key + " must be "
          + (min == 0 ? "0 or more" : "positive") + (max == Integer.MAX_VALUE ? " and at most " + max : "")
          + ", got '" + v + "'");
    }
    return n;
  }
}
