package dev.cotenant.providers.records;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.api.ExecutionIdentity;
import dev.cotenant.api.HandshakeFacts;
import dev.cotenant.api.ToolFacts;
import dev.cotenant.spi.PreflightCache;
import dev.cotenant.spi.PreflightRecord;
import dev.cotenant.spi.StartRecording;
import dev.cotenant.spi.files.AtomicFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** One test per rule of docs/records.md, named after the rule. */
class PreflightCacheRulesTest {
  @TempDir Path dir;

  static final String SCHEMA = ExecutionIdentity.PREFLIGHT_SCHEMA;

  static PreflightRecord row(String name, String identity, Optional<String> version) {
    return new PreflightRecord(name, identity, true, false, List.of(), 12.5, version, Optional.empty());
  }

  static HandshakeFacts handshake() {
    Map<String, Object> caps = new LinkedHashMap<>();
    caps.put("logging", Map.of());
    caps.put("tools", Map.of("listChanged", true));
    caps.put("experimental", Map.of("cotenant.caller-identity", Map.of()));
    Map<String, Object> annotations = new LinkedHashMap<>();
    annotations.put("readOnlyHint", true);
    annotations.put("title", "Read");
    return HandshakeFacts.fromJson(
        "2025-06-18",
        caps,
        Map.of("name", "srv", "version", "1.0.0"),
        List.of(new ToolFacts("read", Optional.of(annotations)), ToolFacts.unannotated("write")));
  }

  @Test
  void handshakeIsOptionalInTheRowAndRoundTrips() throws IOException {
    FilePreflightCache c = FilePreflightCache.open(dir);
    String id = Fixtures.cacheKey("srv", SCHEMA);
    PreflightRecord withHandshake =
        new PreflightRecord("srv", id, true, true, List.of("tools"), 3.0, Optional.of("1.0.0"), Optional.of(handshake()));
    c.put(withHandshake);
    c.put(row("bare", Fixtures.cacheKey("bare", SCHEMA), Optional.empty()));
    c.flush();
    PreflightCache.Snapshot s = FilePreflightCache.open(dir).snapshot();
    assertEquals(withHandshake, s.rows().get("srv"));
    assertEquals(Optional.empty(), s.rows().get("bare").handshake());
    assertEquals(Optional.empty(), s.rows().get("bare").reportedVersion());
    var entries = RecordsJson.MAPPER.readTree(Files.readAllBytes(c.file())).get("entries");
    assertFalse(entries.get("bare").has("handshake"));
    assertTrue(entries.get("srv").get("handshake").get("capabilityPaths").isArray());
  }

  @Test
  void oneRowPerConfiguredServerKeyedByNameWithTheIdentityInsideTheRow() throws IOException {
    FilePreflightCache c = FilePreflightCache.open(dir);
    c.put(row("srv", Fixtures.cacheKey("srv", SCHEMA), Optional.empty()));
    String edited = "srv\0" + "9".repeat(64) + "\0" + "8".repeat(64) + "\0unknown\0" + SCHEMA;
    c.put(row("srv", edited, Optional.empty()));
    c.flush();
    PreflightCache.Snapshot s = FilePreflightCache.open(dir).snapshot();
    assertEquals(Set.of("srv"), s.rows().keySet());
    assertEquals(edited, s.rows().get("srv").identity());
    assertTrue(Files.readString(c.file()).contains("\"identity\""));
  }

  @Test
  void aReadUnderADifferentIdentityIsNoMeasurementAndTheRowIsKept() throws IOException {
    Fixtures.cache("identity-mismatch.json", dir);
    FilePreflightCache c = FilePreflightCache.open(dir);
    String current = "reconfigured\0" + Fixtures.ID_1 + "\0" + Fixtures.ID_2 + "\0unknown\0" + SCHEMA;
    assertEquals(Optional.empty(), c.lookup("reconfigured", current, Optional.of("1.2.3")));
    assertEquals(Optional.empty(), c.snapshot().measurement("reconfigured", current));
    assertTrue(c.snapshot().rows().containsKey("reconfigured"));
    assertFalse(c.hasUnflushed());
    Optional<PreflightRecord> same = c.lookup("reconfigured", Fixtures.cacheKey("reconfigured", SCHEMA), Optional.empty());
    assertTrue(same.isPresent());
    assertEquals(List.of("tools"), same.get().reasons());
  }

