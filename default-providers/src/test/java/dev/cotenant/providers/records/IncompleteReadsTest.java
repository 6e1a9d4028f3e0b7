package dev.cotenant.providers.records;

import static dev.cotenant.api.HazardCode.CROSS_SESSION_LEAK;
import static dev.cotenant.api.HazardCode.UNROUTABLE_SERVER_REQUEST;
import static dev.cotenant.providers.records.Fixtures.ID_1;
import static dev.cotenant.providers.records.Fixtures.ID_2;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.api.ConcurrencyModel;
import dev.cotenant.api.ConcurrencyRecord;
import dev.cotenant.api.ProbePass;
import dev.cotenant.api.ShareScope;
import dev.cotenant.spi.ConcurrencyRecords;
import dev.cotenant.spi.HazardLedger;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Fail closed (docs/statelessness.md): a record file that cannot be read completely still reads as what could
 * be read, and its snapshot says so, naming the file and the problem, until it is read completely
 * again; a copy moved aside keeps saying so until an operator deletes it. Each problem is logged
 * once. slf4j-simple writes to the current {@code System.err} on every call, so swapping it
 * captures the log.
 */
class IncompleteReadsTest {
  @TempDir Path dir;

  private Path ledgerFile() {
    return dir.resolve(FileHazardLedger.FILE_NAME);
  }

  private Path corruptLedger() {
    return dir.resolve(FileHazardLedger.FILE_NAME + ".corrupt");
  }

  private static String incomplete(HazardLedger.Snapshot s) {
    assertFalse(s.complete(), "the snapshot says the ledger was not read completely");
    return s.incomplete().orElseThrow();
  }

  static String captureErr(Runnable r) {
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    PrintStream original = System.err;
    System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
    try {
      r.run();
    } finally {
      System.setErr(original);
    }
    return captured.toString(StandardCharsets.UTF_8);
  }

  private static long count(String text, String needle) {
    return text.lines().filter(l -> l.contains(needle)).count();
  }

  // ---- the hazard ledger ---------------------------------------------------------------------

  @ParameterizedTest
  @MethodSource("dev.cotenant.providers.records.Fixtures#unusableLedgers")
  void anUnusableLedgerReadsAsNothingObservedButIncomplete_namingTheFileAndTheProblem(String fixture) {
    Fixtures.ledger(fixture, dir);
    HazardLedger.Snapshot s = FileHazardLedger.open(dir).snapshot();
    assertEquals(Map.of(), s.servers(), "the reading for strength is nothing observed");
    assertTrue(incomplete(s).startsWith(ledgerFile().toString() + " "), s.incomplete()::orElseThrow);
  }

  @Test
  void aTruncatedLedgerSaysItIsNotValidJson() {
    // Kills RecordsJson.withoutSourceMarker returning "" (EmptyObjectReturnValsMutator): the
    // parser's own words say where the file breaks off.
    Fixtures.ledger("truncated.json", dir);
    assertEquals(
        ledgerFile() + " is not valid JSON: Unexpected end-of-input in VALUE_STRING",
        incomplete(FileHazardLedger.open(dir).snapshot()));
  }

  @Test
  void aLedgerOfExactlyTheSizeBoundIsReadAndOneByteMoreIsNot() throws IOException {
    // Kills RecordsJson.read, `Files.size(file) > MAX_FILE_BYTES` changed to `>=`
    // (ConditionalsBoundaryMutator). Sparse files of zero bytes: the one at the bound is read and
    // fails as JSON, the one past it is refused before any byte is read.
    try (java.io.RandomAccessFile f = new java.io.RandomAccessFile(ledgerFile().toFile(), "rw")) {
      f.setLength(RecordsJson.MAX_FILE_BYTES);
    }
    assertTrue(incomplete(FileHazardLedger.open(dir).snapshot()).startsWith(ledgerFile() + " is not valid JSON"));
    try (java.io.RandomAccessFile f = new java.io.RandomAccessFile(ledgerFile().toFile(), "rw")) {
      f.setLength(RecordsJson.MAX_FILE_BYTES + 1);
    }
    assertEquals(
        ledgerFile() + " is larger than " + RecordsJson.MAX_FILE_BYTES + " bytes",
        incomplete(FileHazardLedger.open(dir).snapshot()));
  }

  @Test
  void aLedgerCutOffInsideAnObjectIsNamedWithoutTheParsersSourceMarker() throws IOException {
    Files.writeString(ledgerFile(), "{\"schema\": 1, \"servers\": {", StandardCharsets.UTF_8);
    String why = incomplete(FileHazardLedger.open(dir).snapshot());
    assertTrue(why.startsWith(ledgerFile() + " is not valid JSON: Unexpected end-of-input"), why);
    assertFalse(why.contains("Source:"), why);
    assertFalse(why.contains("start marker"), why);
  }

