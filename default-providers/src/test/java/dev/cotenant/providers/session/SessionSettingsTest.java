package dev.cotenant.providers.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.spi.ProviderConfig;
import dev.cotenant.spi.ProviderContext;
import dev.cotenant.spi.SessionTransport;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Every bound of {@link SessionSettings}, at its edge (the lower edges in
 * {@code dev.cotenant.providers.preflight.SettingsBoundsTest}), and the defaults of a long-lived
 * session.
 */
class SessionSettingsTest {
  private static SessionSettings with(String key, String value) {
    return SessionSettings.from(ProviderConfig.of(Map.of(key, value)));
  }

  @Test
  void theDefaultsBoundOneMessageButNoTotal() {
    SessionSettings d = SessionSettings.defaults();
    assertEquals(new SessionSettings(Duration.ofSeconds(5), Duration.ofSeconds(1), Duration.ofSeconds(2),
        Duration.ofSeconds(2), 32 << 20, 64, 100, SessionSettings.UNBOUNDED, SessionSettings.UNBOUNDED), d);
    assertTrue(d.longLived());
    assertFalse(new SessionSettings(d.discoverTimeout(), d.stdinCloseWait(), d.termWait(), d.killWait(),
        d.maxMessageBytes(), d.maxDepth(), d.maxNonJsonLines(), 10, SessionSettings.UNBOUNDED).longLived());
  }

  @Test
  void anIntBoundRefusesWhatAnIntCannotHoldAndTheDepthHasACeiling() {
    assertEquals("configuration key " + SessionSettings.MAX_MESSAGE_BYTES + " must be at most 2147483647, got '2147483648'",
        assertThrows(IllegalArgumentException.class, () -> with(SessionSettings.MAX_MESSAGE_BYTES, "2147483648")).getMessage());
    assertEquals(1000, with(SessionSettings.MAX_DEPTH, "1000").maxDepth());
    assertEquals("configuration key " + SessionSettings.MAX_DEPTH + " must be at most 1000, got 1001",
        assertThrows(IllegalArgumentException.class, () -> with(SessionSettings.MAX_DEPTH, "1001")).getMessage());
  }

  @Test
  void theTotalsMustBePositive() {
    SessionSettings d = SessionSettings.defaults();
    assertEquals("the totals must be positive, got maxMessages 0 and maxTotalBytes 1",
        assertThrows(IllegalArgumentException.class, () -> new SessionSettings(d.discoverTimeout(), d.stdinCloseWait(),
            d.termWait(), d.killWait(), d.maxMessageBytes(), d.maxDepth(), d.maxNonJsonLines(), 0, 1)).getMessage());
  }

  /** The session transport's provider: its name, and settings read from the context's configuration alone. */
  @Test
  void theSessionTransportProviderReadsItsSettingsFromTheConfiguration() {
    StdioSessionTransportProvider provider = new StdioSessionTransportProvider();
    assertEquals("stdio", provider.name());
    SessionTransport t = provider.create(new ProviderContext(
        ProviderConfig.of(Map.of(SessionSettings.MAX_NON_JSON_LINES, "3", "cotenant.preflight.max-messages", "5")),
        Path.of("records")));
    StdioSessionTransport stdio = (StdioSessionTransport) t;
    assertEquals(3, stdio.settings().maxNonJsonLines());
    assertEquals(SessionSettings.UNBOUNDED, stdio.settings().maxMessages(), "the pre-flight's keys are not read");
    assertEquals("StdioSessionTransport[" + stdio.settings() + "]", stdio.toString());
  }
}
