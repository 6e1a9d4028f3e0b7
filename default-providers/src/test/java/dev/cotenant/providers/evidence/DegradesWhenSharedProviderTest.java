package dev.cotenant.providers.evidence;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.cotenant.api.Finding;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class DegradesWhenSharedProviderTest {
  private final DegradesWhenSharedProvider provider = new DegradesWhenSharedProvider();
  private static final List<Finding> LOGGING = List.of(new Finding("degrades_when_shared", "degrades_when_shared", "logging_level"));

  @Test
  void emptyLoggingObjectCountsByPresence() {
    assertEquals(LOGGING, Handshakes.run(provider, Handshakes.with(Map.of("logging", Map.of()), List.of())));
  }

  @Test
  void loggingWithAFalseLeafStillCountsBecauseDetectionIsByPresence() {
    assertEquals(LOGGING, Handshakes.run(provider, Handshakes.with(Map.of("logging", false), List.of())));
  }

  @Test
  void noLoggingIsSilent() {
    assertEquals(
        List.of(),
        Handshakes.run(provider, Handshakes.with(Map.of("tools", Map.of("listChanged", true)), List.of())));
  }

  @Test
  void loggingNestedUnderAnotherCapabilityIsNotTheLoggingCapability() {
    assertEquals(
        List.of(), Handshakes.run(provider, Handshakes.with(Map.of("tools", Map.of("logging", Map.of())), List.of())));
  }

  @Test
  void silentWithoutAHandshake() {
    assertEquals(List.of(), Handshakes.run(provider, Handshakes.STDIO, Optional.empty()));
  }
}
