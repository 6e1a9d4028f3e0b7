package dev.cotenant.providers.records;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.api.ConcurrencyModel;
import dev.cotenant.api.ConcurrencyRecord;
import dev.cotenant.api.ProbePass;
import dev.cotenant.api.ShareScope;
import dev.cotenant.spi.files.AtomicFiles;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The schema invariants of docs/statelessness.md hold for records read from JSON exactly as for records
 * constructed in code, and {@code concurrency-records.json} follows the records' rules.
 */
class ConcurrencyRecordsTest {
  private static final String PROBE = "\"probe\": {\"identity\": \"id-1\", \"tool\": \"*\", \"rounds\": 5, \"passedAt\": 2.5, "
      + "\"surface\": {\"tools\": [\"echo\"], \"skipped\": {}}}";

  @TempDir Path dir;

  /** The message with which reading {@code json} as the record of server {@code s} is refused. */
  private static String readRefusal(String json) {
    return assertThrows(IllegalArgumentException.class, () -> ConcurrencyRecordsCodec.parseRecord("s", json)).getMessage();
  }

  @Test
  void sharedWithoutAPassedProbeIsRefusedByConstructionAndByDeserialization() {
    IllegalArgumentException built = assertThrows(IllegalArgumentException.class,
        () -> new ConcurrencyRecord("s", ConcurrencyModel.SHARED, ShareScope.TENANT, OptionalInt.of(4), Optional.empty()));
    assertEquals("refusing model 'shared' for s without a passed statelessness probe", built.getMessage());
    assertEquals(built.getMessage(), readRefusal("{\"model\": \"shared\", \"maxConcurrent\": 4}"));
    assertEquals(built.getMessage(), readRefusal("{\"model\": \"shared\", \"maxConcurrent\": 4, \"probe\": null}"));
  }

