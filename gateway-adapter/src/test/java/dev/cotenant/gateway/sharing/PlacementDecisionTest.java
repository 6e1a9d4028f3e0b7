package dev.cotenant.gateway.sharing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.api.ProbePass;
import dev.cotenant.api.Strength;
import dev.cotenant.api.Verdict;
import dev.cotenant.gateway.pool.Placement;
import dev.cotenant.spi.ProviderConfig;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The placement rule: shared only when forced and not refuted, or when sharing is on and the verdict recommends it. */
class PlacementDecisionTest {
  private static final Verdict DECLARED = new Verdict(Strength.DECLARED, List.of(), true, true);
  private static final Verdict MEASURED = new Verdict(Strength.MEASURED, List.of(), true, false);
  private static final Verdict REFUTED = new Verdict(Strength.REFUTED, List.of(), false, false);
  private static final SharingSettings ON = new SharingSettings(true, Set.of(), Duration.ofSeconds(1));
  private static final SharingSettings OFF = SharingSettings.defaults();

  @Test
  void sharedOnlyWhenSharingIsOnAndTheVerdictRecommendsIt() {
    assertEquals(Placement.SHARED, PlacementDecision.decide("s", DECLARED, ON).placement());
    assertFalse(PlacementDecision.decide("s", DECLARED, ON).forced());
    PlacementDecision off = PlacementDecision.decide("s", DECLARED, OFF);
    assertEquals(Placement.DEDICATED, off.placement());
    assertEquals("sharing is off (cotenant.sharing.enabled=false)", off.why());
    PlacementDecision measured = PlacementDecision.decide("s", MEASURED, ON);
    assertEquals(Placement.DEDICATED, measured.placement(), "measured never recommends sharing");
    assertEquals("its verdict (measured) does not recommend sharing", measured.why());
    assertEquals(Placement.DEDICATED, PlacementDecision.decide("s", REFUTED, ON).placement());
  }

  @Test
  void aForcedServerIsSharedWhateverItsVerdictShortOfRefutedAndSaysSo() {
    SharingSettings forced = new SharingSettings(false, Set.of("s"), Duration.ofSeconds(1));
    assertDecision(Placement.SHARED, true, "forced by cotenant.sharing.forced (verdict measured)",
        PlacementDecision.decide("s", MEASURED, forced));
    assertEquals(Placement.DEDICATED, PlacementDecision.decide("other", MEASURED, forced).placement());
  }

  @Test
  void anObservedHazardOutranksTheOperatorsForce() {
    SharingSettings forced = new SharingSettings(true, Set.of("s"), Duration.ofSeconds(1));
    assertDecision(Placement.DEDICATED, false, "forced by cotenant.sharing.forced, but refuted: a hazard was observed (clear it with"
        + " `cotenant hazards clear s` to force it again)", PlacementDecision.decide("s", REFUTED, forced));
  }

  private static void assertDecision(Placement placement, boolean forced, String why, PlacementDecision d) {
    assertEquals(placement, d.placement(), d.toString());
    assertEquals(forced, d.forced(), d.toString());
    assertEquals(why, d.why());
  }

  @Test
  void settingsAreReadStrictly() {
    SharingSettings s = SharingSettings.fromConfig(ProviderConfig.of(Map.of(SharingSettings.ENABLED, "true",
        SharingSettings.FORCED, "a, b", SharingSettings.ADMIT_TIMEOUT_MS, "250")));
    assertTrue(s.enabled());
    assertEquals(Set.of("a", "b"), s.forced());
    assertEquals(Duration.ofMillis(250), s.admitTimeout());
    assertFalse(SharingSettings.fromConfig(ProviderConfig.empty()).enabled(), "off unless switched on");
    IllegalArgumentException yes = assertThrows(IllegalArgumentException.class,
        () -> SharingSettings.fromConfig(ProviderConfig.of(Map.of(SharingSettings.ENABLED, "yes"))));
    assertEquals("cotenant.sharing.enabled must be true or false, got 'yes'", yes.getMessage());
    IllegalArgumentException zero = assertThrows(IllegalArgumentException.class,
        () -> SharingSettings.fromConfig(ProviderConfig.of(Map.of(SharingSettings.ADMIT_TIMEOUT_MS, "0"))));
    assertEquals("cotenant.sharing.admit-timeout-ms must be a positive number of milliseconds, got '0'", zero.getMessage());
  }

