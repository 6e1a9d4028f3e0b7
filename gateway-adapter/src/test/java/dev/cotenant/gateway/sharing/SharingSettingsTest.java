package dev.cotenant.gateway.sharing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.spi.ProviderConfig;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Reading the sharing keys: the global switch, the forced servers and the admission wait. */
class SharingSettingsTest {
  private static SharingSettings read(Map<String, String> values) {
    return SharingSettings.fromConfig(ProviderConfig.of(values));
  }

  @Test
  void nothingConfiguredIsTheDefaults() {
    assertEquals(SharingSettings.defaults(), read(Map.of()));
    assertEquals(new SharingSettings(false, Set.of(), Duration.ofSeconds(30)), SharingSettings.defaults());
  }

  @Test
  void theSwitchReadsTrueAndFalseAndNothingElse() {
    // Mutants: bool returning true, and the key's reader returning true: an operator's "false" turned sharing on.
    assertFalse(read(Map.of(SharingSettings.ENABLED, "false")).enabled());
    assertFalse(read(Map.of(SharingSettings.ENABLED, " false ")).enabled());
    assertTrue(read(Map.of(SharingSettings.ENABLED, "true")).enabled());
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> read(Map.of(SharingSettings.ENABLED, "yes")));
    assertEquals("cotenant.sharing.enabled must be true or false, got 'yes'", e.getMessage());
  }

  @Test
  void theAdmissionWaitIsAPositiveNumberOfMilliseconds() {
    // Mutant: millis' "n >= 1" at "> 1", which refused the shortest wait.
    assertEquals(Duration.ofMillis(1), read(Map.of(SharingSettings.ADMIT_TIMEOUT_MS, "1")).admitTimeout());
    assertEquals(Duration.ofMillis(2500), read(Map.of(SharingSettings.ADMIT_TIMEOUT_MS, " 2500 ")).admitTimeout());
    for (String bad : new String[] {"0", "-5", "soon", ""}) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> read(Map.of(SharingSettings.ADMIT_TIMEOUT_MS, bad)), bad);
      assertEquals("cotenant.sharing.admit-timeout-ms must be a positive number of milliseconds, got '" + bad + "'",
          e.getMessage());
    }
  }

  @Test
  void forcedServersAreAList() {
    assertEquals(Set.of("files", "git"), read(Map.of(SharingSettings.FORCED, "files, git")).forced());
  }
}
