package dev.cotenant.providers.records;

import static dev.cotenant.api.HazardCode.CROSS_SESSION_LEAK;
import static dev.cotenant.api.HazardCode.UNATTRIBUTABLE_NOTIFICATION;
import static dev.cotenant.api.HazardCode.UNROUTABLE_SERVER_REQUEST;
import static dev.cotenant.providers.records.Fixtures.ID_1;
import static dev.cotenant.providers.records.Fixtures.ID_2;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.api.HazardCode;
import dev.cotenant.spi.HazardLedger;
import dev.cotenant.spi.files.AtomicFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/** One test per rule of docs/records.md, named after the rule. */
class HazardLedgerRulesTest {
  @TempDir Path dir;

  @Test
  void aClearOnOneThreadLeavesTheLedgerFreeForAFlushOnAnother() throws Exception {
    // Kills FileHazardLedger.clear, the call to ReentrantLock.unlock removed
    // (VoidMethodCallMutator): the lock is reentrant, so only another thread notices that a clear
    // kept it, and its flush then waits forever (bounded here; a timeout is a failure).
    FileHazardLedger l = FileHazardLedger.open(dir);
    l.record("a", ID_1, CROSS_SESSION_LEAK, 2);
    l.record("b", ID_1, CROSS_SESSION_LEAK, 2);
    ExecutorService one = Executors.newSingleThreadExecutor();
    ExecutorService other = Executors.newSingleThreadExecutor();
    try {
      assertTrue(one.submit(() -> l.clear("a")).get(30, TimeUnit.SECONDS));
      other.submit(() -> {
        l.flush();
        return null;
      }).get(30, TimeUnit.SECONDS);
      assertEquals(Set.of("b"), FileHazardLedger.open(dir).serverNames(), "the flush after the clear");
    } finally {
      one.shutdownNow();
      other.shutdownNow();
    }
  }

  private FileHazardLedger open() {
    return FileHazardLedger.open(dir, () -> 5_000L);
  }

  private JsonNode file() throws IOException {
    return RecordsJson.MAPPER.readTree(Files.readAllBytes(dir.resolve(FileHazardLedger.FILE_NAME)));
  }

  @Test
  void identitiesAreAuthoritativeAndTheFlatFieldsAreTheirUnion() throws IOException {
    FileHazardLedger l = open();
    l.record("srv", ID_1, UNROUTABLE_SERVER_REQUEST, 2);
    l.record("srv", ID_1, UNROUTABLE_SERVER_REQUEST, 3);
    l.record("srv", ID_2, CROSS_SESSION_LEAK, 2);
    l.flush();
    JsonNode srv = file().get("servers").get("srv");
    assertEquals(2, srv.get("identities").get(ID_1).get("count").longValue());
    assertEquals(List.of("unroutable_server_request"), strings(srv.get("identities").get(ID_1).get("codes")));
    assertEquals(List.of("unroutable_server_request", "cross_session_leak"), strings(srv.get("codes")));
    assertEquals(3, srv.get("count").longValue());
    assertEquals(5.0, srv.get("lastSeen").doubleValue());

    // A reader trusts identities over flat fields that disagree with them.
    Path other = dir.resolve("other");
    Fixtures.ledger("both-shapes.json", other);
    FileHazardLedger both = FileHazardLedger.open(other);
    assertEquals(Set.of(UNROUTABLE_SERVER_REQUEST, UNATTRIBUTABLE_NOTIFICATION), both.codesForName("blue-green"));
  }

  @Test
  void theSchemaVersionIsNotBumpedForTheIdentitiesMap() throws IOException {
    FileHazardLedger l = open();
    l.record("srv", ID_1, CROSS_SESSION_LEAK, 2);
    l.flush();
    assertEquals(1, file().get("schema").intValue());
  }