  @Test
  void aFutureSchemaLedgerReadsAsNothingObservedButIncomplete() {
    Fixtures.ledger("schema-2.json", dir);
    HazardLedger.Snapshot s = FileHazardLedger.open(dir).snapshot();
    assertEquals(Map.of(), s.servers());
    assertTrue(incomplete(s).contains("has schema 2, newer than this build's 1"), incomplete(s));
  }

  @Test
  void aLedgerWithEntriesOfTheWrongTypeReadsWhatItCanButIsIncomplete_namingWhatWasDropped() {
    Fixtures.ledger("wrong-types.json", dir);
    HazardLedger.Snapshot s = FileHazardLedger.open(dir).snapshot();
    assertEquals(
        Set.of("identities-is-a-list", "bad-count-and-time"), s.servers().keySet(), "what could be read is read");
    String why = incomplete(s);
    assertTrue(why.contains("holds entries this build cannot read"), why);
    assertTrue(why.contains("server \"server-is-a-list\" is not an object"), why);
    assertTrue(why.endsWith("; and 1 more"), "three named, the rest counted: " + why);
  }

  @Test
  void anEntryWithoutCodesAndOneWhoseCodesAreNotAListAreNamedForWhatEachIs() throws IOException {
    // Kills LedgerCodec.decodeObs, the `codes == null` of the message negated
    // (NegateConditionalsMutator): each would then be named for what the other is.
    Files.writeString(
        ledgerFile(),
        "{\"schema\": 1, \"servers\": {\"s\": {\"identities\": {"
            + "\"" + ID_1 + "\": {\"count\": 1, \"lastSeen\": 1.0}, "
            + "\"" + ID_2 + "\": {\"codes\": \"cross_session_leak\", \"count\": 1, \"lastSeen\": 1.0}}}}}",
        StandardCharsets.UTF_8);
    String why = incomplete(FileHazardLedger.open(dir).snapshot());
    assertTrue(why.contains("server \"s\" identity \"" + ID_1 + "\": \"codes\" is missing"), why);
    assertTrue(why.contains("server \"s\" identity \"" + ID_2 + "\": \"codes\" is not a list"), why);
  }

  @Test
  void aLedgerWithAnUnknownCodeIsIncomplete() {
    Fixtures.ledger("unknown-codes.json", dir);
    String why = incomplete(FileHazardLedger.open(dir).snapshot());
    assertTrue(why.contains("unknown code \"made_up_code\""), why);
  }

  @ParameterizedTest
  @ValueSource(strings = {"without-identities.json", "both-shapes.json"})
  void aLedgerOfEitherDocumentedShapeIsComplete(String fixture) {
    Fixtures.ledger(fixture, dir);
    assertTrue(FileHazardLedger.open(dir).snapshot().complete());
  }

  @Test
  void aMissingLedgerAndOneWrittenHereAreComplete() throws IOException {
    FileHazardLedger l = FileHazardLedger.open(dir);
    assertTrue(l.snapshot().complete());
    l.record("srv", ID_1, CROSS_SESSION_LEAK, 2);
    l.flush();
    assertTrue(l.snapshot().complete());
    assertTrue(FileHazardLedger.open(dir).snapshot().complete());
  }

  @Test
  void anUnreadableLedgerMovedAsideByAWriterKeepsTheLedgerIncompleteUntilTheCopyIsDeleted() throws IOException {
    Fixtures.ledger("truncated.json", dir);
    FileHazardLedger l = FileHazardLedger.open(dir);
    l.record("srv", ID_1, UNROUTABLE_SERVER_REQUEST, 2);
    l.flush();

    assertTrue(Files.exists(corruptLedger()));
    String why = incomplete(l.snapshot());
    assertTrue(why.contains("moved to " + corruptLedger()), why);
    String reopened = incomplete(FileHazardLedger.open(dir).snapshot());
    assertTrue(reopened.contains(corruptLedger().toString()), "another process sees the copy too: " + reopened);

    Files.delete(corruptLedger());
    l.reload();
    assertTrue(l.snapshot().complete(), "dealt with: the ledger reads completely again");
    assertEquals(Set.of(UNROUTABLE_SERVER_REQUEST), l.codesFor("srv", ID_1));
  }

  @Test
  void aLedgerWithDroppedEntriesIsMovedAsideBeforeAWriterReplacesIt() throws IOException {
    Path f = Fixtures.ledger("wrong-types.json", dir);
    byte[] original = Files.readAllBytes(f);
    FileHazardLedger l = FileHazardLedger.open(dir);
    l.record("srv", ID_1, CROSS_SESSION_LEAK, 2);
    l.flush();

    assertArrayEquals(original, Files.readAllBytes(corruptLedger()), "what was dropped is kept for an operator");
    HazardLedger.Snapshot reread = FileHazardLedger.open(dir).snapshot();
    assertEquals(Set.of("identities-is-a-list", "bad-count-and-time", "srv"), reread.servers().keySet());
    assertTrue(incomplete(reread).contains(corruptLedger().toString()), incomplete(reread));
  }

