package dev.cotenant.providers.preflight;

import static dev.cotenant.providers.preflight.PreflightHarness.assertNoDivergence;
import static dev.cotenant.providers.preflight.PreflightHarness.transport;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.spi.Mcp;
import dev.cotenant.spi.PreflightResult;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * In the {@code auto} era, a server slower to start than {@code discover-timeout-ms} answers
 * {@code server/discover} late, on the same process the fallback then sends {@code initialize}
 * to. A 2026-07-28 server refuses {@code initialize}; its late discover answer is what says which
 * era it speaks. A one-millisecond discover timeout makes every JVM-started server "slow".
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class LateDiscoverAnswerTest extends HarnessedProcessTest {
  @Test
  void aModernServerThatAnswersDiscoverLateIsStillAskedInTheDiscoverEra() throws Exception {
    PreflightResult r = transport(PreflightSettings.DISCOVER_TIMEOUT_MS, "1").preflight(h.javaServer("modern", "modern"));
    assertNoDivergence(r);
    assertEquals(Mcp.MODERN_VERSION, r.handshake().orElseThrow().protocolVersion());
    h.assertRecordedAtLeast(2);
  }

  @Test
  void aLegacyServerThatAnswersDiscoverLateIsStillInitialized() throws Exception {
    PreflightResult r = transport(PreflightSettings.DISCOVER_TIMEOUT_MS, "1").preflight(h.javaServer("legacy", "legacy"));
    assertNoDivergence(r);
    assertEquals("2025-06-18", r.handshake().orElseThrow().protocolVersion());
  }

  @Test
  void aServerThatNeverAnswersDiscoverAndRefusesInitializeIsNotRunWithTheInitializeError() throws Exception {
    // Ignores server/discover (id 1), refuses initialize (id 2 on the same process).
    String script = "while IFS= read -r line; do case \"$line\" in *'\"method\":\"initialize\"'*) "
        + "printf '%s\\n' '{\"jsonrpc\":\"2.0\",\"id\":2,\"error\":{\"code\":-32600,\"message\":\"refused\"}}';; esac; done";
    PreflightResult r = transport(PreflightSettings.DISCOVER_TIMEOUT_MS, "1").preflight(h.shServer("refuses", script));
    assertFalse(r.ran());
    assertEquals("initialize answered error -32600: refused", r.notRunReason());
  }
}
