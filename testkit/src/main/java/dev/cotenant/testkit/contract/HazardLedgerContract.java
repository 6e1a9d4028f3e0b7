package dev.cotenant.testkit.contract;

import static dev.cotenant.api.HazardCode.CROSS_SESSION_LEAK;
import static dev.cotenant.api.HazardCode.UNATTRIBUTABLE_NOTIFICATION;
import static dev.cotenant.api.HazardCode.UNROUTABLE_SERVER_REQUEST;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.api.HazardCode;
import dev.cotenant.spi.HazardLedger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.jspecify.annotations.Nullable;

/**
 * The contract of a {@link HazardLedger} (docs/records.md), minus what is about one file format.
 *
 * <p><b>Checks:</b> a hazard is recorded only for a shared backend ({@code attachedSessions > 1}):
 * otherwise {@code record} returns false and nothing is recorded; an empty server name or identity
 * is refused with {@link IllegalArgumentException} and records nothing; a null code records
 * nothing (the closed vocabulary is the {@link HazardCode} type); {@code codesFor} answers per
 * identity (another identity, another server and the empty identity see nothing);
 * {@code codesForName} unions every identity; <b>{@code snapshot()} agrees with {@code codesFor},
 * {@code codesForName} and {@code serverNames} for every server and identity, and shows every
 * observation under the identity that observed it</b> (the rule that catches a ledger hiding
 * hazards); counts add up; {@code clear} forgets one server only; {@code hasUnflushed} never hides
 * an unflushed record; {@code reload} keeps what was recorded here; {@code flush} then opening the
 * ledger again keeps everything, the clears included; {@code record} does no IO (it keeps working
 * while the records directory is unusable); two ledgers opened on one directory lose nothing of
 * each other's when both flush, and {@code reload} takes the other's records in; records from many
 * threads at once are all kept.
 *
 * <p><b>Extending:</b> implement {@link #open(Path)}: it opens the ledger kept under a records
 * directory, and is called again with the same directory to "restart". A ledger with no durable
 * copy returns the same instance for the same directory (as {@code InMemoryRecordStoreProvider}
 * does). Test methods are package-private: a subclass cannot override a rule away.
 *
 * <p><b>Thread-safety:</b> one suite instance per test, as JUnit does by default.
 */
public abstract class HazardLedgerContract extends RecordStoreContract<HazardLedger> {
  private static final String A = "server-a";
  private static final String B = "server-b";

  /** For subclasses. */
  protected HazardLedgerContract() {}

  @Test
  void recordedOnlyForASharedBackend() throws Exception {
    HazardLedger l = store();
    assertFalse(l.record(A, Samples.ledgerKey(A), CROSS_SESSION_LEAK, 1), "recorded with one attached session");
    assertFalse(l.record(A, Samples.ledgerKey(A), CROSS_SESSION_LEAK, 0), "recorded with no attached session");
    assertFalse(l.record(A, Samples.ledgerKey(A), CROSS_SESSION_LEAK, -3), "recorded with a negative session count");
    assertEquals(Set.of(), l.serverNames(), "serverNames after refused records");
    assertEquals(Set.of(), l.codesForName(A), "codesForName after refused records");
    assertEquals(Map.of(), l.snapshot().servers(), "snapshot after refused records");
    assertTrue(l.record(A, Samples.ledgerKey(A), CROSS_SESSION_LEAK, 2), "not recorded with two attached sessions");
    assertEquals(Set.of(CROSS_SESSION_LEAK), l.codesFor(A, Samples.ledgerKey(A)));
  }

  @Test
  void anObservationAboutADeferredStartIsRecordedWhateverTheCount() throws Exception {
    HazardLedger l = store();
    assertTrue(l.record(B, Samples.ledgerKey(B), HazardCode.DEFERRED_ANSWER_CHANGED, 1),
        "a deferred start contradicted on a backend of one session was not recorded");
    assertEquals(Set.of(HazardCode.DEFERRED_ANSWER_CHANGED), l.codesFor(B, Samples.ledgerKey(B)));
    l.flush();
    assertEquals(Set.of(HazardCode.DEFERRED_ANSWER_CHANGED), open(directory).codesFor(B, Samples.ledgerKey(B)),
        "not kept across a reopen");
  }

  @Test
  void anEmptyNameOrIdentityIsRefused() throws Exception {
    HazardLedger l = store();
    assertThrows(IllegalArgumentException.class, () -> l.record("", Samples.ledgerKey(A), CROSS_SESSION_LEAK, 2),
        "an empty server name was accepted");
    assertThrows(IllegalArgumentException.class, () -> l.record(A, "", CROSS_SESSION_LEAK, 2),
        "an empty identity was accepted");
    assertEquals(Map.of(), l.snapshot().servers(), "a refused record left something behind");
  }