  @Test
  void sharedWithoutMaxConcurrentIsRefusedByConstructionAndByDeserialization() {
    ProbePass pass = ProbePass.wholeSurface("id-1", 5, 2.5, ProbePass.Surface.of(List.of("echo"), Map.of()));
    IllegalArgumentException built = assertThrows(IllegalArgumentException.class,
        () -> new ConcurrencyRecord("s", ConcurrencyModel.SHARED, ShareScope.TENANT, OptionalInt.empty(), Optional.of(pass)));
    assertEquals("refusing model 'shared' for s without maxConcurrent (a positive integer)", built.getMessage());
    assertEquals(built.getMessage(), readRefusal("{\"model\": \"shared\", " + PROBE + "}"));
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "0     | maxConcurrent must be a positive integer, got 0 for s",
      "-3    | maxConcurrent must be a positive integer, got -3 for s",
      "2.5   | concurrency record of s: maxConcurrent must be a positive integer, got 2.5",
      "'\"4\"' | concurrency record of s: maxConcurrent must be a positive integer, got \"4\"",
      "true  | concurrency record of s: maxConcurrent must be a positive integer, got true",
      "99999999999 | concurrency record of s: maxConcurrent must be a positive integer, got 99999999999"})
  void aMaxConcurrentThatIsNotAPositiveIntIsRefusedWithAPreciseMessage(String value, String message) {
    assertEquals(message, readRefusal("{\"model\": \"shared\", \"maxConcurrent\": " + value + ", " + PROBE + "}"));
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "{\"model\": \"pooled\"} | concurrency record of s: unknown model 'pooled'; expected one of sidecar, shared, warm_pool",
      "{\"model\": 1} | concurrency record of s: \"model\" must be a string",
      "{\"scope\": \"world\"} | concurrency record of s: unknown scope 'world'; expected one of tenant, global",
      "[] | concurrency record of s is not a JSON object",
      "{\"model\": \"shared\", \"maxConcurrent\": 2, \"probe\": {\"identity\": \"i\", \"tool\": \"t\", \"rounds\": 2}} | a statelessness probe needs at least 3 rounds; this one ran 2",
      "{\"model\": \"shared\", \"maxConcurrent\": 2, \"probe\": {\"tool\": \"t\", \"rounds\": 5}} | concurrency record of s: probe.identity must be a string",
      "{\"model\": \"shared\", \"maxConcurrent\": 2, \"probe\": {\"identity\": \"\", \"tool\": \"t\", \"rounds\": 5}} | a probe pass must name the identity it passed under",
      "{\"model\": \"shared\", \"maxConcurrent\": 2, \"probe\": true} | concurrency record of s: \"probe\" must be an object"})
  void malformedEntriesAreRefusedNamingTheServerAndField(String json, String message) {
    assertEquals(message, readRefusal(json));
  }

  @Test
  void defaultsAreSidecarAndTenantAndEveryModelRoundTrips() {
    ConcurrencyRecord empty = ConcurrencyRecordsCodec.parseRecord("s", "{}");
    assertEquals(ConcurrencyRecord.sidecar("s"), empty);
    ConcurrencyRecord shared = ConcurrencyRecord.shared("s", ShareScope.GLOBAL, 8, ProbePass.wholeSurface("id-1", 5, 2.5, ProbePass.Surface.of(List.of("echo"), Map.of())));
    assertEquals(shared, ConcurrencyRecordsCodec.parseRecord("s", ConcurrencyRecordsCodec.format(shared)));
    ConcurrencyRecord warm = new ConcurrencyRecord("s", ConcurrencyModel.WARM_POOL, ShareScope.TENANT, OptionalInt.of(2), Optional.empty());
    assertEquals(warm, ConcurrencyRecordsCodec.parseRecord("s", ConcurrencyRecordsCodec.format(warm)));
    ConcurrencyRecord sidecarWithPass = new ConcurrencyRecord("s", ConcurrencyModel.SIDECAR, ShareScope.TENANT,
        OptionalInt.empty(), Optional.of(new ProbePass("id-2", "remember", 3, 1.0)));
    assertEquals(sidecarWithPass, ConcurrencyRecordsCodec.parseRecord("s", ConcurrencyRecordsCodec.format(sidecarWithPass)));
  }

  @Test
  void aFileEntryTheSchemaRefusesReadsAsAbsentAndTheOthersStillLoad() throws IOException {
    FileConcurrencyRecords records = FileConcurrencyRecords.open(dir);
    Files.writeString(records.file(), "{\"schema\": 1, \"servers\": {"
        + "\"forged\": {\"model\": \"shared\", \"maxConcurrent\": 4},"
        + "\"good\": {\"model\": \"shared\", \"scope\": \"tenant\", \"maxConcurrent\": 4, " + PROBE + "}}}",
        StandardCharsets.UTF_8);
    FileConcurrencyRecords.Snapshot s = records.load();
    assertEquals(Optional.empty(), s.get("forged"));
    assertEquals(Map.of("forged", "refusing model 'shared' for forged without a passed statelessness probe"), s.rejected());
    assertEquals(ConcurrencyModel.SHARED, s.get("good").orElseThrow().model());
    assertTrue(s.get("good").orElseThrow().probedUnder("id-1"));
    assertFalse(s.get("good").orElseThrow().probedUnder("id-2"), "a pass under another identity reads as not probed");
  }

  @Test
  void anUpdateRewritesOneEntryAtomicallyAndKeepsTheOthersVerbatim() throws IOException {
    FileConcurrencyRecords records = FileConcurrencyRecords.open(dir.resolve("records"));
    Files.createDirectories(records.file().getParent());
    Files.writeString(records.file(), "{\"schema\": 1, \"servers\": {\"forged\": {\"model\": \"shared\", \"note\": \"x\"}}}",
        StandardCharsets.UTF_8);
    ConcurrencyRecord shared = ConcurrencyRecord.shared("a", ShareScope.TENANT, 3, ProbePass.wholeSurface("id-1", 5, 2.5, ProbePass.Surface.of(List.of("echo"), Map.of())));
    records.put(shared);
    assertEquals(Optional.of(shared), records.get("a"));
    String text = Files.readString(records.file());
    assertTrue(text.contains("\"note\" : \"x\""), text);
    assertEquals(Map.of("forged", "refusing model 'shared' for forged without a passed statelessness probe"), records.load().rejected());
    try (var files = Files.list(records.file().getParent())) {
      assertEquals(0, files.filter(p -> p.getFileName().toString().endsWith(".tmp")).count(), "no temp file left");
    }

    // A change that throws writes nothing.
    assertThrows(IllegalStateException.class, () -> records.update("a", current -> {
      throw new IllegalStateException("refused");
    }));
    assertEquals(text, Files.readString(records.file()));
    records.update("a", current -> Optional.empty());
    assertEquals(Optional.empty(), records.get("a"));
  }

  @Test
  void anUpdateReturnsWhatIsStoredNowAndRefusesARecordOfAnotherServer() throws IOException {
    // Kills FileConcurrencyRecords.update, its return replaced with Optional.empty
    // (EmptyObjectReturnValsMutator), and the name check (Optional.ifPresent) removed
    // (VoidMethodCallMutator): a record of b stored under a's name would be read as a's.
    FileConcurrencyRecords records = FileConcurrencyRecords.open(dir);
    assertEquals(Optional.of(ConcurrencyRecord.sidecar("a")), records.update("a", current -> Optional.of(ConcurrencyRecord.sidecar("a"))));
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> records.update("a", current -> Optional.of(ConcurrencyRecord.sidecar("b"))));
    assertEquals("a record of b cannot be stored under a", e.getMessage());
    assertEquals(Map.of("a", ConcurrencyRecord.sidecar("a")), records.load().records());
  }

  @Test
  void anUnchangedFileIsNotParsedAgainAndAReplacedOneIs() throws IOException {
    FileConcurrencyRecords records = FileConcurrencyRecords.open(dir);
    records.update("a", current -> Optional.of(ConcurrencyRecord.sidecar("a")));
    FileConcurrencyRecords.Snapshot first = records.load();
    assertTrue(first == records.load(), "the same file read again is the same snapshot");
    // Another process (another FileConcurrencyRecords) replaces the file: read anew.
    FileConcurrencyRecords.open(dir).update("b", current -> Optional.of(ConcurrencyRecord.sidecar("b")));
    FileConcurrencyRecords.Snapshot second = records.load();
    assertEquals(Map.of("a", ConcurrencyRecord.sidecar("a"), "b", ConcurrencyRecord.sidecar("b")), second.records());
    // Written in place, as an editor may: a new size (or time) is a new read.
    String text = Files.readString(records.file());
    Files.writeString(records.file(), text.replace("\"b\"", "\"cc\""));
    assertEquals(java.util.Set.of("a", "cc"), records.load().records().keySet());
    Files.delete(records.file());
    assertEquals(Map.of(), records.load().records(), "a removed file reads as no records");
  }

  @Test
  void anUpdateDeletesATempFileADeadWriterLeft() throws IOException {
    // Kills FileConcurrencyRecords.update, the call to AtomicFiles.deleteStaleTemps removed
    // (VoidMethodCallMutator).
    FileConcurrencyRecords records = FileConcurrencyRecords.open(dir);
    Path stale = dir.resolve(AtomicFiles.tempPrefix(records.file()) + "4711.tmp");
    Files.writeString(stale, "{\"schema\": 1, \"serv", StandardCharsets.UTF_8);
    records.put(ConcurrencyRecord.sidecar("a"));
    assertFalse(Files.exists(stale), "the dead writer's temp file");
    assertEquals(Optional.of(ConcurrencyRecord.sidecar("a")), records.get("a"));
  }

  @Test
  void aCorruptFileMetByAnUpdateIsNamedInAWarning() throws IOException {
    // Kills FileConcurrencyRecords.update, the call to WarnOnce.warn removed
    // (VoidMethodCallMutator): the file is moved aside and rewritten, and the operator must learn
    // of the copy.
    FileConcurrencyRecords records = FileConcurrencyRecords.open(dir);
    Files.writeString(records.file(), "{\"schema\": 1, \"servers\": {", StandardCharsets.UTF_8);
    String log = IncompleteReadsTest.captureErr(() -> {
      try {
        records.put(ConcurrencyRecord.sidecar("a"));
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    });
    String line = log.lines().filter(l -> l.contains("is not valid JSON")).findFirst().orElseThrow(() -> new AssertionError(log));
    assertTrue(line.contains(records.file().toString()), line);
    assertTrue(line.contains("no concurrency records; rewriting it"), line);
  }

  @Test
  void aCorruptFileReadsAsNoRecordsAndIsMovedAsideOnTheNextWrite() throws IOException {
    FileConcurrencyRecords records = FileConcurrencyRecords.open(dir);
    Files.writeString(records.file(), "{\"schema\": 1, \"servers\": {", StandardCharsets.UTF_8);
    assertEquals(Map.of(), records.load().records());
    records.put(ConcurrencyRecord.sidecar("a"));
    assertEquals(Optional.of(ConcurrencyRecord.sidecar("a")), records.get("a"));
    assertTrue(Files.exists(dir.resolve(FileConcurrencyRecords.FILE_NAME + ".corrupt")));
  }

  @Test
  void aNewerSchemaReadsAsNoRecordsAndIsNeverOverwritten() throws IOException {
    FileConcurrencyRecords records = FileConcurrencyRecords.open(dir);
    String future = "{\"schema\": 2, \"servers\": {\"a\": {\"model\": \"shared\"}}}";
    Files.writeString(records.file(), future, StandardCharsets.UTF_8);
    assertEquals(Map.of(), records.load().records());
    IOException e = assertThrows(IOException.class, () -> records.put(ConcurrencyRecord.sidecar("a")));
    assertTrue(e.getMessage().contains("refusing to overwrite a newer writer's concurrency records"), e.getMessage());
    assertEquals(future, Files.readString(records.file()));
  }

  @Test
  void aMissingFileReadsAsNoRecords() {
    assertEquals(Map.of(), FileConcurrencyRecords.open(dir.resolve("absent")).load().records());
  }

  @Test
  void aWholeSurfacePassRoundTripsWithTheToolsAndThePlansReasons() {
    ProbePass pass = ProbePass.wholeSurface("id-1", 3, 2.5,
        ProbePass.Surface.of(List.of("set", "get"), Map.of("wipe", "destroys the operator's data")));
    ConcurrencyRecord shared = ConcurrencyRecord.shared("s", ShareScope.TENANT, 2, pass);
    String text = ConcurrencyRecordsCodec.format(shared);
    assertTrue(text.contains("\"tool\":\"*\""), text);
    assertTrue(text.contains("\"tools\":[\"set\",\"get\"]"), text);
    assertEquals(shared, ConcurrencyRecordsCodec.parseRecord("s", text));
  }

  /**
   * The client capabilities a pass covered are written sorted and read back; a pass written
   * before the field existed reads as covering clients that declare none, and writes no field.
   */
  @Test
  void theClientCapabilitiesAPassCoveredRoundTripAndAnOlderPassCoversNone() {
    ProbePass pass = ProbePass.wholeSurface("id-1", 3, 2.5,
        ProbePass.Surface.of(List.of("echo"), Map.of(), List.of("sampling", "roots", "elicitation")));
    ConcurrencyRecord shared = ConcurrencyRecord.shared("s", ShareScope.TENANT, 2, pass);
    String text = ConcurrencyRecordsCodec.format(shared);
    assertTrue(text.contains("\"clientCapabilities\":[\"elicitation\",\"roots\",\"sampling\"]"), text);
    ConcurrencyRecord read = ConcurrencyRecordsCodec.parseRecord("s", text);
    assertEquals(shared, read);
    assertTrue(read.probe().orElseThrow().coversClients(List.of("roots", "sampling")));

    ConcurrencyRecord older = ConcurrencyRecordsCodec.parseRecord("s", "{\"model\": \"shared\", \"maxConcurrent\": 2,"
        + " \"probe\": {\"identity\": \"id-1\", \"tool\": \"*\", \"rounds\": 3, \"surface\": {\"tools\": [\"echo\"]}}}");
    assertEquals(List.of(), older.probe().orElseThrow().surface().orElseThrow().clientCapabilities());
    assertTrue(older.probe().orElseThrow().coversClients(List.of()));
    assertFalse(older.probe().orElseThrow().coversClients(List.of("roots")));
    assertFalse(ConcurrencyRecordsCodec.format(older).contains("clientCapabilities"), ConcurrencyRecordsCodec.format(older));
  }

  @Test
  void aSharedEntryBackedByOneToolIsRefusedOnReadWithTheRecordsOwnMessage() {
    String refusal =
        readRefusal("{\"model\": \"shared\", \"maxConcurrent\": 2, \"probe\": {\"identity\": \"id\", \"tool\": \"echo\", \"rounds\": 5}}");
    assertTrue(refusal.startsWith("refusing model 'shared' for s on a single-tool statelessness probe (echo x5)"), refusal);
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "{\"tool\": \"*\", \"identity\": \"i\", \"rounds\": 3, \"surface\": []} | concurrency record of s: probe.surface must be an object",
      "{\"tool\": \"*\", \"identity\": \"i\", \"rounds\": 3, \"surface\": {}} | concurrency record of s: probe.surface.tools must be an array of tool names",
      "{\"tool\": \"*\", \"identity\": \"i\", \"rounds\": 3, \"surface\": {\"tools\": [1]}} | concurrency record of s: probe.surface.tools must hold only strings",
      "{\"tool\": \"*\", \"identity\": \"i\", \"rounds\": 3, \"surface\": {\"tools\": [], \"skipped\": {\"x\": 1}}} | concurrency record of s: the reason probe.surface.skipped.x must be a string",
      "{\"tool\": \"*\", \"identity\": \"i\", \"rounds\": 3, \"surface\": {\"tools\": [], \"clientCapabilities\": \"roots\"}} | concurrency record of s: probe.surface.clientCapabilities must be an array of capability names",
      "{\"tool\": \"*\", \"identity\": \"i\", \"rounds\": 3, \"surface\": {\"tools\": [], \"clientCapabilities\": [\"\"]}} | concurrency record of s: probe.surface.clientCapabilities must hold only capability names",
      "{\"tool\": \"echo\", \"identity\": \"i\", \"rounds\": 3, \"surface\": {\"tools\": []}} | a whole-surface probe pass must name the tool '*', not 'echo'"})
  void malformedSurfacesAreRefusedNamingTheField(String probe, String message) {
    assertEquals(message, readRefusal("{\"probe\": " + probe + "}"));
  }
}
