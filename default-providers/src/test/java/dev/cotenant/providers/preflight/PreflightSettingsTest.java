package dev.cotenant.providers.preflight;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.cotenant.providers.session.SessionSettings;
import dev.cotenant.spi.ProviderConfig;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every bound of {@link PreflightSettings} is checked, at its edge (the lower edges of all of them
 * in {@link SettingsBoundsTest}). Kills the constructor without each of its {@code positive} and
 * {@code nonNegative} calls (lines 102 to 117 at the time), the depth ceiling at {@code >=} (110)
 * and {@code positive} at {@code <} (163).
 */
class PreflightSettingsTest {
  private static PreflightSettings with(String key, String value) {
    return PreflightSettings.from(ProviderConfig.of(Map.of(key, value)));
  }

  @ParameterizedTest
  @ValueSource(ints = {PreflightSettings.MAX_DEPTH_CEILING, PreflightSettings.MAX_DEPTH_CEILING + 1})
  void theDepthCeilingIsInclusive(int depth) {
    if (depth <= PreflightSettings.MAX_DEPTH_CEILING) {
      assertEquals(depth, with(PreflightSettings.MAX_DEPTH, String.valueOf(depth)).maxDepth());
    } else {
      assertEquals("configuration key " + PreflightSettings.MAX_DEPTH + " must be at most 1000, got " + depth,
          assertThrows(IllegalArgumentException.class, () -> with(PreflightSettings.MAX_DEPTH, String.valueOf(depth))).getMessage());
    }
  }

  /**
   * The constructor checks the handshake timeout itself (the check at line 102 at the time was
   * covered only through {@code from}, whose reading of the key refuses 0 first).
   */
  @Test
  void theConstructorRefusesAZeroTimeout() {
    PreflightSettings d = PreflightSettings.defaults();
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new PreflightSettings(d.era(),
        d.maxProcesses(), Duration.ZERO, d.discoverTimeout(), d.stdinCloseWait(), d.termWait(), d.killWait(),
        d.maxLineBytes(), d.maxTotalBytes(), d.maxDepth(), d.maxMessages(), d.maxNonJsonLines(), d.maxListPages(),
        d.maxListItems()));
    assertEquals("configuration key " + PreflightSettings.TIMEOUT_MS + " must be positive, got 0", e.getMessage());
  }

  /** The pre-flight's own sessions get every process bound of the pre-flight, its totals included. */
  @Test
  void theSessionSettingsOfThePreflightAreItsProcessBounds() {
    PreflightSettings p = PreflightSettings.from(ProviderConfig.of(Map.of(PreflightSettings.MAX_MESSAGES, "50",
        PreflightSettings.MAX_TOTAL_BYTES, "4096", PreflightSettings.MAX_LINE_BYTES, "1024",
        PreflightSettings.MAX_NON_JSON_LINES, "3", PreflightSettings.DISCOVER_TIMEOUT_MS, "700")));
    assertEquals(new SessionSettings(Duration.ofMillis(700), p.stdinCloseWait(), p.termWait(), p.killWait(), 1024,
        p.maxDepth(), 3, 50, 4096), p.sessionSettings());
  }
}