  @Test
  void aNullCodeRecordsNothing() throws Exception {
    HazardLedger l = store();
    try {
      assertFalse(l.record(A, Samples.ledgerKey(A), nullCode(), 2), "a null code was recorded");
    } catch (RuntimeException refused) {
      // Refusing is fine too.
    }
    assertEquals(Map.of(), l.snapshot().servers(), "a null code left something behind");
  }

  @Test
  void codesForAnswersPerIdentity() throws Exception {
    HazardLedger l = store();
    l.record(A, Samples.ledgerKey(A), UNROUTABLE_SERVER_REQUEST, 2);
    assertEquals(Set.of(UNROUTABLE_SERVER_REQUEST), l.codesFor(A, Samples.ledgerKey(A)));
    assertEquals(Set.of(), l.codesFor(A, Samples.otherLedgerKey(A)), "another identity of the same server sees the hazard");
    assertEquals(Set.of(), l.codesFor(A, ""), "the empty identity sees the hazard");
    assertEquals(Set.of(), l.codesFor(B, Samples.ledgerKey(A)), "another server sees the hazard");
    assertEquals(Set.of(), l.codesForName(B), "another server's name-only read sees the hazard");
  }

  @Test
  void codesForNameUnionsEveryIdentity() throws Exception {
    HazardLedger l = store();
    l.record(A, Samples.ledgerKey(A), UNROUTABLE_SERVER_REQUEST, 2);
    l.record(A, Samples.otherLedgerKey(A), CROSS_SESSION_LEAK, 3);
    l.record(B, Samples.ledgerKey(B), UNATTRIBUTABLE_NOTIFICATION, 2);
    assertEquals(Set.of(UNROUTABLE_SERVER_REQUEST, CROSS_SESSION_LEAK), l.codesForName(A));
    assertEquals(Set.of(UNROUTABLE_SERVER_REQUEST), l.codesFor(A, Samples.ledgerKey(A)));
    assertEquals(Set.of(CROSS_SESSION_LEAK), l.codesFor(A, Samples.otherLedgerKey(A)));
    assertEquals(Set.of(A, B), l.serverNames());
  }

  @Test
  void snapshotAgreesWithEveryRead() throws Exception {
    HazardLedger l = store();
    l.record(A, Samples.ledgerKey(A), UNROUTABLE_SERVER_REQUEST, 2);
    l.record(A, Samples.ledgerKey(A), CROSS_SESSION_LEAK, 2);
    l.record(A, Samples.otherLedgerKey(A), UNATTRIBUTABLE_NOTIFICATION, 4);
    l.record(B, Samples.ledgerKey(B), CROSS_SESSION_LEAK, 2);
    HazardLedger.Snapshot s = l.snapshot();
    assertNotNull(s, "snapshot() returned null");
    // Every observation shows under the identity that observed it.
    assertEquals(Set.of(UNROUTABLE_SERVER_REQUEST, CROSS_SESSION_LEAK), codesIn(s, A, Samples.ledgerKey(A)),
        "the snapshot does not show " + A + "'s hazards under the identity that observed them");
    assertEquals(Set.of(UNATTRIBUTABLE_NOTIFICATION), codesIn(s, A, Samples.otherLedgerKey(A)),
        "the snapshot does not show " + A + "'s second build's hazard under its identity");
    assertEquals(Set.of(CROSS_SESSION_LEAK), codesIn(s, B, Samples.ledgerKey(B)),
        "the snapshot does not show " + B + "'s hazard under the identity that observed it");
    // Every read agrees with the snapshot, for every server and identity, seen or not.
    assertEquals(s.servers().keySet(), l.serverNames(), "serverNames() disagrees with snapshot()");
    Set<String> names = new LinkedHashSet<>(s.servers().keySet());
    names.add("never-recorded");
    Set<String> identities = new LinkedHashSet<>(List.of("", Samples.ledgerKey(A), Samples.otherLedgerKey(A),
        Samples.ledgerKey(B), Samples.ledgerKey("never-recorded")));
    s.servers().values().forEach(ids -> identities.addAll(ids.keySet()));
    for (String name : names) {
      assertEquals(s.codesForName(name), l.codesForName(name), "codesForName(" + name + ") disagrees with snapshot()");
      for (String id : identities) {
        assertEquals(s.codesFor(name, id), l.codesFor(name, id),
            "codesFor(" + name + ", " + (id.isEmpty() ? "\"\"" : id) + ") disagrees with snapshot()");
      }
    }
  }