  @Test
  void aReportedVersionMismatchDropsTheRow() throws IOException {
    Fixtures.cache("version-mismatch.json", dir);
    FilePreflightCache c = FilePreflightCache.open(dir);
    String id = Fixtures.cacheKey("upgraded-upstream", SCHEMA);
    assertEquals(Optional.empty(), c.lookup("upgraded-upstream", id, Optional.of("1.3.0")));
    assertFalse(c.snapshot().rows().containsKey("upgraded-upstream"), "dropped, not hidden");
    c.flush();
    PreflightCache.Snapshot s = FilePreflightCache.open(dir).snapshot();
    assertFalse(s.rows().containsKey("upgraded-upstream"));
    assertEquals(Set.of("upgraded-upstream"), s.applied());
  }

  @Test
  void aReportedVersionOnlyInvalidatesWhenBothSidesKnowOne() {
    Fixtures.cache("version-mismatch.json", dir);
    FilePreflightCache c = FilePreflightCache.open(dir);
    String id = Fixtures.cacheKey("upgraded-upstream", SCHEMA);
    assertTrue(c.lookup("upgraded-upstream", id, Optional.empty()).isPresent());
    assertTrue(c.lookup("upgraded-upstream", id, Optional.of("1.2.3")).isPresent());
    c.put(row("unversioned", Fixtures.cacheKey("unversioned", SCHEMA), Optional.empty()));
    assertTrue(c.lookup("unversioned", Fixtures.cacheKey("unversioned", SCHEMA), Optional.of("9.9")).isPresent());
  }

  @Test
  void aRowWhoseIdentityCarriesAnotherSchemaIsDroppedOnRead() throws IOException {
    Fixtures.cache("other-schema.json", dir);
    FilePreflightCache c = FilePreflightCache.open(dir);
    assertEquals(Set.of("current"), c.snapshot().rows().keySet());
    c.markApplied("current");
    c.flush();
    String written = Files.readString(c.file());
    assertFalse(written.contains("older-prober"));
    assertFalse(written.contains("newer-prober"));
  }

  @Test
  void aRowUnderAnotherSchemaIsRefusedOnWrite() {
    FilePreflightCache c = FilePreflightCache.open(dir);
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> c.put(row("srv", Fixtures.cacheKey("srv", "preflight-0"), Optional.empty())));
    assertTrue(e.getMessage().contains("preflight-0"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> c.put(row("srv", "not-a-key", Optional.empty())));
  }

  @Test
  void anEntryThatCannotSayWhetherThePreflightRanIsDroppedOnRead() {
    Fixtures.cache("entry-without-ran.json", dir);
    FilePreflightCache c = FilePreflightCache.open(dir);
    assertEquals(Set.of("good"), c.snapshot().rows().keySet());
  }

  @Test
  void anAbsentOrCorruptFileReadsAsEmpty() {
    assertEquals(PreflightCache.Snapshot.empty(), FilePreflightCache.open(dir).snapshot());
    for (String f : List.of("truncated.json", "zero-bytes.json")) {
      Path d = dir.resolve(f);
      Fixtures.cache(f, d);
      assertEquals(PreflightCache.Snapshot.empty(), FilePreflightCache.open(d).snapshot(), f);
    }
  }

  @Test
  void appliedIsKeyedByNameAndNeverPruned() throws IOException {
    Fixtures.cache("applied-not-configured.json", dir);
    FilePreflightCache c = FilePreflightCache.open(dir);
    assertEquals(Set.of("still-configured", "removed-last-month", "switched-off-by-operator"), c.snapshot().applied());
    // A new binary (new identity) for a seeded server does not clear its marker.
    c.put(row("switched-off-by-operator", Fixtures.cacheKey("switched-off-by-operator", SCHEMA), Optional.of("2")));
    c.drop("still-configured");
    c.markApplied("new-server");
    c.flush();
    assertEquals(
        Set.of("still-configured", "removed-last-month", "switched-off-by-operator", "new-server"),
        FilePreflightCache.open(dir).snapshot().applied());
  }