  private static ProbePass pass(List<String> clientCapabilities) {
    return ProbePass.wholeSurface("id", 3, 1.0, ProbePass.Surface.of(List.of("echo"), Map.of(), clientCapabilities));
  }

  /**
   * A client declaring sampling and roots is shared only on a whole-surface pass covering both;
   * a pass covering one of them, or a single-tool pass, leaves it dedicated, saying why.
   */
  @Test
  void aCapableClientIsSharedOnlyOnAWholeSurfacePassCoveringEveryCapabilityItDeclares() {
    PlacementDecision shared = PlacementDecision.decide("s", DECLARED, ON);
    ClientShape capable = ClientShape.of(Map.of("protocolVersion", "2025-11-25",
        "capabilities", Map.of("sampling", Map.of(), "roots", Map.of(), "experimental", Map.of())));
    PlacementDecision covered = PlacementDecision.forClient(shared, "s", capable,
        Optional.of(pass(List.of("elicitation", "roots", "sampling"))));
    assertEquals(Placement.SHARED, covered.placement());
    assertEquals("its verdict (declared) recommends sharing, and its whole-surface probe also passed as clients declaring"
        + " roots, sampling", covered.why());
    PlacementDecision partly = PlacementDecision.forClient(shared, "s", capable, Optional.of(pass(List.of("roots"))));
    assertEquals(Placement.DEDICATED, partly.placement());
    assertEquals("the client declares roots, sampling, and its whole-surface probe covers clients declaring only roots"
        + " (`cotenant probe-stateless s` runs a pass as such clients)", partly.why());
    PlacementDecision oneTool = PlacementDecision.forClient(shared, "s", capable,
        Optional.of(new ProbePass("id", "echo", 3, 1.0)));
    assertEquals(Placement.DEDICATED, oneTool.placement());
    assertTrue(oneTool.why().contains("no whole-surface probe on record covers clients declaring it"), oneTool.why());
    assertEquals(Placement.DEDICATED, PlacementDecision.forClient(shared, "s", capable, Optional.empty()).placement());
  }

  /**
   * What the client shape does not change: a client declaring none of roots, sampling and
   * elicitation (other capabilities do not count), a dedicated decision, and a forced one.
   */
  @Test
  void aBareClientADedicatedAndAForcedDecisionStayAsTheyAre() {
    PlacementDecision shared = PlacementDecision.decide("s", DECLARED, ON);
    ClientShape bare = ClientShape.of(Map.of("protocolVersion", "2025-11-25",
        "capabilities", Map.of("experimental", Map.of("x", Map.of()))));
    assertEquals(shared, PlacementDecision.forClient(shared, "s", bare, Optional.empty()));
    ClientShape roots = ClientShape.of(Map.of("capabilities", Map.of("roots", Map.of())));
    PlacementDecision dedicated = PlacementDecision.decide("s", MEASURED, ON);
    assertEquals(dedicated, PlacementDecision.forClient(dedicated, "s", roots, Optional.empty()));
    PlacementDecision forced = PlacementDecision.decide("s", MEASURED,
        new SharingSettings(false, Set.of("s"), Duration.ofSeconds(1)));
    assertTrue(forced.forced());
    assertEquals(forced, PlacementDecision.forClient(forced, "s", roots, Optional.empty()),
        "the operator's word stands; the runtime rule keeps a backend that asked to its one session");
  }
}