  @Test
  void countsAddUp() throws Exception {
    HazardLedger l = store();
    for (int i = 0; i < 3; i++) {
      l.record(A, Samples.ledgerKey(A), UNROUTABLE_SERVER_REQUEST, 2);
    }
    l.record(A, Samples.ledgerKey(A), CROSS_SESSION_LEAK, 2);
    l.record(A, Samples.ledgerKey(A), CROSS_SESSION_LEAK, 1);
    HazardLedger.Observations o = l.snapshot().servers().get(A).get(Samples.ledgerKey(A));
    assertNotNull(o, "no observations under the identity that recorded them");
    assertEquals(4, o.count(), "count of four recorded observations");
    assertEquals(Set.of(UNROUTABLE_SERVER_REQUEST, CROSS_SESSION_LEAK), o.codes());
  }

  @Test
  void clearForgetsOneServerOnly() throws Exception {
    HazardLedger l = store();
    l.record(A, Samples.ledgerKey(A), UNROUTABLE_SERVER_REQUEST, 2);
    l.record(A, Samples.otherLedgerKey(A), CROSS_SESSION_LEAK, 2);
    l.record(B, Samples.ledgerKey(B), CROSS_SESSION_LEAK, 2);
    assertTrue(l.clear(A), "clear of a recorded server returned false");
    assertFalse(l.clear("never-recorded"), "clear of a server never recorded returned true");
    assertEquals(Set.of(), l.codesForName(A));
    assertEquals(Set.of(), l.codesFor(A, Samples.ledgerKey(A)));
    assertEquals(Set.of(B), l.serverNames());
    assertEquals(Set.of(CROSS_SESSION_LEAK), l.codesFor(B, Samples.ledgerKey(B)), "clear of one server touched another");
    assertFalse(l.snapshot().servers().containsKey(A), "the snapshot still lists the cleared server");
    assertTrue(l.record(A, Samples.ledgerKey(A), UNATTRIBUTABLE_NOTIFICATION, 2));
    assertEquals(Set.of(UNATTRIBUTABLE_NOTIFICATION), l.codesForName(A), "a record after clear brought old codes back");
  }

  @Test
  void hasUnflushedNeverHidesAnUnflushedChange() throws Exception {
    HazardLedger l = store();
    l.record(A, Samples.ledgerKey(A), CROSS_SESSION_LEAK, 2);
    assertTrue(l.hasUnflushed(), "hasUnflushed() is false right after a record");
    l.flush();
    l.clear(A);
    assertTrue(l.hasUnflushed(), "hasUnflushed() is false right after a clear");
    l.flush();
    l.record(B, Samples.ledgerKey(B), CROSS_SESSION_LEAK, 2);
    assertTrue(l.hasUnflushed(), "hasUnflushed() is false after a record that followed a flush");
    l.flush();
    // Two changes after a flush: a counter of changes that one of them moved backwards would be
    // back at its flushed value.
    l.record(A, Samples.ledgerKey(A), CROSS_SESSION_LEAK, 2);
    l.clear(B);
    assertTrue(l.hasUnflushed(), "hasUnflushed() is false after a record and a clear that followed a flush");
  }

  @Test
  void reloadKeepsWhatWasRecordedHere() throws Exception {
    HazardLedger l = store();
    l.record(A, Samples.ledgerKey(A), CROSS_SESSION_LEAK, 2);
    l.flush();
    l.record(B, Samples.ledgerKey(B), UNROUTABLE_SERVER_REQUEST, 2);
    l.reload();
    assertEquals(Set.of(CROSS_SESSION_LEAK), l.codesFor(A, Samples.ledgerKey(A)), "reload lost a flushed record");
    assertEquals(Set.of(UNROUTABLE_SERVER_REQUEST), l.codesFor(B, Samples.ledgerKey(B)), "reload lost an unflushed record");
  }

  @Test
  void flushThenReopenKeepsEverything() throws Exception {
    HazardLedger l = store();
    l.record(A, Samples.ledgerKey(A), UNROUTABLE_SERVER_REQUEST, 2);
    l.record(A, Samples.ledgerKey(A), UNROUTABLE_SERVER_REQUEST, 2);
    l.record(A, Samples.otherLedgerKey(A), CROSS_SESSION_LEAK, 2);
    l.record(B, Samples.ledgerKey(B), UNATTRIBUTABLE_NOTIFICATION, 2);
    l.record("cleared", Samples.ledgerKey("cleared"), CROSS_SESSION_LEAK, 2);
    l.flush();
    l.clear("cleared");
    l.flush();
    Map<String, Map<String, String>> before = summary(l.snapshot());
    HazardLedger reopened = open(directory);
    assertEquals(before, summary(reopened.snapshot()), "the ledger opened again differs from the one flushed");
    assertEquals(Set.of(A, B), reopened.serverNames());
    assertEquals(Set.of(CROSS_SESSION_LEAK), reopened.codesFor(A, Samples.otherLedgerKey(A)));
  }

