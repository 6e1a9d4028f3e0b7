package dev.cotenant.testkit.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.cotenant.api.ConcurrencyModel;
import dev.cotenant.api.ConcurrencyRecord;
import dev.cotenant.api.ProbePass;
import dev.cotenant.api.ShareScope;
import dev.cotenant.spi.ConcurrencyRecords;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The contract of {@link ConcurrencyRecords} (docs/statelessness.md), minus what is about one file format.
 *
 * <p><b>Checks:</b> an empty store loads as no records and nothing rejected; records of every
 * model round-trip through {@code put}, {@code get}, {@code load} and {@code update}, which hands
 * the change the stored record (empty when there is none) and returns what is stored now; an
 * update whose change throws writes nothing and the same exception propagates; an update
 * returning empty removes the entry; an update returning a record of another server is refused
 * with {@link IllegalArgumentException} and writes nothing; updates of different servers from
 * several threads, through two stores opened on one directory, are all kept, and updates of one
 * server are atomic across them (a read-modify-write counter loses no increment); records survive
 * opening the store again.
 *
 * <p><b>Extending:</b> implement {@link #open(Path)}: it opens the records kept under a records
 * directory, and is called again with the same directory to "restart". A store with no durable
 * copy returns the same instance for the same directory. Test methods are package-private: a
 * subclass cannot override a rule away.
 *
 * <p><b>Thread-safety:</b> one suite instance per test, as JUnit does by default.
 */
public abstract class ConcurrencyRecordsContract extends RecordStoreContract<ConcurrencyRecords> {
  /** For subclasses. */
  protected ConcurrencyRecordsContract() {}

  private static ConcurrencyRecord shared(String name, int max) {
    return ConcurrencyRecord.shared(name, ShareScope.TENANT, max, ProbePass.wholeSurface(Samples.ledgerKey(name), 5, 1_700_000_000.5, ProbePass.Surface.of(List.of("echo"), Map.of())));
  }

  private static ConcurrencyRecord warm(String name) {
    return new ConcurrencyRecord(name, ConcurrencyModel.WARM_POOL, ShareScope.TENANT, OptionalInt.of(2), Optional.empty());
  }

  @Test
  void anEmptyStoreLoadsAsNoRecords() throws Exception {
    ConcurrencyRecords r = store();
    ConcurrencyRecords.Snapshot s = r.load();
    assertNotNull(s, "load() returned null");
    assertEquals(Map.of(), s.records());
    assertEquals(Map.of(), s.rejected());
    assertEquals(Optional.empty(), r.get("anything"));
  }

  @Test
  void recordsOfEveryModelRoundTrip() throws Exception {
    ConcurrencyRecords r = store();
    ConcurrencyRecord sidecar = ConcurrencyRecord.sidecar("sidecar");
    ConcurrencyRecord shared = ConcurrencyRecord.shared("shared", ShareScope.GLOBAL, 8,
        ProbePass.wholeSurface(Samples.ledgerKey("shared"), 4, 1_700_000_000.25, ProbePass.Surface.of(List.of("echo"), Map.of())));
    ConcurrencyRecord warm = warm("warm");
    r.put(sidecar);
    r.put(shared);
    r.put(warm);
    assertEquals(Optional.of(sidecar), r.get("sidecar"));
    assertEquals(Optional.of(shared), r.get("shared"));
    assertEquals(Optional.of(warm), r.get("warm"));
    assertEquals(Map.of("sidecar", sidecar, "shared", shared, "warm", warm), r.load().records());
    assertEquals(Map.of(), r.load().rejected());
  }

  @Test
  void updateSeesTheStoredRecordAndReturnsWhatIsStored() throws Exception {
    ConcurrencyRecords r = store();
    List<Optional<ConcurrencyRecord>> seen = new ArrayList<>();
    Optional<ConcurrencyRecord> first = r.update("s", current -> {
      seen.add(current);
      return Optional.of(shared("s", 2));
    });
    Optional<ConcurrencyRecord> second = r.update("s", current -> {
      seen.add(current);
      return Optional.of(shared("s", current.orElseThrow().maxConcurrent().getAsInt() + 1));
    });
    assertEquals(List.of(Optional.empty(), Optional.of(shared("s", 2))), seen, "update did not hand the change the stored record");
    assertEquals(Optional.of(shared("s", 2)), first);
    assertEquals(Optional.of(shared("s", 3)), second);
    assertEquals(Optional.of(shared("s", 3)), r.get("s"));
  }

  @Test
  void anUpdateWhoseChangeThrowsWritesNothing() throws Exception {
    ConcurrencyRecords r = store();
    r.put(shared("s", 2));
    IllegalStateException refused = new IllegalStateException("refused by the change");
    IllegalStateException thrown = assertThrows(IllegalStateException.class, () -> r.update("s", current -> {
      throw refused;
    }));
    assertSame(refused, thrown, "update did not propagate the change's own exception");
    assertEquals(Optional.of(shared("s", 2)), r.get("s"), "a change that threw altered the stored record");
    assertThrows(IllegalStateException.class, () -> r.update("new", current -> {
      throw refused;
    }));
    assertEquals(Optional.empty(), r.get("new"), "a change that threw created a record");
    assertEquals(Set.of("s"), r.load().records().keySet());
  }

  @Test
  void anUpdateReturningEmptyRemoves() throws Exception {
    ConcurrencyRecords r = store();
    r.put(shared("s", 2));
    r.put(warm("kept"));
    assertEquals(Optional.empty(), r.update("s", current -> Optional.empty()));
    assertEquals(Optional.empty(), r.get("s"), "an update returning empty did not remove the record");
    assertEquals(Set.of("kept"), r.load().records().keySet());
    assertEquals(Optional.empty(), r.update("never-stored", current -> Optional.empty()));
  }

  @Test
  void aRecordNamingAnotherServerIsRefused() throws Exception {
    ConcurrencyRecords r = store();
    r.put(warm("a"));
    assertThrows(IllegalArgumentException.class, () -> r.update("a", current -> Optional.of(warm("b"))),
        "an update of a returning a record of b was accepted");
    assertEquals(Optional.of(warm("a")), r.get("a"), "a refused update altered the record");
    assertEquals(Optional.empty(), r.get("b"), "a refused update wrote the other server's record");
  }

  @Test
  void updatesFromSeveralThreadsAreAllKept() throws Exception {
    ConcurrencyRecords r = store();
    ConcurrencyRecords other = open(directory);
    int threads = 6;
    int each = 15;
    r.put(shared("counter", 1));
    Concurrently.run(threads, 120, worker -> {
      ConcurrencyRecords mine = worker % 2 == 0 ? r : other;
      for (int i = 0; i < each; i++) {
        mine.put(warm("w" + worker + "-" + i));
        mine.update("counter", current -> Optional.of(shared("counter", current.orElseThrow().maxConcurrent().getAsInt() + 1)));
      }
      return null;
    });
    Set<String> expected = new TreeSet<>();
    for (int w = 0; w < threads; w++) {
      for (int i = 0; i < each; i++) {
        expected.add("w" + w + "-" + i);
      }
    }
    expected.add("counter");
    assertEquals(expected, new TreeSet<>(r.load().records().keySet()), "records written from several threads were lost");
    assertEquals(OptionalInt.of(1 + threads * each), r.get("counter").orElseThrow().maxConcurrent(),
        "concurrent read-modify-write updates of one server lost increments");
  }

  @Test
  void recordsSurviveAReopen() throws Exception {
    ConcurrencyRecords r = store();
    r.put(shared("s", 4));
    r.put(warm("w"));
    r.put(ConcurrencyRecord.sidecar("gone"));
    r.update("gone", current -> Optional.empty());
    ConcurrencyRecords reopened = open(directory);
    assertEquals(Map.of("s", shared("s", 4), "w", warm("w")), reopened.load().records());
  }
}
