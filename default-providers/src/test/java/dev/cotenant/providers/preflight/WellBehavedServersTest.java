package dev.cotenant.providers.preflight;

import static dev.cotenant.providers.preflight.PreflightHarness.assertNoDivergence;
import static dev.cotenant.providers.preflight.PreflightHarness.transport;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.api.HandshakeComparator;
import dev.cotenant.api.HandshakeFacts;
import dev.cotenant.api.ServerDescription;
import dev.cotenant.api.ToolFacts;
import dev.cotenant.spi.Mcp;
import dev.cotenant.spi.PreflightResult;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Real processes speaking both eras correctly: the pre-flight runs and names what diverged. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class WellBehavedServersTest extends HarnessedProcessTest {
  /** The pre-flight ran and found exactly {@code facets} diverging, in that order. */
  private static void assertDiverged(PreflightResult r, String... facets) {
    assertTrue(r.ran(), r.notRunReason());
    assertEquals(List.of(facets), r.divergentFacets());
  }

  private static Set<String> toolNames(PreflightResult r) {
    return r.handshake().orElseThrow().tools().stream().map(ToolFacts::name).collect(Collectors.toCollection(TreeSet::new));
  }

  @Test
  void aLegacyServerReplaysIdenticallyInAutoMode() throws Exception {
    ServerDescription server = h.javaServer("legacy", "legacy", "strict");
    PreflightResult r = transport().preflight(server);
    assertNoDivergence(r);
    HandshakeFacts facts = r.handshake().orElseThrow();
    assertEquals("2025-06-18", facts.protocolVersion());
    assertEquals(Set.of("add", "echo"), toolNames(r));
    assertEquals("test-server", facts.serverInfo().get("name"));
    assertTrue(facts.tools().stream().allMatch(ToolFacts::readOnly));
    assertTrue(r.reportedVersion().orElseThrow().startsWith("1.0."));
    // The description the pre-flight was given is still the one a fresh build of it makes.
    assertEquals(h.javaServer("legacy", "legacy", "strict"), server);
    assertEquals(List.of("legacy", "strict"), server.args().subList(server.args().size() - 2, server.args().size()));
  }

  @Test
  void aLegacyServerUnderTheForcedInitializeEra() throws Exception {
    PreflightResult r = transport(PreflightSettings.ERA, "initialize").preflight(h.javaServer("legacy", "legacy"));
    assertNoDivergence(r);
    assertEquals("2025-06-18", r.handshake().orElseThrow().protocolVersion());
    h.assertRecordedAtLeast(2);
  }

  @Test
  void aLegacyServerCannotBeAskedUnderTheForcedDiscoverEra() throws Exception {
    PreflightResult r = transport(PreflightSettings.ERA, "discover").preflight(h.javaServer("legacy", "legacy"));
    assertFalse(r.ran());
    assertTrue(r.notRunReason().contains("server/discover answered error -32601"), r.notRunReason());
  }

  @Test
  void aModernServerIsAskedThroughDiscoverWithPerRequestMeta() throws Exception {
    PreflightResult r = transport().preflight(h.javaServer("modern", "modern"));
    assertNoDivergence(r);
    assertEquals(Mcp.MODERN_VERSION, r.handshake().orElseThrow().protocolVersion());
    assertEquals(Set.of("add", "echo"), toolNames(r));
  }

  @Test
  void aModernServerUnderTheForcedDiscoverEra() throws Exception {
    PreflightResult r = transport(PreflightSettings.ERA, "discover").preflight(h.javaServer("modern", "modern"));
    assertNoDivergence(r);
  }

  @Test
  void aModernServerCannotBeAskedUnderTheForcedInitializeEra() throws Exception {
    PreflightResult r = transport(PreflightSettings.ERA, "initialize").preflight(h.javaServer("modern", "modern"));
    assertFalse(r.ran());
    assertTrue(r.notRunReason().startsWith("initialize answered error"), r.notRunReason());
  }

  @Test
  void aLegacyToolListThatDependsOnTheCallerDiverges() throws Exception {
    PreflightResult r = transport().preflight(h.javaServer("by-caller", "legacy", "caller-tools"));
    assertDiverged(r, HandshakeComparator.TOOLS, HandshakeComparator.TOOL_ANNOTATIONS);
    assertTrue(r.callerSensitive());
    // The recorded facts are the first caller's answer.
    assertEquals(Set.of("add", "echo"), toolNames(r));
  }

  @Test
  void aModernToolListThatDependsOnTheCallerDiverges() throws Exception {
    PreflightResult r = transport().preflight(h.javaServer("by-caller", "modern", "caller-tools"));
    assertDiverged(r, HandshakeComparator.TOOLS, HandshakeComparator.TOOL_ANNOTATIONS);
  }

  @Test
  void capabilitiesThatDependOnDeclaredClientCapabilitiesDiverge() throws Exception {
    PreflightResult r = transport().preflight(h.javaServer("by-caps", "legacy", "caller-capabilities"));
    assertDiverged(r, HandshakeComparator.CAPABILITIES);
  }

  @Test
  void aServerAdvertisingLoggingRunsAndRecordsTheCapability() throws Exception {
    PreflightResult r = transport().preflight(h.javaServer("logging", "legacy", "logging"));
    assertNoDivergence(r);
    assertTrue(r.handshake().orElseThrow().hasCapability("logging"));
  }

  @Test
  void serverRequestsAndNotificationsDuringTheHandshakeAreAnswered() throws Exception {
    // The server refuses to answer initialize unless roots/list, ping, sampling, elicitation and
    // an unknown method were answered the documented way.
    PreflightResult r = transport(PreflightSettings.ERA, "initialize").preflight(h.javaServer("chatty", "legacy", "chatty"));
    assertNoDivergence(r);
  }

  @Test
  void nonJsonLinesBeforeTheAnswerAreTolerated() throws Exception {
    PreflightResult r = transport().preflight(h.javaServer("banner", "legacy", "banner"));
    assertNoDivergence(r);
  }

  @Test
  void toolsListFollowsNextCursor() throws Exception {
    PreflightResult r = transport().preflight(h.javaServer("paged", "legacy", "paged"));
    assertNoDivergence(r);
    assertEquals(Set.of("add", "delete", "echo"), toolNames(r));
  }

  @Test
  void readOnlyListingsAreComparedWhenAdvertised() throws Exception {
    PreflightResult r = transport().preflight(h.javaServer("listings", "legacy", "listings", "caller-tools"));
    // Prompt descriptions differ per caller (free-form); resource URIs differ (not free-form).
    assertDiverged(r, HandshakeComparator.TOOLS, HandshakeComparator.TOOL_ANNOTATIONS, HandshakeComparator.RESOURCES);
  }

  @Test
  void aLegacyServerThatExitsOnDiscoverIsRespawnedForInitialize() throws Exception {
    PreflightResult r = transport().preflight(h.javaServer("rusty", "legacy", "exit-on-discover"));
    assertNoDivergence(r);
    assertEquals("2025-06-18", r.handshake().orElseThrow().protocolVersion());
    h.assertRecordedAtLeast(4);
  }

  @Test
  void aLegacyServerSilentOnDiscoverFallsBackAfterTheDiscoverTimeout() throws Exception {
    PreflightResult r = transport(PreflightSettings.DISCOVER_TIMEOUT_MS, "1500")
        .preflight(h.javaServer("silent", "legacy", "silent-discover"));
    assertNoDivergence(r);
    assertEquals("2025-06-18", r.handshake().orElseThrow().protocolVersion());
    assertEquals(2, h.recordedPids().size(), "the surviving process is reused, not respawned");
  }

  @Test
  void aCeilingOfOneProcessStillCompletesBothCallers() throws Exception {
    PreflightResult r = transport(PreflightSettings.MAX_PROCESSES, "1").preflight(h.javaServer("legacy", "legacy"));
    assertNoDivergence(r);
  }

  /**
   * Kills {@code CallerRun.run} without its {@code ceiling.release()} on the paths a failed start
   * and a failed conversation take (the finally block is copied once per path, and the mutation
   * run left three of the copies alive): with a ceiling of one, a permit kept by any of them
   * leaves the next pass waiting for ever, so the last, healthy pass would not end.
   */
  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void aCeilingOfOneIsGivenBackWhateverWayAPassEnds() throws Exception {
    StdioPreflightTransport transport = transport(PreflightSettings.MAX_PROCESSES, "1");
    PreflightResult missing = transport.preflight(ServerDescription.stdio("missing", dir.resolve("no-such-binary").toString()));
    assertFalse(missing.ran(), "a binary that is not there");
    PreflightResult exits = transport.preflight(h.shServer("exits", "echo gone >&2; exit 3"));
    assertFalse(exits.ran(), "a server that exits before answering");
    assertTrue(exits.notRunReason().contains("exited 3"), exits.notRunReason());
    assertNoDivergence(transport.preflight(h.javaServer("legacy", "legacy")));
  }
}
