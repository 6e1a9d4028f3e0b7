package dev.cotenant.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.api.HazardCode;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The default methods of the record-store interfaces apply the reading rules of docs/records.md. */
class RecordStoreDefaultsTest {
  static PreflightRecord row(String identity, Optional<String> version) {
    return new PreflightRecord("srv", identity, true, false, List.of(), 1.0, version, Optional.empty());
  }

  /** A cache implementing only the abstract methods, plus {@code drop}. */
  static final class MapCache implements PreflightCache {
    final Map<String, PreflightRecord> rows = new HashMap<>();
    final Set<String> applied = new HashSet<>();
    final boolean canDrop;

    MapCache(boolean canDrop) {
      this.canDrop = canDrop;
    }

    @Override
    public Snapshot load() {
      return new Snapshot(rows, applied);
    }

    @Override
    public void put(PreflightRecord record) {
      rows.put(record.serverName(), record);
    }

    @Override
    public void markApplied(String serverName) {
      applied.add(serverName);
    }

    @Override
    public void flush() {}

    @Override
    public boolean drop(String serverName) {
      if (!canDrop) {
        return PreflightCache.super.drop(serverName);
      }
      return rows.remove(serverName) != null;
    }
  }

  @Test
  void lookupKeepsARowUnderAnotherIdentityButReadsItAsUnmeasured() {
    MapCache c = new MapCache(true);
    c.put(row("id-1", Optional.of("1")));
    assertEquals(Optional.empty(), c.lookup("srv", "id-2", Optional.of("1")));
    assertTrue(c.rows.containsKey("srv"));
    assertTrue(c.lookup("srv", "id-1", Optional.empty()).isPresent());
    assertEquals(Optional.empty(), c.snapshot().measurement("srv", "id-2"));
  }

  @Test
  void lookupDropsARowWhoseReportedVersionConflicts() {
    MapCache c = new MapCache(true);
    c.put(row("id-1", Optional.of("1")));
    assertEquals(Optional.empty(), c.lookup("srv", "id-1", Optional.of("2")));
    assertFalse(c.rows.containsKey("srv"));
  }

  @Test
  void aCacheThatCannotDropSaysSo() {
    MapCache c = new MapCache(false);
    c.put(row("id-1", Optional.of("1")));
    UnsupportedOperationException e =
        assertThrows(UnsupportedOperationException.class, () -> c.lookup("srv", "id-1", Optional.of("2")));
    assertTrue(e.getMessage().contains(MapCache.class.getName()), e.getMessage());
  }

  @Test
  void anAbsentVersionNeverConflicts() {
    assertFalse(row("i", Optional.empty()).versionConflicts(Optional.of("1")));
    assertFalse(row("i", Optional.of("1")).versionConflicts(Optional.empty()));
    assertFalse(row("i", Optional.of("1")).versionConflicts(Optional.of("1")));
    assertTrue(row("i", Optional.of("1")).versionConflicts(Optional.of("1.0")));
  }

  @Test
  void theLedgerSnapshotReadsTheEmptyIdentityOnlyByName() {
    HazardLedger.Snapshot s =
        new HazardLedger.Snapshot(
            Map.of(
                "srv",
                Map.of(
                    "", new HazardLedger.Observations(Set.of(HazardCode.UNROUTABLE_SERVER_REQUEST), 2, 1.0),
                    "id", new HazardLedger.Observations(Set.of(HazardCode.CROSS_SESSION_LEAK), 1, 2.0))));
    assertEquals(Set.of(), s.codesFor("srv", ""));
    assertEquals(Set.of(HazardCode.CROSS_SESSION_LEAK), s.codesFor("srv", "id"));
    assertEquals(Set.of(HazardCode.UNROUTABLE_SERVER_REQUEST, HazardCode.CROSS_SESSION_LEAK), s.codesForName("srv"));
    assertEquals(Set.of(), s.codesForName("other"));
  }

