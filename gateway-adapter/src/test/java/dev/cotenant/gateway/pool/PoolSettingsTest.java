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
}