  @Test
  void aFileWithoutIdentitiesLoadsAsOneRecordUnderTheEmptyIdentity() {
    Fixtures.ledger("without-identities.json", dir);
    FileHazardLedger l = open();
    assertEquals(Set.of(UNROUTABLE_SERVER_REQUEST), l.codesForName("old-server"));
    assertEquals(Set.of(), l.codesFor("old-server", ID_1));
    assertEquals(Set.of(), l.codesFor("old-server", ""));
    HazardLedger.Observations o = l.snapshot().servers().get("old-server").get("");
    assertEquals(4, o.count());
    assertEquals(1700000000.5, o.lastSeen());
  }

  @Test
  void closedVocabularyUnknownCodeIsRefusedOnWrite() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> HazardCode.parse("made_up_code"));
    assertTrue(e.getMessage().contains("made_up_code"), e.getMessage());
    FileHazardLedger l = open();
    assertThrows(NullPointerException.class, () -> l.record("srv", ID_1, null, 2));
    assertFalse(l.hasUnflushed());
    assertEquals(Set.of(), l.serverNames());
  }

  @Test
  void closedVocabularyUnknownCodeIsDroppedOnRead() throws IOException {
    Fixtures.ledger("unknown-codes.json", dir);
    FileHazardLedger l = open();
    assertEquals(Set.of(UNROUTABLE_SERVER_REQUEST), l.codesFor("mixed", ID_1));
    assertEquals(Set.of("mixed"), l.serverNames());
    l.record("x", ID_1, CROSS_SESSION_LEAK, 2);
    l.flush();
    assertFalse(new String(Files.readAllBytes(l.file())).contains("made_up_code"));
  }

  @Test
  void recordedOnlyForASharedBackend() {
    FileHazardLedger l = open();
    assertFalse(l.record("srv", ID_1, UNROUTABLE_SERVER_REQUEST, 1));
    assertFalse(l.record("srv", ID_1, UNROUTABLE_SERVER_REQUEST, 0));
    assertFalse(l.hasUnflushed());
    assertEquals(Set.of(), l.codesForName("srv"));
    assertTrue(l.record("srv", ID_1, UNROUTABLE_SERVER_REQUEST, 2));
    assertEquals(Set.of(UNROUTABLE_SERVER_REQUEST), l.codesFor("srv", ID_1));
  }

  @Test
  void aMissingFileReadsAsNothingObserved() {
    FileHazardLedger l = open();
    assertEquals(Set.of(), l.serverNames());
    assertFalse(Files.exists(l.file()));
  }

  @Test
  void anUnreadableFileReadsAsNothingObserved() {
    for (String f :
        List.of("truncated.json", "zero-bytes.json", "blank.json", "empty-object.json", "top-level-array.json",
            "servers-is-a-list.json", "schema-is-a-string.json")) {
      Path d = dir.resolve(f);
      Fixtures.ledger(f, d);
      FileHazardLedger l = FileHazardLedger.open(d);
      assertEquals(Set.of(), l.serverNames(), f);
    }
  }

  @Test
  void aFileNestedBeyondTheBoundReadsAsNothingObserved() throws IOException {
    String deep = "[".repeat(10_000) + "]".repeat(10_000);
    Files.writeString(dir.resolve(FileHazardLedger.FILE_NAME), "{\"schema\": 1, \"servers\": {\"x\": {\"codes\": " + deep + "}}}");
    assertEquals(Set.of(), open().serverNames());
  }

  @Test
  void aFutureSchemaFileReadsAsNothingObservedAndIsNotOverwritten() throws IOException {
    Path f = Fixtures.ledger("schema-2.json", dir);
    byte[] before = Files.readAllBytes(f);
    FileHazardLedger l = open();
    assertEquals(Set.of(), l.serverNames());
    l.record("srv", ID_1, CROSS_SESSION_LEAK, 2);
    IOException e = assertThrows(IOException.class, l::flush);
    assertTrue(e.getMessage().contains("schema 2"), e.getMessage());
    assertEquals(new String(before), new String(Files.readAllBytes(f)));
    assertTrue(l.hasUnflushed());
    assertEquals(Set.of(CROSS_SESSION_LEAK), l.codesFor("srv", ID_1));
  }

  @Test
  void anUnreadableFileIsMovedAsideAndRewrittenFromMemory() throws IOException {
    Path f = Fixtures.ledger("truncated.json", dir);
    byte[] corrupt = Files.readAllBytes(f);
    FileHazardLedger l = open();
    l.record("srv", ID_1, CROSS_SESSION_LEAK, 2);
    l.flush();
    assertEquals(new String(corrupt), new String(Files.readAllBytes(dir.resolve(FileHazardLedger.FILE_NAME + ".corrupt"))));
    assertEquals(Set.of(CROSS_SESSION_LEAK), FileHazardLedger.open(dir).codesFor("srv", ID_1));
  }

  @Test
  void aDeletedFileIsRewrittenWithWhatWasFlushedBeforeAndWhatIsPending() throws IOException {
    // Kills FileHazardLedger.capture, `c.baseCodes != 0` negated (NegateConditionalsMutator):
    // memory's copy of what the file held would then leave out every flushed cell, and a file
    // deleted in between would come back holding only what was pending.
    FileHazardLedger l = open();
    l.record("srv", ID_1, CROSS_SESSION_LEAK, 2);
    l.flush();
    Files.delete(dir.resolve(FileHazardLedger.FILE_NAME));
    l.record("srv", ID_2, UNROUTABLE_SERVER_REQUEST, 2);
    l.flush();
    FileHazardLedger reread = FileHazardLedger.open(dir);
    assertEquals(Set.of(CROSS_SESSION_LEAK), reread.codesFor("srv", ID_1));
    assertEquals(Set.of(UNROUTABLE_SERVER_REQUEST), reread.codesFor("srv", ID_2));
    assertEquals(Set.of(ID_1, ID_2), Set.copyOf(file().get("servers").get("srv").get("identities").propertyNames()));
  }

  @Test
  void anIdentityAnotherWriterClearedIsForgottenWithItsTime() throws IOException {
    // Kills FileHazardLedger.capture, `total > 0` changed to `>= 0`
    // (ConditionalsBoundaryMutator): a cell with nothing pending would then be captured as a fresh
    // observation of no code, stay in the flushed model, and so outlive another writer's clear;
    // an observation recorded afterwards, by a clock that reads earlier, would carry the cleared
    // observation's time.
    FileHazardLedger first = FileHazardLedger.open(dir, () -> 9_000L);
    FileHazardLedger second = open();
    first.record("srv", ID_1, CROSS_SESSION_LEAK, 2);
    first.flush();
    second.reload();
    assertEquals(Set.of(CROSS_SESSION_LEAK), second.codesFor("srv", ID_1));
    first.clear("srv");
    first.flush();
    second.record("other", ID_2, UNROUTABLE_SERVER_REQUEST, 2);
    second.flush();
    assertEquals(Set.of("other"), Set.copyOf(file().get("servers").propertyNames()));
    assertEquals(Set.of("other"), second.serverNames());

    second.record("srv", ID_1, UNROUTABLE_SERVER_REQUEST, 2);
    second.flush();
    JsonNode srv = file().get("servers").get("srv");
    assertEquals(5.0, srv.get("identities").get(ID_1).get("lastSeen").doubleValue(), "the time of the observation after the clear");
    assertEquals(1, srv.get("identities").get(ID_1).get("count").longValue());
    assertEquals(List.of("unroutable_server_request"), strings(srv.get("identities").get(ID_1).get("codes")));
  }

  @Test
  void aCountThatIsNotAPositiveIntegerReadsAsOneObservation() throws IOException {
    // Kills LedgerCodec.decodeObs, `count.longValue() > 0` changed to `>= 0`
    // (ConditionalsBoundaryMutator): a code on record was observed at least once.
    Files.writeString(
        dir.resolve(FileHazardLedger.FILE_NAME),
        "{\"schema\": 1, \"servers\": {\"s\": {\"identities\": {"
            + "\"" + ID_1 + "\": {\"codes\": [\"cross_session_leak\"], \"count\": 0, \"lastSeen\": 1.0}, "
            + "\"" + ID_2 + "\": {\"codes\": [\"cross_session_leak\"], \"count\": -3, \"lastSeen\": 1.0}}}}}");
    Map<String, HazardLedger.Observations> ids = FileHazardLedger.open(dir).snapshot().servers().get("s");
    assertEquals(1, ids.get(ID_1).count());
    assertEquals(1, ids.get(ID_2).count());
  }

  @Test
  void twoWritersWhoSawDifferentHazardsOfOneIdentityLeaveBothOnRecord() throws IOException {
    // Kills LedgerCodec.Obs.merge, the union of the codes `|` changed to `&` (MathMutator): the
    // second writer's flush would then erase the first writer's hazard, and the identity with it.
    FileHazardLedger first = open();
    FileHazardLedger second = open();
    first.record("srv", ID_1, CROSS_SESSION_LEAK, 2);
    second.record("srv", ID_1, UNROUTABLE_SERVER_REQUEST, 3);
    first.flush();
    second.flush();
    assertEquals(EnumSet.of(CROSS_SESSION_LEAK, UNROUTABLE_SERVER_REQUEST), FileHazardLedger.open(dir).codesFor("srv", ID_1));
    assertEquals(EnumSet.of(CROSS_SESSION_LEAK, UNROUTABLE_SERVER_REQUEST), second.codesFor("srv", ID_1));
    assertEquals(2, FileHazardLedger.open(dir).snapshot().servers().get("srv").get(ID_1).count());
  }

  @Test
  void recordIsInMemoryAndDoesNoIo() throws IOException {
    FileHazardLedger l = open();
    // Make the records directory unusable: it becomes a regular file, so no IO under it can succeed.
    Files.delete(dir);
    Files.writeString(dir, "not a directory");
    for (int i = 0; i < 10_000; i++) {
      assertTrue(l.record("srv-" + (i % 10), "id-" + i, HazardCode.values()[i % 3], 2));
    }
    assertEquals(10, l.serverNames().size());
    assertEquals(Set.of(UNROUTABLE_SERVER_REQUEST), l.codesFor("srv-0", "id-0"));
    assertEquals("not a directory", Files.readString(dir));
    assertThrows(IOException.class, l::flush);
    assertTrue(l.hasUnflushed());
    assertEquals("not a directory", Files.readString(dir));
  }

  @Test
  void flushClearsDirtyOnlyIfNothingMovedInBetween() throws Exception {
    FileHazardLedger l = open();
    l.record("srv", ID_1, UNROUTABLE_SERVER_REQUEST, 2);
    CountDownLatch captured = new CountDownLatch(1);
    CountDownLatch proceed = new CountDownLatch(1);
    l.afterCaptureHook(
        () -> {
          captured.countDown();
          try {
            proceed.await();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        });
    ExecutorService ex = Executors.newSingleThreadExecutor();
    try {
      Future<?> flushing = ex.submit(() -> {
        l.flush();
        return null;
      });
      assertTrue(captured.await(30, TimeUnit.SECONDS), "flush never captured its payload");
      // Recorded while the flush is between capturing its payload and writing it.
      assertTrue(l.record("srv", ID_2, CROSS_SESSION_LEAK, 2));
      proceed.countDown();
      flushing.get(30, TimeUnit.SECONDS);
    } finally {
      ex.shutdownNow();
    }
    l.afterCaptureHook(() -> {});
    assertTrue(l.hasUnflushed(), "the observation made during the flush must keep the ledger dirty");
    assertEquals(Set.of(), FileHazardLedger.open(dir).codesFor("srv", ID_2));
    assertEquals(Set.of(UNROUTABLE_SERVER_REQUEST), FileHazardLedger.open(dir).codesFor("srv", ID_1));
    l.flush();
    assertFalse(l.hasUnflushed());
    FileHazardLedger reread = FileHazardLedger.open(dir);
    assertEquals(Set.of(CROSS_SESSION_LEAK), reread.codesFor("srv", ID_2));
    assertEquals(1, reread.snapshot().servers().get("srv").get(ID_1).count());
    assertEquals(1, reread.snapshot().servers().get("srv").get(ID_2).count());
  }

  @Test
  void priorObservationsReloadWhenTheLedgerIsOpened() throws IOException {
    FileHazardLedger l = open();
    l.record("srv", ID_1, UNATTRIBUTABLE_NOTIFICATION, 2);
    l.flush();
    FileHazardLedger restarted = open();
    assertEquals(Set.of(UNATTRIBUTABLE_NOTIFICATION), restarted.codesFor("srv", ID_1));
    assertFalse(restarted.hasUnflushed());
  }

  @Test
  void identitiesAccumulateIndependently() throws IOException {
    FileHazardLedger l = open();
    // Blue/green: the draining build and the incoming build both record.
    l.record("srv", ID_1, UNROUTABLE_SERVER_REQUEST, 2);
    l.record("srv", ID_2, UNATTRIBUTABLE_NOTIFICATION, 2);
    l.flush();
    l.record("srv", ID_1, UNROUTABLE_SERVER_REQUEST, 2);
    l.flush();
    FileHazardLedger r = open();
    assertEquals(Set.of(UNROUTABLE_SERVER_REQUEST), r.codesFor("srv", ID_1));
    assertEquals(Set.of(UNATTRIBUTABLE_NOTIFICATION), r.codesFor("srv", ID_2));
    assertEquals(2, r.snapshot().servers().get("srv").get(ID_1).count());
    assertEquals(1, r.snapshot().servers().get("srv").get(ID_2).count());
  }

  @Test
  void aLaunchWhoseIdentityHasNoRecordReadsAsUnobserved() {
    FileHazardLedger l = open();
    l.record("srv", ID_1, CROSS_SESSION_LEAK, 2);
    assertEquals(Set.of(), l.codesFor("srv", ID_2));
    assertEquals(Set.of(), l.codesFor("other", ID_1));
  }

  @Test
  void nothingExpiresAndThereIsNoCap() throws IOException {
    long[] now = {1_000L};
    FileHazardLedger l = FileHazardLedger.open(dir, () -> now[0]);
    for (int i = 0; i < 20_000; i++) {
      l.record("srv", "id-" + i, UNROUTABLE_SERVER_REQUEST, 2);
    }
    l.flush();
    now[0] = 1_000L + 10L * 365 * 24 * 3600 * 1000; // ten years later
    FileHazardLedger later = FileHazardLedger.open(dir, () -> now[0]);
    later.record("other", ID_1, CROSS_SESSION_LEAK, 2);
    later.flush();
    FileHazardLedger r = FileHazardLedger.open(dir);
    assertEquals(20_000, r.snapshot().servers().get("srv").size());
    assertEquals(Set.of(UNROUTABLE_SERVER_REQUEST), r.codesFor("srv", "id-0"));
    assertEquals(1.0, r.snapshot().servers().get("srv").get("id-0").lastSeen());
  }

  @Test
  void clearIsTheOnlyExplicitOperatorPath() throws IOException {
    FileHazardLedger l = open();
    l.record("misattributed", ID_1, UNROUTABLE_SERVER_REQUEST, 2);
    l.record("misattributed", ID_2, UNROUTABLE_SERVER_REQUEST, 2);
    l.record("kept", ID_1, CROSS_SESSION_LEAK, 2);
    l.flush();
    // Another process that loaded the ledger before the clear and flushes after it.
    FileHazardLedger other = open();
    assertTrue(l.clear("misattributed"));
    assertFalse(l.clear("never-recorded"));
    assertEquals(Set.of(), l.codesForName("misattributed"));
    assertTrue(l.hasUnflushed());
    l.flush();
    other.record("kept", ID_2, UNATTRIBUTABLE_NOTIFICATION, 2);
    other.flush();
    FileHazardLedger r = open();
    assertEquals(Set.of("kept"), r.serverNames());
    assertEquals(Set.of(CROSS_SESSION_LEAK, UNATTRIBUTABLE_NOTIFICATION), r.codesForName("kept"));
    assertEquals(Set.of(), other.codesForName("misattributed"), "the other writer takes the clear in when it merges");
  }

  @Test
  void clearThenRecordKeepsOnlyTheNewObservation() throws IOException {
    FileHazardLedger l = open();
    l.record("srv", ID_1, UNROUTABLE_SERVER_REQUEST, 2);
    l.flush();
    l.clear("srv");
    l.record("srv", ID_2, CROSS_SESSION_LEAK, 2);
    l.flush();
    FileHazardLedger r = open();
    assertEquals(Set.of(), r.codesFor("srv", ID_1));
    assertEquals(Set.of(CROSS_SESSION_LEAK), r.codesFor("srv", ID_2));
  }

  @Test
  void theNameOnlyReadUnionsAcrossIdentities() {
    Fixtures.ledger("without-identities.json", dir);
    FileHazardLedger l = open();
    l.record("old-server", ID_1, CROSS_SESSION_LEAK, 2);
    l.record("old-server", ID_2, UNATTRIBUTABLE_NOTIFICATION, 2);
    l.record("old-server", ID_2, HazardCode.DEFERRED_ANSWER_CHANGED, 1);
    assertEquals(EnumSet.allOf(HazardCode.class), l.codesForName("old-server"));
    assertEquals(Set.of(CROSS_SESSION_LEAK), l.codesFor("old-server", ID_1));
  }

  @Test
  void writesAreAtomicAndLeaveNoTempFiles() throws IOException {
    FileHazardLedger l = open();
    Path stale = dir.resolve(AtomicFiles.tempPrefix(l.file()) + "123.tmp");
    Files.writeString(stale, "{\"schema\":1,\"serv");
    l.record("srv", ID_1, CROSS_SESSION_LEAK, 2);
    l.flush();
    try (var s = Files.list(dir)) {
      assertEquals(
          Set.of(FileHazardLedger.FILE_NAME, FileHazardLedger.FILE_NAME + ".lock"),
          s.map(p -> p.getFileName().toString()).collect(java.util.stream.Collectors.toSet()));
    }
  }

  @Test
  void concurrentWritersInOneProcessLoseNothing() throws Exception {
    FileHazardLedger a = open();
    FileHazardLedger b = open();
    ExecutorService ex = Executors.newFixedThreadPool(2);
    try {
      List<Future<Object>> fs =
          ex.invokeAll(
              List.of(
                  () -> writeMany(a, "a"),
                  () -> writeMany(b, "b")));
      for (Future<Object> f : fs) {
        f.get(60, TimeUnit.SECONDS);
      }
    } finally {
      ex.shutdownNow();
    }
    Map<String, Map<String, HazardLedger.Observations>> s = open().snapshot().servers();
    int total = s.values().stream().mapToInt(Map::size).sum();
    assertEquals(1_000, total);
  }

  private static Object writeMany(FileHazardLedger l, String tag) throws IOException {
    for (int i = 0; i < 500; i++) {
      l.record("srv-" + (i % 7), tag + i, UNROUTABLE_SERVER_REQUEST, 2);
      if (i % 25 == 0) {
        l.flush();
      }
    }
    l.flush();
    return null;
  }

  private static List<String> strings(JsonNode array) {
    List<String> out = new java.util.ArrayList<>();
    array.forEach(n -> out.add(n.stringValue()));
    return out;
  }
}