  @Test
  void recordDoesNoIo() throws Exception {
    HazardLedger l = store();
    // Make the records directory unusable: a regular file stands where it was.
    Path aside = directory.resolveSibling(directory.getFileName() + ".aside");
    Files.move(directory, aside);
    Files.writeString(directory, "not a directory");
    try {
      for (int i = 0; i < 1_000; i++) {
        assertTrue(l.record("server-" + (i % 10), Samples.ledgerKey("build-" + i), HazardCode.values()[i % 3], 2),
            "a record failed while the records directory was unusable");
      }
      assertEquals(10, l.serverNames().size());
      assertEquals(Set.of(UNROUTABLE_SERVER_REQUEST), l.codesFor("server-0", Samples.ledgerKey("build-0")));
      assertEquals("not a directory", Files.readString(directory), "record wrote to the records directory");
    } finally {
      Files.delete(directory);
      Files.move(aside, directory);
    }
  }

  @Test
  void twoLedgersOpenedOnOneDirectoryLoseNothing() throws Exception {
    HazardLedger a = store();
    HazardLedger b = open(directory);
    a.record(A, Samples.ledgerKey(A), UNROUTABLE_SERVER_REQUEST, 2);
    b.record(B, Samples.ledgerKey(B), CROSS_SESSION_LEAK, 2);
    b.record(A, Samples.otherLedgerKey(A), UNATTRIBUTABLE_NOTIFICATION, 2);
    a.flush();
    b.flush();
    HazardLedger c = open(directory);
    assertEquals(Set.of(UNROUTABLE_SERVER_REQUEST), c.codesFor(A, Samples.ledgerKey(A)), "the first writer's record was lost");
    assertEquals(Set.of(UNATTRIBUTABLE_NOTIFICATION), c.codesFor(A, Samples.otherLedgerKey(A)), "the second writer's record was lost");
    assertEquals(Set.of(CROSS_SESSION_LEAK), c.codesFor(B, Samples.ledgerKey(B)), "the second writer's record was lost");
    a.reload();
    assertEquals(Set.of(CROSS_SESSION_LEAK), a.codesFor(B, Samples.ledgerKey(B)), "reload did not take in the other writer's record");
  }

  @Test
  void recordsFromManyThreadsAreAllKept() throws Exception {
    HazardLedger l = store();
    int threads = 8;
    int each = 250;
    Concurrently.run(threads, 120, worker -> {
      for (int i = 0; i < each; i++) {
        l.record("server-" + (i % 5), Samples.ledgerKey("worker-" + worker + "-" + i), HazardCode.values()[i % 3], 2);
        l.record("hot", Samples.ledgerKey("hot"), CROSS_SESSION_LEAK, 2);
      }
      return null;
    });
    HazardLedger.Snapshot s = l.snapshot();
    int identities = 0;
    for (int i = 0; i < 5; i++) {
      identities += s.servers().getOrDefault("server-" + i, Map.of()).size();
    }
    assertEquals(threads * each, identities, "identities recorded from " + threads + " threads at once were lost");
    HazardLedger.Observations hot = s.servers().getOrDefault("hot", Map.of()).get(Samples.ledgerKey("hot"));
    assertNotNull(hot, "the hot identity was lost");
    assertEquals(threads * each, hot.count(), "observations of one identity recorded from " + threads + " threads were lost");
  }

  private static Set<HazardCode> codesIn(HazardLedger.Snapshot s, String name, String identity) {
    HazardLedger.Observations o = s.servers().getOrDefault(name, Map.of()).get(identity);
    return o == null ? Set.of() : o.codes();
  }

  /** Name to identity to "codes x count": what must survive a reopen (lastSeen may be rounded by a store). */
  private static Map<String, Map<String, String>> summary(HazardLedger.Snapshot s) {
    Map<String, Map<String, String>> out = new TreeMap<>();
    s.servers().forEach((name, ids) -> {
      Map<String, String> m = new TreeMap<>();
      ids.forEach((id, o) -> m.put(id, new TreeSet<>(o.codes()) + " x" + o.count()));
      out.put(name, m);
    });
    return out;
  }

  /** The one value outside the closed vocabulary that the type system lets through. */
  private static @Nullable HazardCode nullCode() {
    return null;
  }
}