  @Test
  void onlyTheMeasurementIsCachedNeverTheCompositeVerdict() throws IOException {
    FilePreflightCache c = FilePreflightCache.open(dir);
    c.put(row("srv", Fixtures.cacheKey("srv", SCHEMA), Optional.of("1")));
    c.flush();
    var root = RecordsJson.MAPPER.readTree(Files.readAllBytes(c.file()));
    assertEquals(
        Set.of("identity", "ran", "callerSensitive", "reasons", "evaluatedAt", "reportedVersion"),
        toSet(root.get("entries").get("srv").propertyNames()));
    assertEquals(Set.of("entries", "applied"), toSet(root.propertyNames()));
  }

  @Test
  void twoWritersOfOneCacheLoseNothing() throws IOException {
    FilePreflightCache a = FilePreflightCache.open(dir);
    FilePreflightCache b = FilePreflightCache.open(dir);
    a.put(row("from-a", Fixtures.cacheKey("from-a", SCHEMA), Optional.empty()));
    a.markApplied("from-a");
    b.put(row("from-b", Fixtures.cacheKey("from-b", SCHEMA), Optional.empty()));
    b.markApplied("from-b");
    a.flush();
    b.flush();
    PreflightCache.Snapshot s = FilePreflightCache.open(dir).snapshot();
    assertEquals(Set.of("from-a", "from-b"), s.rows().keySet());
    assertEquals(Set.of("from-a", "from-b"), s.applied());
    assertEquals(Set.of("from-a", "from-b"), b.snapshot().rows().keySet());
    assertEquals(Set.of("from-a"), a.snapshot().rows().keySet(), "a sees b's rows after load()");
    assertEquals(Set.of("from-a", "from-b"), a.load().rows().keySet());
  }

  @Test
  void aDropDoesNotRemoveANewerMeasurementWrittenMeanwhile() throws IOException {
    FilePreflightCache a = FilePreflightCache.open(dir);
    a.put(row("srv", Fixtures.cacheKey("srv", SCHEMA), Optional.of("1")));
    a.flush();
    FilePreflightCache b = FilePreflightCache.open(dir);
    a.lookup("srv", Fixtures.cacheKey("srv", SCHEMA), Optional.of("2"));
    PreflightRecord remeasured = row("srv", Fixtures.cacheKey("srv", SCHEMA), Optional.of("2"));
    b.put(remeasured);
    b.flush();
    a.flush();
    assertEquals(remeasured, FilePreflightCache.open(dir).snapshot().rows().get("srv"));
  }

  static StartRecording start() {
    java.util.TreeMap<String, List<Map<String, Object>>> listings = new java.util.TreeMap<>();
    listings.put("tools/list", List.of(
        Map.of("result", Map.of("tools", List.of(Map.of("name", "a", "inputSchema", Map.of("type", "object"))),
            "nextCursor", "p2")),
        Map.of("result", Map.of("tools", List.of(Map.of("name", "b", "description", "two", "n", 1.5))))));
    listings.put("prompts/list", List.of(Map.of("error", Map.of("code", -32601, "message", "no prompts"))));
    return new StartRecording(new java.util.TreeMap<>(Map.of("2025-11-25", "2025-11-25", "2025-06-18", "2025-06-18")),
        List.of("roots", "sampling"), Map.of("capabilities", Map.of("tools", Map.of("listChanged", true)),
            "serverInfo", Map.of("name", "srv", "version", "1"), "instructions", "use it"), listings);
  }