  @Test
  void exactlyAsManyDroppedEntriesAsAreNamedAreNamedWithNothingCounted() throws IOException {
    // Kills FileHazardLedger.problemOf, "more > 0" changed to ">= 0" (ConditionalsBoundaryMutator):
    // with exactly three dropped entries the message would end "; and 0 more".
    Files.writeString(ledgerFile(), "{\"schema\": 1, \"servers\": {"
        + "\"server-is-a-list\": [\"unroutable_server_request\"],"
        + "\"codes-is-a-string\": {\"identities\": {\"" + ID_1 + "\": {\"codes\": \"cross_session_leak\", \"count\": 1, \"lastSeen\": 1.0}}},"
        + "\"identity-is-a-number\": {\"identities\": {\"" + ID_1 + "\": 5}}}}");
    String why = incomplete(FileHazardLedger.open(dir).snapshot());
    assertTrue(why.contains("server \"server-is-a-list\""), why);
    assertFalse(why.contains("more"), "three dropped, three named, none left to count: " + why);
  }

  @Test
  void aFutureSchemaLedgerWrittenAfterOpeningMakesTheLedgerIncompleteAtTheFlushThatMeetsIt() throws IOException {
    // Kills FileHazardLedger.flush, the call to noteRead removed where the file on disk turns out
    // to be of a newer schema (VoidMethodCallMutator): the flush refused, and the ledger must say
    // its durable copy is unreadable rather than keep reading as complete.
    FileHazardLedger l = FileHazardLedger.open(dir);
    assertTrue(l.snapshot().complete());
    Fixtures.ledger("schema-2.json", dir);
    l.record("srv", ID_1, CROSS_SESSION_LEAK, 2);
    org.junit.jupiter.api.Assertions.assertThrows(IOException.class, l::flush);
    assertTrue(incomplete(l.snapshot()).contains("schema 2"), "a newer writer's ledger met by a flush left it complete");
  }

  /**
   * A ledger opened before another writer left an unreadable file, whose flush then cannot move
   * that file aside (a non-empty directory stands where the copy would go, which even root cannot
   * replace): the flush fails, and the ledger must name the problem of the file it met.
   */
  private String incompleteAfterAFlushThatCannotMoveAside(String content) throws IOException {
    Files.createDirectories(corruptLedger().resolve("in-the-way"));
    FileHazardLedger l = FileHazardLedger.open(dir);
    Files.writeString(ledgerFile(), content);
    l.record("srv", ID_1, CROSS_SESSION_LEAK, 2);
    org.junit.jupiter.api.Assertions.assertThrows(IOException.class, l::flush);
    return incomplete(l.snapshot());
  }

  @Test
  void anUnreadableLedgerMetByAFlushIsNamedEvenWhenItCannotBeMovedAside() throws IOException {
    // Kills FileHazardLedger.flush, the call to noteRead removed for an unreadable file
    // (VoidMethodCallMutator): the ledger would only name the copy in the way, not the problem.
    String why = incompleteAfterAFlushThatCannotMoveAside("{\"schema\": 1, \"servers\": {");
    assertTrue(why.contains("not valid JSON"), why);
  }

  @Test
  void aLedgerWithDroppedEntriesMetByAFlushIsNamedEvenWhenItCannotBeMovedAside() throws IOException {
    // Kills FileHazardLedger.flush, the call to noteRead removed for a file with entries this
    // build cannot read (VoidMethodCallMutator).
    String why = incompleteAfterAFlushThatCannotMoveAside(
        "{\"schema\": 1, \"servers\": {\"server-is-a-list\": [\"unroutable_server_request\"]}}");
    assertTrue(why.contains("holds entries this build cannot read"), why);
  }

  @Test
  void aFutureSchemaLedgerStaysIncompleteAfterAFlushThatRefusedToOverwriteIt() {
    Fixtures.ledger("schema-2.json", dir);
    FileHazardLedger l = FileHazardLedger.open(dir);
    l.record("srv", ID_1, CROSS_SESSION_LEAK, 2);
    org.junit.jupiter.api.Assertions.assertThrows(IOException.class, l::flush);
    assertTrue(incomplete(l.snapshot()).contains("schema 2"));
    assertFalse(Files.exists(corruptLedger()), "a newer writer's ledger is neither overwritten nor moved");
  }

