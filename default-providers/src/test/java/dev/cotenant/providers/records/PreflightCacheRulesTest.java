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

/** One test per rule of DESIGN §4.2, named after the rule. */
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

  private static Set<String> toSet(java.util.Collection<String> names) {
    return Set.copyOf(names);
  }
}
