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
        config.getMillis(DRAIN_GRACE_MS, DEFAULTS.drainGrace, Duration.ZERO),
        config.getMillis(IDLE_CAP_MS, DEFAULTS.idleCap, Duration.ofMillis(1)),
        count(config, RESTART_ATTEMPTS, DEFAULTS.restartAttempts),
        count(config, SPAWN_BUDGET, DEFAULTS.spawnBudget),
        config.getMillis(CLOSE_TIMEOUT_MS, DEFAULTS.closeTimeout, Duration.ZERO));
  }

  /** A positive count under {@code key}: at most {@link Integer#MAX_VALUE}, which the refusal names. */
  private static int count(ProviderConfig config, String key, int fallback) {
    long n = config.getLong(key, fallback, 1);
    if (n > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("configuration key " + key + " must be positive and at most "
          + Integer.MAX_VALUE + ", got '" + config.get(key).orElse("") + "'");
    }
    return (int) n;
  }
}