  @Test
  void aSnapshotIsCompleteUnlessItSaysWhyNot() {
    Map<String, Map<String, HazardLedger.Observations>> held =
        Map.of("srv", Map.of("id", new HazardLedger.Observations(Set.of(HazardCode.CROSS_SESSION_LEAK), 1, 2.0)));
    assertTrue(new HazardLedger.Snapshot(held).complete());
    HazardLedger.Snapshot cut = HazardLedger.Snapshot.incomplete(held, "/r/observed-hazards.json is cut off");
    assertFalse(cut.complete());
    assertEquals(Optional.of("/r/observed-hazards.json is cut off"), cut.incomplete());
    assertEquals(Set.of(HazardCode.CROSS_SESSION_LEAK), cut.codesFor("srv", "id"), "what could be read is still read");
    assertThrows(IllegalArgumentException.class, () -> HazardLedger.Snapshot.incomplete(held, " "));

    assertTrue(ConcurrencyRecords.Snapshot.empty().complete());
    assertTrue(new ConcurrencyRecords.Snapshot(Map.of(), Map.of("x", "refused")).complete(),
        "a refused entry reads as absent; it alone does not make the read incomplete");
    ConcurrencyRecords.Snapshot future = ConcurrencyRecords.Snapshot.incomplete(Map.of(), Map.of(), "schema 2");
    assertEquals(Optional.of("schema 2"), future.incomplete());
    assertThrows(IllegalArgumentException.class, () -> ConcurrencyRecords.Snapshot.incomplete(Map.of(), Map.of(), ""));
  }

  /** A ledger implementing only what it must: every read derives from its snapshot. */
  static final class MinimalLedger implements HazardLedger {
    final Map<String, Map<String, Observations>> held = new HashMap<>();

    @Override
    public boolean record(String serverName, String identity, HazardCode code, int attachedSessions) {
      if (attachedSessions <= 1) {
        return false;
      }
      held.computeIfAbsent(serverName, k -> new HashMap<>()).merge(identity, new Observations(Set.of(code), 1, 1.0),
          (a, b) -> {
            Set<HazardCode> all = new HashSet<>(a.codes());
            all.addAll(b.codes());
            return new Observations(all, a.count() + 1, 1.0);
          });
      return true;
    }

    @Override
    public Snapshot snapshot() {
      return new Snapshot(held);
    }

    @Override
    public boolean clear(String serverName) {
      return held.remove(serverName) != null;
    }

    @Override
    public void flush() {}

    @Override
    public void reload() {}
  }

  @Test
  void aMinimalLedgerAnswersEveryReadFromItsSnapshotSoItCannotHideAHazard() {
    MinimalLedger ledger = new MinimalLedger();
    assertTrue(ledger.record("srv", "id-1", HazardCode.CROSS_SESSION_LEAK, 2));
    assertTrue(ledger.record("srv", "id-2", HazardCode.UNROUTABLE_SERVER_REQUEST, 3));
    assertEquals(Set.of(HazardCode.CROSS_SESSION_LEAK), ledger.codesFor("srv", "id-1"));
    assertEquals(Set.of(HazardCode.UNROUTABLE_SERVER_REQUEST), ledger.codesFor("srv", "id-2"));
    assertEquals(Set.of(), ledger.codesFor("srv", "id-3"));
    assertEquals(Set.of(HazardCode.CROSS_SESSION_LEAK, HazardCode.UNROUTABLE_SERVER_REQUEST), ledger.codesForName("srv"));
    assertEquals(Set.of("srv"), ledger.serverNames());
    for (String id : List.of("id-1", "id-2", "id-3", "")) {
      assertEquals(ledger.snapshot().codesFor("srv", id), ledger.codesFor("srv", id), id);
    }
  }

  @Test
  void aLedgerThatCannotSayWhetherItFlushedSaysItMayNotHave() {
    // Conservative, never permissive: a caller that flushes only when needed must not skip one.
    assertTrue(new MinimalLedger().hasUnflushed());
  }
  /**
   * A row taken under the current identity is the measurement. Kills, in
   * PreflightCache.Snapshot.measurement, the Optional.empty return (EmptyObjectReturnValsMutator)
   * and the identity filter returning false (BooleanFalseReturnValsMutator).
   */
  @Test
  void aRowUnderTheCurrentIdentityIsTheMeasurement() {
    MapCache c = new MapCache(true);
    PreflightRecord r = row("id-1", Optional.of("1"));
    c.put(r);
    assertEquals(Optional.of(r), c.snapshot().measurement("srv", "id-1"));
    assertEquals(Optional.empty(), c.snapshot().measurement("other", "id-1"));
  }

  /**
   * A snapshot that says why it is incomplete is not complete. Kills
   * ConcurrencyRecords.Snapshot.complete returning true (BooleanTrueReturnValsMutator).
   */
  @Test
  void anIncompleteConcurrencySnapshotIsNotComplete() {
    assertFalse(ConcurrencyRecords.Snapshot.incomplete(Map.of(), Map.of(), "schema 2").complete());
  }
}