  @Test
  void aStartRecordingIsOptionalInTheRowAndRoundTrips() throws IOException {
    FilePreflightCache c = FilePreflightCache.open(dir);
    c.put(new PreflightRecord("rec", Fixtures.cacheKey("rec", SCHEMA), true, false, List.of(), 3.0, Optional.empty(),
        Optional.of(handshake()), Optional.of(start()), ""));
    c.put(new PreflightRecord("why", Fixtures.cacheKey("why", SCHEMA), true, false, List.of(), 3.0, Optional.empty(),
        Optional.of(handshake()), Optional.empty(), "it sent a notification notifications/message before its listings ended"));
    c.put(row("old", Fixtures.cacheKey("old", SCHEMA), Optional.empty()));
    c.flush();
    PreflightCache.Snapshot s = FilePreflightCache.open(dir).snapshot();
    assertTrue(dev.cotenant.api.Json.same(start().toJson(), s.rows().get("rec").start().orElseThrow().toJson()));
    assertEquals("", s.rows().get("rec").startNotRecorded());
    assertEquals(Optional.empty(), s.rows().get("why").start());
    assertEquals("it sent a notification notifications/message before its listings ended",
        s.rows().get("why").startNotRecorded());
    assertEquals(Optional.empty(), s.rows().get("old").start());
    assertEquals("", s.rows().get("old").startNotRecorded());
    var entries = RecordsJson.MAPPER.readTree(Files.readAllBytes(c.file())).get("entries");
    assertFalse(entries.get("old").has("start"));
    assertFalse(entries.get("old").has("startNotRecorded"));
    assertEquals("use it", entries.get("rec").get("start").get("initialize").get("instructions").stringValue());
  }

  @Test
  void aMalformedStartIsNotReadAndTheRowKeptSayingWhy() throws IOException {
    Files.writeString(dir.resolve("shareability-verdicts.json"), "{\"entries\": {\"srv\": {\"identity\": \""
        + Fixtures.cacheKey("srv", SCHEMA).replace("\0", "\\u0000") + "\", \"ran\": true, \"callerSensitive\": false,"
        + " \"reasons\": [], \"evaluatedAt\": 1.0, \"start\": {\"versions\": {}, \"clientCapabilities\": [],"
        + " \"initialize\": {}, \"listings\": {}}}}, \"applied\": []}");
    PreflightRecord r = FilePreflightCache.open(dir).snapshot().rows().get("srv");
    assertTrue(r.ran());
    assertEquals(Optional.empty(), r.start());
    assertEquals("the recorded start could not be read: its versions are not an object of versions", r.startNotRecorded());
  }

  @Test
  void aMalformedHandshakeIsIgnoredAndTheRowKept() {
    Fixtures.cache("with-handshake.json", dir);
    FilePreflightCache c = FilePreflightCache.open(dir);
    PreflightRecord probed = c.snapshot().rows().get("probed");
    assertTrue(probed.handshake().isPresent());
    assertTrue(probed.handshake().get().hasCapability("logging"));
    assertEquals(Optional.of("0.9"), probed.handshake().get().reportedVersion());
    assertEquals(2, probed.handshake().get().tools().size());
    assertTrue(probed.handshake().get().tools().get(0).readOnly());
    assertEquals(Optional.empty(), c.snapshot().rows().get("bad-handshake").handshake());
  }

  @Test
  void aHandshakeTooDeepForTheReaderIsLeftOutAndTheRowKept() throws IOException {
    Object deep = "leaf";
    for (int i = 0; i < 200; i++) {
      deep = Map.of("n", deep);
    }
    HandshakeFacts hostile = HandshakeFacts.fromJson("2025-06-18", Map.of(), Map.of("name", "x", "nested", deep), List.of());
    FilePreflightCache c = FilePreflightCache.open(dir);
    String id = Fixtures.cacheKey("deep", SCHEMA);
    c.put(new PreflightRecord("deep", id, true, false, List.of(), 1.0, Optional.empty(), Optional.of(hostile)));
    c.put(row("other", Fixtures.cacheKey("other", SCHEMA), Optional.empty()));
    c.flush();
    PreflightCache.Snapshot s = FilePreflightCache.open(dir).snapshot();
    assertEquals(Set.of("deep", "other"), s.rows().keySet());
    assertEquals(Optional.empty(), s.rows().get("deep").handshake());
    assertTrue(s.rows().get("deep").ran());
  }

