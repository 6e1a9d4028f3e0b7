package dev.cotenant.examples.preflight;

import static dev.cotenant.examples.preflight.PreflightFixture.DISCOVER_ERA;
import static dev.cotenant.examples.preflight.PreflightFixture.HANDSHAKE_ERA;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.api.HandshakeFacts;
import dev.cotenant.api.ServerDescription;
import dev.cotenant.examples.servers.DiscoverServer;
import dev.cotenant.providers.preflight.PreflightSettings;
import dev.cotenant.spi.PreflightResult;
import dev.cotenant.testkit.process.ChecksProcessLeaks;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Both protocol eras, for real: {@code cotenant.preflight.era} forced to {@code initialize} and
 * left at {@code auto} against {@code @modelcontextprotocol/server-everything} (a handshake-era
 * server), forced to {@code discover} and left at {@code auto} against the 2026-07-28
 * {@code discover} sample; and each server refused in the era it does not speak. The era a
 * pre-flight used is read from the negotiated protocol version in its handshake facts (the
 * discover era records {@code 2026-07-28}).
 */
@ChecksProcessLeaks(waitMillis = PreflightFixture.BOUND_MILLIS)
class PreflightErasIT {

  @TempDir Path records;

  private static ServerDescription serverEverything;
  private static ServerDescription discover;

  @BeforeAll
  static void servers() throws Exception {
    PreflightFixture.requireBuiltServers();
    Map<String, ServerDescription> config = PreflightFixture.mcpJson();
    serverEverything = config.get("server-everything");
    discover = config.get("discover");
  }

  private PreflightResult preflight(String era, ServerDescription server) throws InterruptedException {
    return PreflightFixture.transport(PreflightFixture.cotenant(records, era)).preflight(server);
  }

  private static HandshakeFacts ran(PreflightResult result) {
    assertTrue(result.ran(), result::notRunReason);
    return result.handshake().orElseThrow();
  }

  @Test
  void serverEverythingForcedToTheInitializeEra() throws Exception {
    PreflightResult result = preflight("initialize", serverEverything);
    HandshakeFacts facts = ran(result);
    assertEquals(HANDSHAKE_ERA, facts.protocolVersion());
    assertEquals("mcp-servers/everything", facts.serverInfo().get("name"));
    assertEquals(List.of("tools", "toolAnnotations"), result.divergentFacets());
  }

  @Test
  void serverEverythingInTheAutoEraFallsBackToTheSameHandshakeAsForcedInitialize() throws Exception {
    PreflightResult auto = preflight("auto", serverEverything);
    HandshakeFacts facts = ran(auto);
    assertEquals(HANDSHAKE_ERA, facts.protocolVersion(), "it answers server/discover with an error, so auto falls back");
    assertEquals(List.of("tools", "toolAnnotations"), auto.divergentFacets());
    PreflightResult forced = preflight("initialize", serverEverything);
    assertEquals(ran(forced), facts, "the fallback yields exactly the handshake of the initialize era");
    assertEquals(forced.divergentFacets(), auto.divergentFacets());
  }

  @Test
  void serverEverythingForcedToTheDiscoverEraCouldNotBeAsked() throws Exception {
    PreflightResult result = preflight("discover", serverEverything);
    assertFalse(result.ran());
    assertEquals("server/discover answered error -32601: Method not found", result.notRunReason());
    assertTrue(result.handshake().isEmpty());
  }

  @Test
  void discoverSampleForcedToTheDiscoverEra() throws Exception {
    PreflightResult result = preflight("discover", discover);
    HandshakeFacts facts = ran(result);
    assertEquals(DISCOVER_ERA, facts.protocolVersion());
    assertEquals(DiscoverServer.NAME, facts.serverInfo().get("name"));
    assertEquals(List.of(), result.divergentFacets());
  }

  @Test
  void discoverSampleInTheAutoEraIsAskedThroughServerDiscover() throws Exception {
    PreflightResult auto = preflight("auto", discover);
    HandshakeFacts facts = ran(auto);
    assertEquals(DISCOVER_ERA, facts.protocolVersion());
    assertEquals(List.of(), auto.divergentFacets());
    assertEquals(ran(preflight("discover", discover)), facts, "auto used the discover era");
  }

  /**
   * A discover timeout far shorter than a JVM's start: the sample answers {@code server/discover}
   * late, refuses the fallback's {@code initialize}, and is still asked in the discover era.
   */
  @Test
  void discoverSampleSlowerToStartThanTheDiscoverTimeoutIsStillAskedThroughServerDiscover() throws Exception {
    PreflightResult result = PreflightFixture.transport(PreflightFixture.cotenant(records, "auto",
        Map.of(PreflightSettings.DISCOVER_TIMEOUT_MS, "1"))).preflight(discover);
    HandshakeFacts facts = ran(result);
    assertEquals(DISCOVER_ERA, facts.protocolVersion());
    assertEquals(List.of(), result.divergentFacets());
  }

  @Test
  void discoverSampleForcedToTheInitializeEraCouldNotBeAsked() throws Exception {
    PreflightResult result = preflight("initialize", discover);
    assertFalse(result.ran());
    assertTrue(result.notRunReason().startsWith(
        "initialize answered error " + DiscoverServer.UNSUPPORTED_PROTOCOL_VERSION), result.notRunReason());
    assertTrue(result.handshake().isEmpty());
  }
}