  @Test
  void aWronglyTypedLedgerEntryIsWarnedAboutOnce() {
    Fixtures.ledger("wrong-types.json", dir);
    String log =
        captureErr(
            () -> {
              FileHazardLedger l = FileHazardLedger.open(dir);
              for (int i = 0; i < 3; i++) {
                l.reload();
                l.snapshot();
              }
            });
    assertEquals(1, count(log, "holds entries this build cannot read"), log);
    String line = log.lines().filter(x -> x.contains("holds entries this build cannot read")).findFirst().orElseThrow();
    assertTrue(line.contains("server \"server-is-a-list\" is not an object"), line);
    assertTrue(line.contains("nothing recommends sharing until it can be read completely"), line);
  }

  @Test
  void eachLedgerProblemIsLoggedOnce_andAgainOnlyWhenItComesBack() throws IOException {
    Fixtures.ledger("truncated.json", dir);
    String log =
        captureErr(
            () -> {
              FileHazardLedger l = FileHazardLedger.open(dir);
              l.reload();
              l.reload();
              try {
                Files.delete(ledgerFile());
                l.reload();
                Fixtures.ledger("truncated.json", dir);
                l.reload();
                l.reload();
              } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
              }
            });
    assertEquals(2, count(log, "is not valid JSON"), log);
  }

  // ---- the concurrency records ---------------------------------------------------------------

  private static ConcurrencyRecord sharedRecord() {
    return new ConcurrencyRecord(
        "a", ConcurrencyModel.SHARED, ShareScope.TENANT, OptionalInt.of(2), Optional.of(ProbePass.wholeSurface("id", 5, 1.0, ProbePass.Surface.of(List.of("echo"), Map.of()))));
  }

  @Test
  void aCorruptConcurrencyRecordsFileReadsAsNoRecordsButIncomplete_untilItsMovedAsideCopyIsDeleted()
      throws IOException {
    FileConcurrencyRecords records = FileConcurrencyRecords.open(dir);
    Files.writeString(records.file(), "{\"schema\": 1, \"servers\": {\"a\": {\"model\": \"sha", StandardCharsets.UTF_8);
    ConcurrencyRecords.Snapshot s = records.load();
    assertEquals(Map.of(), s.records());
    assertTrue(s.incomplete().orElseThrow().startsWith(records.file() + " is not valid JSON"), s.incomplete()::get);

    records.put(ConcurrencyRecord.sidecar("b"));
    Path aside = dir.resolve(FileConcurrencyRecords.FILE_NAME + ".corrupt");
    assertTrue(Files.exists(aside));
    ConcurrencyRecords.Snapshot after = records.load();
    assertEquals(Set.of("b"), after.records().keySet());
    assertTrue(after.incomplete().orElseThrow().contains("moved to " + aside), after.incomplete()::get);

    Files.delete(aside);
    assertTrue(records.load().complete());
  }

  @Test
  void aFutureSchemaConcurrencyRecordsFileIsIncomplete() throws IOException {
    FileConcurrencyRecords records = FileConcurrencyRecords.open(dir);
    Files.writeString(records.file(), "{\"schema\": 2, \"servers\": {}}", StandardCharsets.UTF_8);
    assertTrue(records.load().incomplete().orElseThrow().contains("has schema 2, newer than this build's 1"));
  }

  @Test
  void aMissingOrWellFormedConcurrencyRecordsFileIsComplete_aRefusedEntryIncluded() throws IOException {
    FileConcurrencyRecords records = FileConcurrencyRecords.open(dir);
    assertTrue(records.load().complete());
    records.put(sharedRecord());
    Files.writeString(
        records.file(),
        Files.readString(records.file()).replace("\"servers\" : {", "\"servers\" : { \"refused\": {\"model\": \"shared\"},"));
    ConcurrencyRecords.Snapshot s = records.load();
    assertEquals(Set.of("refused"), s.rejected().keySet());
    assertTrue(s.complete(), "a refused entry reads as absent: that withholds sharing from it alone");
  }

  @Test
  void aCorruptConcurrencyRecordsFileIsWarnedAboutOnce() throws IOException {
    FileConcurrencyRecords records = FileConcurrencyRecords.open(dir);
    Files.writeString(records.file(), "{\"schema\": 1, \"servers\": {", StandardCharsets.UTF_8);
    String log =
        captureErr(
            () -> {
              for (int i = 0; i < 3; i++) {
                records.load();
              }
            });
    assertEquals(1, count(log, "is not valid JSON"), log);
  }

  @Test
  void aRefusedConcurrencyEntryIsWarnedAboutOnce() throws IOException {
    FileConcurrencyRecords records = FileConcurrencyRecords.open(dir);
    Files.writeString(records.file(), "{\"schema\": 1, \"servers\": {\"x\": {\"model\": \"shared\"}}}", StandardCharsets.UTF_8);
    String log = captureErr(() -> List.of(1, 2, 3).forEach(i -> records.load()));
    assertEquals(1, count(log, "refusing the entry of x"), log);
  }
}