  @Test
  void aDropSaysWhetherThereWasARowAndTheDroppedRowIsGoneFromTheFile() throws IOException {
    // Kills FilePreflightCache.drop, `removed != null` negated before the pending drop
    // (NegateConditionalsMutator: the drop never reaches the file) and its return replaced with
    // true (BooleanTrueReturnValsMutator).
    FilePreflightCache c = FilePreflightCache.open(dir);
    c.put(row("srv", Fixtures.cacheKey("srv", SCHEMA), Optional.empty()));
    c.put(row("kept", Fixtures.cacheKey("kept", SCHEMA), Optional.empty()));
    c.flush();
    assertFalse(c.drop("never-measured"));
    assertTrue(c.drop("srv"));
    assertFalse(c.drop("srv"), "a second drop finds nothing");
    c.flush();
    assertEquals(Set.of("kept"), FilePreflightCache.open(dir).snapshot().rows().keySet());
  }

  @Test
  void aLoadKeepsWhatWasPutOrDroppedHereButNotYetFlushed() throws IOException {
    // Kills FilePreflightCache.load, the call to overlayPending removed (VoidMethodCallMutator):
    // a load would then forget this writer's own unflushed measurement and bring back its drop.
    FilePreflightCache c = FilePreflightCache.open(dir);
    c.put(row("old", Fixtures.cacheKey("old", SCHEMA), Optional.empty()));
    c.flush();
    PreflightRecord fresh = row("fresh", Fixtures.cacheKey("fresh", SCHEMA), Optional.empty());
    c.put(fresh);
    c.drop("old");
    c.markApplied("fresh");
    PreflightCache.Snapshot s = c.load();
    assertEquals(Set.of("fresh"), s.rows().keySet());
    assertEquals(fresh, s.rows().get("fresh"));
    assertEquals(Set.of("fresh"), s.applied());
  }

  @Test
  void aFlushLeavesNothingUnflushedAndDoesNotWriteItsChangesAgainOverALaterWriter() throws IOException {
    // Kills FilePreflightCache.flush, each of the calls that empty the pending puts, drops and
    // applied markers removed (VoidMethodCallMutator): the cache would stay unflushed for ever,
    // and a later flush would write its old put over another writer's newer row, or drop again a
    // row another writer measured anew.
    FilePreflightCache a = FilePreflightCache.open(dir);
    PreflightRecord first = row("srv", Fixtures.cacheKey("srv", SCHEMA), Optional.of("1"));
    PreflightRecord gone = row("gone", Fixtures.cacheKey("gone", SCHEMA), Optional.empty());
    a.put(first);
    a.put(gone);
    a.markApplied("srv");
    a.flush();
    assertFalse(a.hasUnflushed());
    a.drop("gone");
    a.flush();
    assertFalse(a.hasUnflushed());

    FilePreflightCache b = FilePreflightCache.open(dir);
    PreflightRecord newer = row("srv", Fixtures.cacheKey("srv", SCHEMA), Optional.of("2"));
    b.put(newer);
    b.put(gone);
    b.flush();

    a.markApplied("other");
    a.flush();
    PreflightCache.Snapshot s = FilePreflightCache.open(dir).snapshot();
    assertEquals(newer, s.rows().get("srv"), "b's newer row, not a's first one written again");
    assertEquals(gone, s.rows().get("gone"), "b measured it again after a's drop");
    assertEquals(Set.of("srv", "other"), s.applied());
  }

