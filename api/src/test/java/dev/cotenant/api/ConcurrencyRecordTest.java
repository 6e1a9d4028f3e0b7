package dev.cotenant.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

class ConcurrencyRecordTest {
  private static final ProbePass PASS = ProbePass.wholeSurface("id-1", 5, 1.0, ProbePass.Surface.of(List.of("echo"), Map.of()));

  @Test
  void sharedWithoutAPassedProbeIsRefused() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> new ConcurrencyRecord("s", ConcurrencyModel.SHARED, ShareScope.TENANT, OptionalInt.of(4), Optional.empty()));
    assertEquals("refusing model 'shared' for s without a passed statelessness probe", e.getMessage());
  }

  @Test
  void sharedWithoutMaxConcurrentIsRefused() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> new ConcurrencyRecord("s", ConcurrencyModel.SHARED, ShareScope.TENANT, OptionalInt.empty(), Optional.of(PASS)));
    assertEquals("refusing model 'shared' for s without maxConcurrent (a positive integer)", e.getMessage());
  }

  @Test
  void aNonPositiveMaxConcurrentIsRefusedForEveryModel() {
    for (ConcurrencyModel m : ConcurrencyModel.values()) {
      assertThrows(
          IllegalArgumentException.class,
          () -> new ConcurrencyRecord("s", m, ShareScope.TENANT, OptionalInt.of(0), Optional.of(PASS)));
    }
  }

  @Test
  void aProbeOfFewerThanThreeRoundsCannotExist() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new ProbePass("id", "echo", 2, 1.0));
    assertEquals("a statelessness probe needs at least 3 rounds; this one ran 2", e.getMessage());
  }

  @Test
  void sidecarAndWarmPoolNeedNoProbe() {
    assertEquals(ConcurrencyModel.SIDECAR, ConcurrencyRecord.sidecar("s").model());
    new ConcurrencyRecord("s", ConcurrencyModel.WARM_POOL, ShareScope.TENANT, OptionalInt.of(2), Optional.empty());
  }

  @Test
  void aProbeCountsOnlyUnderTheIdentityItPassedUnder() {
    ConcurrencyRecord r = ConcurrencyRecord.shared("s", ShareScope.GLOBAL, 4, PASS);
    assertTrue(r.probedUnder("id-1"));
    assertFalse(r.probedUnder("id-2"));
  }

  @Test
  void sharedOnASingleToolPassIsRefused() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> ConcurrencyRecord.shared("s", ShareScope.TENANT, 4, new ProbePass("id-1", "echo", 5, 1.0)));
    assertEquals("refusing model 'shared' for s on a single-tool statelessness probe (echo x5): sharing is decided per "
        + "process, so only a whole-surface probe can back it", e.getMessage());
  }

  @Test
  void aWholeSurfacePassCoversExactlyWhatItExercisedOrThePlanSkipped() {
    ProbePass pass = ProbePass.wholeSurface("id", 3, 1.0, ProbePass.Surface.of(List.of("a", "b"), Map.of("c", "wipes data")));
    assertTrue(pass.wholeSurface());
    assertEquals(ProbePass.WHOLE_SURFACE, pass.tool());
    assertTrue(pass.covers(List.of("a", "b", "c")));
    assertTrue(pass.covers(List.of("b")));
    assertFalse(pass.covers(List.of("a", "d")), "a tool the probe never saw");
    assertFalse(new ProbePass("id", "a", 3, 1.0).covers(List.of("a")), "a single-tool pass covers no surface");
    assertEquals("whole surface: 2 tools x3, 1 skipped by plan", pass.detail());
    assertEquals("whole surface: 1 tool x4",
        ProbePass.wholeSurface("id", 4, 1.0, ProbePass.Surface.of(List.of("a"), Map.of())).detail());
  }

  @Test
  void aSurfaceNeedsReasonsAndNamesTheWholeSurfaceTool() {
    assertThrows(IllegalArgumentException.class, () -> ProbePass.Surface.of(List.of("a"), Map.of("b", " ")));
    assertThrows(IllegalArgumentException.class, () -> ProbePass.Surface.of(List.of("a"), Map.of("a", "both")));
    assertThrows(IllegalArgumentException.class, () -> new ProbePass("id", "echo", 3, 1.0,
        Optional.of(ProbePass.Surface.of(List.of("echo"), Map.of()))));
  }

  /**
   * One is the smallest allowed maxConcurrent. Kills the changed boundary of getAsInt() < 1 in
   * the ConcurrencyRecord constructor (ConditionalsBoundaryMutator, line 32).
   */
  @Test
  void aMaxConcurrentOfOneIsAccepted() {
    ConcurrencyRecord r =
        new ConcurrencyRecord("s", ConcurrencyModel.WARM_POOL, ShareScope.TENANT, OptionalInt.of(1), Optional.empty());
    assertEquals(OptionalInt.of(1), r.maxConcurrent());
  }
}
