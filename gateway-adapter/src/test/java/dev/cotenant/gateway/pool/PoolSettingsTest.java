package dev.cotenant.gateway.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.spi.ProviderConfig;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The pool's bounds, their defaults and their configuration keys. */
class PoolSettingsTest {
  @Test
  void theDefaults() {
    PoolSettings d = PoolSettings.defaults();
    assertEquals(Duration.ofSeconds(30), d.drainGrace());
    assertEquals(Duration.ofMinutes(5), d.idleCap());
    assertEquals(3, d.restartAttempts());
    assertEquals(32, d.spawnBudget());
    assertEquals(Duration.ofSeconds(10), d.closeTimeout());
    assertEquals(d, PoolSettings.fromConfig(ProviderConfig.empty()));
  }

  @Test
  void everyKeyIsRead() {
    PoolSettings s = PoolSettings.fromConfig(ProviderConfig.of(Map.of(
        "cotenant.pool.drain-grace-ms", "1500",
        "cotenant.pool.idle-cap-ms", " 60000 ",
        "cotenant.pool.restart-attempts", "5",
        "cotenant.pool.spawn-budget", "4",
        "cotenant.pool.close-timeout-ms", "0")));
    assertEquals(new PoolSettings(Duration.ofMillis(1500), Duration.ofMinutes(1), 5, 4, Duration.ZERO), s);
  }

  @Test
  void aMalformedValueNamesItsKeyAndValue() {
    for (Map.Entry<String, String> bad : Map.of(
        PoolSettings.DRAIN_GRACE_MS, "soon",
        PoolSettings.IDLE_CAP_MS, "0",
        PoolSettings.RESTART_ATTEMPTS, "0",
        PoolSettings.SPAWN_BUDGET, "99999999999",
        PoolSettings.CLOSE_TIMEOUT_MS, "-1").entrySet()) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> PoolSettings.fromConfig(ProviderConfig.of(Map.of(bad.getKey(), bad.getValue()))));
      assertTrue(e.getMessage().contains(bad.getKey()) && e.getMessage().contains("'" + bad.getValue() + "'"), e.getMessage());
    }
  }

  @Test
  void outOfRangeBoundsAreRefused() {
    assertThrows(IllegalArgumentException.class, () -> new PoolSettings(Duration.ofMillis(-1), Duration.ofMinutes(5), 3, 32, Duration.ZERO));
    assertThrows(IllegalArgumentException.class, () -> new PoolSettings(Duration.ZERO, Duration.ZERO, 3, 32, Duration.ZERO));
    assertThrows(IllegalArgumentException.class, () -> new PoolSettings(Duration.ZERO, Duration.ofMinutes(5), 0, 32, Duration.ZERO));
    assertThrows(IllegalArgumentException.class, () -> new PoolSettings(Duration.ZERO, Duration.ofMinutes(5), 3, 0, Duration.ZERO));
  }

  /**
   * Kills the minimum of each key read with {@code <} changed to {@code <=}, the count's upper
   * bound negated, and the constructor's {@code restartAttempts < 1} changed to {@code <= 1}:
   * each bound is taken at its edge, durations in milliseconds reach {@code Long.MAX_VALUE},
   * counts stop at {@code Integer.MAX_VALUE} and say so.
   */
  @Test
  void eachBoundIsTakenAtItsEdge() {
    PoolSettings low = PoolSettings.fromConfig(ProviderConfig.of(Map.of(
        PoolSettings.DRAIN_GRACE_MS, "0",
        PoolSettings.IDLE_CAP_MS, "1",
        PoolSettings.RESTART_ATTEMPTS, "1",
        PoolSettings.SPAWN_BUDGET, "1",
        PoolSettings.CLOSE_TIMEOUT_MS, "0")));
    assertEquals(new PoolSettings(Duration.ZERO, Duration.ofMillis(1), 1, 1, Duration.ZERO), low);
    PoolSettings high = PoolSettings.fromConfig(ProviderConfig.of(Map.of(
        PoolSettings.DRAIN_GRACE_MS, Long.toString(Long.MAX_VALUE),
        PoolSettings.IDLE_CAP_MS, Long.toString(Long.MAX_VALUE),
        PoolSettings.SPAWN_BUDGET, Integer.toString(Integer.MAX_VALUE))));
    assertEquals(Duration.ofMillis(Long.MAX_VALUE), high.drainGrace());
    assertEquals(Duration.ofMillis(Long.MAX_VALUE), high.idleCap());
    assertEquals(Integer.MAX_VALUE, high.spawnBudget());

    IllegalArgumentException count = assertThrows(IllegalArgumentException.class, () -> PoolSettings.fromConfig(
        ProviderConfig.of(Map.of(PoolSettings.RESTART_ATTEMPTS, "2147483648"))));
    assertEquals("configuration key " + PoolSettings.RESTART_ATTEMPTS + " must be positive and at most 2147483647, got '2147483648'",
        count.getMessage());
    IllegalArgumentException grace = assertThrows(IllegalArgumentException.class, () -> PoolSettings.fromConfig(
        ProviderConfig.of(Map.of(PoolSettings.DRAIN_GRACE_MS, "-1"))));
    assertEquals("configuration key " + PoolSettings.DRAIN_GRACE_MS + " must be 0 or more, got '-1'", grace.getMessage());
  }
}