  @Test
  void aDeletedCacheFileIsAClearedCacheAndOnlyWhatIsPendingIsWritten() throws IOException {
    // Kills FilePreflightCache.flush, `!why.isEmpty()` negated (NegateConditionalsMutator): a
    // missing file would then be rewritten from memory, bringing back every row measured before
    // its deletion. A deleted cache costs a pre-flight, never a wrong verdict; the hazard ledger,
    // which holds evidence against sharing, is rewritten from memory instead.
    FilePreflightCache c = FilePreflightCache.open(dir);
    c.put(row("before", Fixtures.cacheKey("before", SCHEMA), Optional.empty()));
    c.markApplied("before");
    c.flush();
    Files.delete(c.file());
    c.put(row("after", Fixtures.cacheKey("after", SCHEMA), Optional.empty()));
    c.flush();
    PreflightCache.Snapshot s = FilePreflightCache.open(dir).snapshot();
    assertEquals(Set.of("after"), s.rows().keySet());
    assertEquals(Set.of(), s.applied());
    assertFalse(Files.exists(dir.resolve(c.file().getFileName() + ".corrupt")), "nothing to move aside");
  }

  @Test
  void aHandshakeExactlyAsDeepAsTheBoundIsKeptAndOneLevelDeeperIsLeftOut() throws IOException {
    // Kills CacheCodec.shallowEnough, `> MAX_HANDSHAKE_DEPTH` changed to `>=` for the serverInfo
    // and for a tool's annotations (ConditionalsBoundaryMutator). A leaf under k nested objects
    // of serverInfo (or of the annotations) sits at depth k + 1; the bound is 32.
    FilePreflightCache c = FilePreflightCache.open(dir);
    for (int k : new int[] {CacheCodec.MAX_HANDSHAKE_DEPTH - 1, CacheCodec.MAX_HANDSHAKE_DEPTH}) {
      HandshakeFacts info = HandshakeFacts.fromJson("2025-06-18", Map.of(), Map.of("name", "x", "nested", nested(k)), List.of());
      HandshakeFacts annotated = HandshakeFacts.fromJson(
          "2025-06-18", Map.of(), Map.of("name", "x"), List.of(new ToolFacts("t", Optional.of(Map.of("nested", nested(k))))));
      c.put(new PreflightRecord("info-" + k, Fixtures.cacheKey("info-" + k, SCHEMA), true, false, List.of(), 1.0, Optional.empty(), Optional.of(info)));
      c.put(new PreflightRecord("tool-" + k, Fixtures.cacheKey("tool-" + k, SCHEMA), true, false, List.of(), 1.0, Optional.empty(), Optional.of(annotated)));
    }
    c.flush();
    Map<String, PreflightRecord> rows = FilePreflightCache.open(dir).snapshot().rows();
    int kept = CacheCodec.MAX_HANDSHAKE_DEPTH - 1;
    int deeper = CacheCodec.MAX_HANDSHAKE_DEPTH;
    assertTrue(rows.get("info-" + kept).handshake().isPresent(), "serverInfo at the bound");
    assertTrue(rows.get("tool-" + kept).handshake().isPresent(), "annotations at the bound");
    assertEquals(Optional.empty(), rows.get("info-" + deeper).handshake(), "serverInfo one level deeper");
    assertEquals(Optional.empty(), rows.get("tool-" + deeper).handshake(), "annotations one level deeper");
  }

  private static Object nested(int levels) {
    Object v = "leaf";
    for (int i = 0; i < levels; i++) {
      v = Map.of("n", v);
    }
    return v;
  }

  @Test
  void listsCountTowardsTheDepthBoundAsObjectsDo() throws IOException {
    // Kills CacheCodec.depth, `d + 1` changed to `d - 1` in its loop over a list's items
    // (MathMutator): lists nested beyond the bound were counted as shallow and written.
    FilePreflightCache c = FilePreflightCache.open(dir);
    for (int k : new int[] {CacheCodec.MAX_HANDSHAKE_DEPTH - 1, CacheCodec.MAX_HANDSHAKE_DEPTH}) {
      Object v = "leaf";
      for (int i = 0; i < k; i++) {
        v = List.of(v);
      }
      HandshakeFacts info = HandshakeFacts.fromJson("2025-06-18", Map.of(), Map.of("name", "x", "nested", v), List.of());
      c.put(new PreflightRecord("list-" + k, Fixtures.cacheKey("list-" + k, SCHEMA), true, false, List.of(), 1.0, Optional.empty(), Optional.of(info)));
    }
    c.flush();
    Map<String, PreflightRecord> rows = FilePreflightCache.open(dir).snapshot().rows();
    assertTrue(rows.get("list-" + (CacheCodec.MAX_HANDSHAKE_DEPTH - 1)).handshake().isPresent(), "lists at the bound");
    assertEquals(Optional.empty(), rows.get("list-" + CacheCodec.MAX_HANDSHAKE_DEPTH).handshake(), "lists one level deeper");
  }

