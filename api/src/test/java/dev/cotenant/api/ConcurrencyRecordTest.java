package dev.cotenant.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

class ConcurrencyRecordTest {
  private static final ProbePass PASS = new ProbePass("id-1", "echo", 5, 1.0);

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
}
