package dev.cotenant.gateway.mux;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.spi.ProviderConfig;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MuxSettingsTest {
  @Test
  void unsetKeysTakeTheirDefaults() {
    assertEquals(new MuxSettings(64, 256), MuxSettings.fromConfig(ProviderConfig.empty()));
    assertEquals(MuxSettings.defaults(), MuxSettings.fromConfig(ProviderConfig.empty()));
  }

  @Test
  void setKeysAreRead() {
    assertEquals(new MuxSettings(3, 17), MuxSettings.fromConfig(ProviderConfig.of(Map.of(
        "cotenant.mux.max-sessions", " 3 ", "cotenant.mux.max-in-flight-per-session", "17"))));
  }

  @Test
  void aMalformedValueIsRefusedNamingItsKey() {
    for (String bad : new String[] {"0", "-1", "many", "", "2.5"}) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> MuxSettings.fromConfig(ProviderConfig.of(Map.of("cotenant.mux.max-sessions", bad))));
      assertTrue(e.getMessage().startsWith("cotenant.mux.max-sessions must be a whole number of at least 1, got '" + bad + "'"),
          e.getMessage());
    }
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> MuxSettings.fromConfig(ProviderConfig.of(Map.of("cotenant.mux.max-in-flight-per-session", "none"))));
    assertTrue(e.getMessage().contains("cotenant.mux.max-in-flight-per-session"), e.getMessage());
  }

  @Test
  void theConstructorRefusesBoundsBelowOne() {
    assertThrows(IllegalArgumentException.class, () -> new MuxSettings(0, 1));
    assertThrows(IllegalArgumentException.class, () -> new MuxSettings(1, 0));
  }

  @Test
  void boundsOfExactlyOneAreAccepted() {
    // Kills the constructor's two checks and positive's, each `< 1` or `>= 1` moved by one
    // (ConditionalsBoundaryMutator): a bound of 1 is the smallest that works.
    assertEquals(1, new MuxSettings(1, 1).maxSessions());
    assertEquals(new MuxSettings(1, 1), MuxSettings.fromConfig(ProviderConfig.of(Map.of(
        "cotenant.mux.max-sessions", "1", "cotenant.mux.max-in-flight-per-session", "1"))));
  }
}