  @Test
  void rowsDroppedOnReadAreNamedInTheLogEachKindOnItsOwnLine() {
    // Kills FilePreflightCache.load, the call to logDropped removed (VoidMethodCallMutator);
    // logDropped, either emptiness check negated (NegateConditionalsMutator); and names,
    // returning "" (EmptyObjectReturnValsMutator) or with `sb.length() > 0` negated or changed to
    // `>= 0` (a separator before the first name).
    Fixtures.cache("entry-without-ran.json", dir);
    String malformed = IncompleteReadsTest.captureErr(() -> FilePreflightCache.open(dir));
    assertEquals(
        List.of("dropped 3 pre-flight row(s) of " + dir.resolve(FilePreflightCache.FILE_NAME)
            + " that cannot say whether the pre-flight ran or under which identity: no-ran, ran-is-a-string, ran-without-caller-sensitive"),
        droppedLines(malformed));

    Path other = dir.resolve("other");
    Fixtures.cache("other-schema.json", other);
    String foreign = IncompleteReadsTest.captureErr(() -> FilePreflightCache.open(other));
    assertEquals(
        List.of(
            "dropped 2 pre-flight row(s) measured under another schema than " + SCHEMA + ": older-prober, newer-prober",
            "dropped 2 pre-flight row(s) of " + other.resolve(FilePreflightCache.FILE_NAME)
                + " that cannot say whether the pre-flight ran or under which identity: key-by-identity-shape, four-fields"),
        droppedLines(foreign));
  }

  @Test
  void aLongListOfDroppedRowsIsCutOnlyAfterItPassesFourHundredCharacters() throws IOException {
    // Kills FilePreflightCache.names, `sb.length() > 400` changed to `>= 400`
    // (ConditionalsBoundaryMutator): names of 10 and 5 x 76 characters with their separators
    // make exactly 400, so the seventh name is still listed before the cut.
    List<String> names = new java.util.ArrayList<>();
    names.add("a".repeat(10));
    for (char ch = 'b'; ch <= 'g'; ch++) {
      names.add(String.valueOf(ch).repeat(76));
    }
    StringBuilder json = new StringBuilder("{\"entries\": {");
    for (String n : names) {
      if (json.length() > 13) {
        json.append(", ");
      }
      String identity = Fixtures.cacheKey(n, "preflight-0").replace("\0", "\\u0000");
      json.append('"').append(n).append("\": {\"identity\": \"").append(identity)
          .append("\", \"ran\": true, \"callerSensitive\": false, \"reasons\": [], \"evaluatedAt\": 1.0}");
    }
    json.append("}, \"applied\": []}");
    Files.writeString(dir.resolve(FilePreflightCache.FILE_NAME), json.toString());
    String log = IncompleteReadsTest.captureErr(() -> FilePreflightCache.open(dir));
    List<String> lines = droppedLines(log);
    assertEquals(
        List.of("dropped 7 pre-flight row(s) measured under another schema than " + SCHEMA + ": " + String.join(", ", names) + ", …"),
        lines);
  }

  @Test
  void anUnreadableCacheIsWarnedAboutOnLoadAndAMissingOneIsNot() {
    // Kills FilePreflightCache.load, `!why.isEmpty()` negated (NegateConditionalsMutator) and
    // the call to RecordsJson.warnUnreadable removed (VoidMethodCallMutator).
    String missing = IncompleteReadsTest.captureErr(() -> FilePreflightCache.open(dir));
    assertEquals(List.of(), missing.lines().filter(l -> l.contains("WARN")).collect(java.util.stream.Collectors.toList()));
    Fixtures.cache("truncated.json", dir);
    String corrupt = IncompleteReadsTest.captureErr(() -> FilePreflightCache.open(dir));
    List<String> warnings = corrupt.lines().filter(l -> l.contains("WARN")).collect(java.util.stream.Collectors.toList());
    assertEquals(1, warnings.size(), corrupt);
    assertTrue(warnings.get(0).contains(dir.resolve(FilePreflightCache.FILE_NAME) + " is not valid JSON"), warnings.get(0));
    assertTrue(warnings.get(0).endsWith("it reads as an empty pre-flight cache"), warnings.get(0));
  }

