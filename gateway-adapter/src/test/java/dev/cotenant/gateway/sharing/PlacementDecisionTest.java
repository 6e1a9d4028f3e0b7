package dev.cotenant.gateway.sharing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.api.Strength;
import dev.cotenant.api.Verdict;
import dev.cotenant.gateway.pool.Placement;
import dev.cotenant.spi.ProviderConfig;
import java.time.Duration;
import java.util.List;
import java.util.Map;
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
}
