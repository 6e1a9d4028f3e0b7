package dev.cotenant.testkit.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.api.HandshakeFacts;
import dev.cotenant.spi.PreflightCache;
import dev.cotenant.spi.PreflightRecord;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The contract of a {@link PreflightCache} (docs/records.md), minus what is about one file format.
 *
 * <p><b>Checks:</b> a row put is what {@code snapshot()} and {@code load()} return, handshake
 * included, and a second put of the same name replaces it (one row per name); {@code load()}
 * includes changes not flushed yet; {@code lookup} under another identity is empty and the row is
 * KEPT; a {@code reportedVersion} conflict (both sides know a version and they differ) DROPS the
 * row, on disk too, while an absent version on either side never conflicts; {@code drop} removes
 * one row and says whether there was one; {@code applied} markers are never pruned (not by a put,
 * a drop, a dropping lookup, a flush or a reopen); two caches opened on one directory lose
 * nothing of each other's when both flush, and {@code load} takes the other's rows in;
 * {@code flush} then opening the cache again keeps every row and marker.
 *
 * <p><b>Extending:</b> implement {@link #open(Path)}: it opens the cache kept under a records
 * directory, and is called again with the same directory to "restart". A cache with no durable
 * copy returns the same instance for the same directory. Identities in the rows are real
 * {@code ExecutionIdentity.cacheKey()} strings of the current pre-flight schema
 * ({@link Samples#cacheKey}). Test methods are package-private: a subclass cannot override a rule
 * away.
 *
 * <p><b>Thread-safety:</b> one suite instance per test, as JUnit does by default.
 */
public abstract class PreflightCacheContract extends RecordStoreContract<PreflightCache> {
  private static final String A = "server-a";
  private static final String B = "server-b";

  /** For subclasses. */
  protected PreflightCacheContract() {}

  private static PreflightRecord measured(String name, Optional<String> version) {
    return Samples.row(name, Samples.cacheKey(name), version);
  }

  @Test
  void putThenSnapshotAndLoadRoundTrip() throws Exception {
    PreflightCache c = store();
    HandshakeFacts facts = Samples.richHandshake();
    PreflightRecord full = new PreflightRecord(A, Samples.cacheKey(A), true, true, List.of("tools", "capabilities"),
        1_700_000_123.25, Optional.of("2.1.0"), Optional.of(facts));
    PreflightRecord notRun = new PreflightRecord(B, Samples.cacheKey(B), false, false, List.of("needs a display"),
        1_700_000_124.0, Optional.empty(), Optional.empty());
    c.put(full);
    c.put(notRun);
    assertEquals(full, c.snapshot().rows().get(A), "snapshot() does not return the row put");
    assertEquals(notRun, c.snapshot().rows().get(B), "snapshot() does not return the not-run row put");
    assertEquals(Set.of(A, B), c.load().rows().keySet(), "load() does not include rows put and not flushed");
    assertEquals(full, c.load().rows().get(A));
    PreflightRecord again = measured(A, Optional.of("2.2.0"));
    c.put(again);
    assertEquals(again, c.snapshot().rows().get(A), "a second put of the same name did not replace the row");
    assertEquals(Set.of(A, B), c.snapshot().rows().keySet(), "one row per name");
  }

  @Test
  void loadIncludesWhatIsNotFlushedYet() throws Exception {
    PreflightCache c = store();
    c.put(measured(A, Optional.empty()));
    c.markApplied(A);
    PreflightCache.Snapshot loaded = c.load();
    assertTrue(loaded.rows().containsKey(A), "load() lost a row not flushed yet");
    assertTrue(loaded.applied().contains(A), "load() lost a marker not flushed yet");
    assertEquals(loaded, c.snapshot(), "snapshot() differs from what load() just returned");
  }

  @Test
  void aLookupUnderAnotherIdentityIsEmptyAndKeepsTheRow() throws Exception {
    PreflightCache c = store();
    PreflightRecord row = measured(A, Optional.of("1.0.0"));
    c.put(row);
    assertEquals(Optional.empty(), c.lookup(A, Samples.otherCacheKey(A), Optional.of("1.0.0")),
        "a lookup under another identity returned the row");
    assertEquals(row, c.snapshot().rows().get(A), "a lookup under another identity did not keep the row");
    assertEquals(Optional.of(row), c.lookup(A, Samples.cacheKey(A), Optional.of("1.0.0")),
        "a lookup under the row's own identity did not return it");
    c.flush();
    assertEquals(row, open(directory).snapshot().rows().get(A), "the row is gone after a flush and reopen");
  }

  @Test
  void aReportedVersionConflictDropsTheRow() throws Exception {
    PreflightCache c = store();
    c.put(measured(A, Optional.of("1.0.0")));
    c.put(measured(B, Optional.of("1.0.0")));
    assertEquals(Optional.empty(), c.lookup(A, Samples.cacheKey(A), Optional.of("1.1.0")),
        "a lookup naming another reported version returned the row");
    assertFalse(c.snapshot().rows().containsKey(A), "the row of replaced code was hidden, not dropped");
    assertTrue(c.snapshot().rows().containsKey(B), "dropping one row dropped another");
    c.flush();
    PreflightCache reopened = open(directory);
    assertFalse(reopened.snapshot().rows().containsKey(A), "the dropped row came back after a flush and reopen");
    assertTrue(reopened.snapshot().rows().containsKey(B));
  }

  @Test
  void anAbsentVersionOnEitherSideNeverConflicts() throws Exception {
    PreflightCache c = store();
    PreflightRecord versioned = measured(A, Optional.of("1.0.0"));
    PreflightRecord unversioned = measured(B, Optional.empty());
    c.put(versioned);
    c.put(unversioned);
    assertEquals(Optional.of(versioned), c.lookup(A, Samples.cacheKey(A), Optional.empty()),
        "a lookup that knows no version dropped or hid a versioned row");
    assertEquals(Optional.of(versioned), c.lookup(A, Samples.cacheKey(A), Optional.of("1.0.0")),
        "a lookup naming the same version dropped or hid the row");
    assertEquals(Optional.of(unversioned), c.lookup(B, Samples.cacheKey(B), Optional.of("9.9.9")),
        "a row that knows no version was dropped or hidden by a lookup naming one");
    assertEquals(Set.of(A, B), c.snapshot().rows().keySet());
  }

  @Test
  void dropRemovesOneRow() throws Exception {
    PreflightCache c = store();
    c.put(measured(A, Optional.empty()));
    c.put(measured(B, Optional.empty()));
    assertTrue(c.drop(A), "drop of a stored row returned false");
    assertFalse(c.drop(A), "a second drop of the same row returned true");
    assertFalse(c.drop("never-stored"), "drop of a row never stored returned true");
    assertEquals(Set.of(B), c.snapshot().rows().keySet());
    c.flush();
    assertEquals(Set.of(B), open(directory).snapshot().rows().keySet(), "the dropped row came back after a flush and reopen");
  }

  @Test
  void appliedMarkersAreNeverPruned() throws Exception {
    PreflightCache c = store();
    c.markApplied(A);
    c.markApplied("removed-last-month");
    c.put(measured(A, Optional.of("1.0.0")));
    c.put(measured(A, Optional.of("1.0.0")));
    c.lookup(A, Samples.cacheKey(A), Optional.of("2.0.0"));
    c.put(measured(B, Optional.empty()));
    c.drop(B);
    c.markApplied(B);
    c.markApplied(B);
    assertEquals(Set.of(A, B, "removed-last-month"), c.snapshot().applied(), "markers were pruned in memory");
    c.flush();
    assertEquals(Set.of(A, B, "removed-last-month"), c.load().applied(), "markers were pruned by a flush");
    PreflightCache reopened = open(directory);
    assertEquals(Set.of(A, B, "removed-last-month"), reopened.snapshot().applied(), "markers were pruned by a reopen");
    reopened.put(measured(A, Optional.of("3.0.0")));
    reopened.flush();
    assertEquals(Set.of(A, B, "removed-last-month"), open(directory).load().applied(), "markers were pruned by a later write");
  }

  @Test
  void twoCachesOpenedOnOneDirectoryLoseNothing() throws Exception {
    PreflightCache a = store();
    PreflightCache b = open(directory);
    a.put(measured(A, Optional.empty()));
    a.markApplied(A);
    b.put(measured(B, Optional.empty()));
    b.markApplied(B);
    a.flush();
    b.flush();
    PreflightCache.Snapshot s = open(directory).load();
    assertEquals(Set.of(A, B), s.rows().keySet(), "a writer's row was lost");
    assertEquals(Set.of(A, B), s.applied(), "a writer's marker was lost");
    assertEquals(Set.of(A, B), a.load().rows().keySet(), "load() did not take in the other writer's row");
  }

  @Test
  void flushThenReopenKeepsRowsAndMarkers() throws Exception {
    PreflightCache c = store();
    PreflightRecord full = new PreflightRecord(A, Samples.cacheKey(A), true, true, List.of("tools"),
        1_700_000_123.5, Optional.of("2.1.0"), Optional.of(Samples.richHandshake()));
    PreflightRecord notRun = new PreflightRecord(B, Samples.cacheKey(B), false, false, List.of("not a stdio server"),
        1_700_000_124.0, Optional.empty(), Optional.empty());
    c.put(full);
    c.put(notRun);
    c.markApplied(A);
    c.flush();
    PreflightCache reopened = open(directory);
    PreflightCache.Snapshot s = reopened.load();
    assertEquals(full, s.rows().get(A), "a row with a handshake changed across a flush and reopen");
    assertEquals(notRun, s.rows().get(B), "a not-run row changed across a flush and reopen");
    assertEquals(Set.of(A), s.applied());
    assertEquals(Optional.of(full), reopened.lookup(A, Samples.cacheKey(A), Optional.of("2.1.0")));
  }
}