  private static List<String> droppedLines(String log) {
    return log.lines()
        .filter(l -> l.contains(" - dropped "))
        .map(l -> l.substring(l.indexOf(" - dropped ") + 3))
        .collect(java.util.stream.Collectors.toList());
  }

  @Test
  void aFlushDeletesATempFileADeadWriterLeft() throws IOException {
    // Kills FilePreflightCache.flush, the call to AtomicFiles.deleteStaleTemps removed
    // (VoidMethodCallMutator).
    FilePreflightCache c = FilePreflightCache.open(dir);
    Path stale = dir.resolve(AtomicFiles.tempPrefix(c.file()) + "4711.tmp");
    Files.writeString(stale, "{\"entries\": {");
    c.put(row("srv", Fixtures.cacheKey("srv", SCHEMA), Optional.empty()));
    c.flush();
    assertFalse(Files.exists(stale), "the dead writer's temp file");
    assertEquals(Set.of("srv"), FilePreflightCache.open(dir).snapshot().rows().keySet());
  }

  @Test
  void everyKindOfJsonValueInAStoredHandshakeRoundTrips() throws IOException {
    // Covers RecordsJson.node and RecordsJson.plain for each JSON kind: lists, strings, booleans,
    // longs, integers beyond a long, decimals, doubles and null, in serverInfo and annotations.
    Map<String, Object> info = new LinkedHashMap<>();
    info.put("name", "x");
    info.put("list", List.of(1L, "two", true, dev.cotenant.api.Json.NULL, List.of(), Map.of()));
    info.put("long", 5_000_000_000L);
    info.put("big", java.math.BigInteger.TWO.pow(70));
    info.put("double", 2.5);
    info.put("flag", false);
    info.put("nothing", dev.cotenant.api.Json.NULL);
    info.put("decimal", new java.math.BigDecimal("0.1000000000000000055511151231257827"));
    Map<String, Object> annotations = new LinkedHashMap<>(info);
    annotations.remove("decimal");
    info.remove("decimal");
    HandshakeFacts h = HandshakeFacts.fromJson("2025-06-18", Map.of(), info, List.of(new ToolFacts("t", Optional.of(annotations))));
    Map<String, Object> withDecimal = new LinkedHashMap<>(info);
    withDecimal.put("decimal", new java.math.BigDecimal("0.1000000000000000055511151231257827"));
    HandshakeFacts d = HandshakeFacts.fromJson("2025-06-18", Map.of(), withDecimal, List.of());
    FilePreflightCache c = FilePreflightCache.open(dir);
    c.put(new PreflightRecord("srv", Fixtures.cacheKey("srv", SCHEMA), true, false, List.of(), 1.0, Optional.empty(), Optional.of(h)));
    c.put(new PreflightRecord("dec", Fixtures.cacheKey("dec", SCHEMA), true, false, List.of(), 1.0, Optional.empty(), Optional.of(d)));
    c.flush();
    Map<String, PreflightRecord> rows = FilePreflightCache.open(dir).snapshot().rows();
    assertEquals(h, rows.get("srv").handshake().orElseThrow());
    // A decimal is written with all its digits (a double would print as 0.1).
    assertTrue(Files.readString(c.file()).contains("0.1000000000000000055511151231257827"), Files.readString(c.file()));
    assertEquals(0.1, ((Number) rows.get("dec").handshake().orElseThrow().serverInfo().get("decimal")).doubleValue());
  }

  private static Set<String> toSet(java.util.Collection<String> names) {
    return Set.copyOf(names);
  }
}
