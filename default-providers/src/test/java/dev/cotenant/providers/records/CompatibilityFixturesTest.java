package dev.cotenant.providers.records;

import static dev.cotenant.api.HazardCode.CROSS_SESSION_LEAK;
import static dev.cotenant.api.HazardCode.UNATTRIBUTABLE_NOTIFICATION;
import static dev.cotenant.api.HazardCode.UNROUTABLE_SERVER_REQUEST;
import static dev.cotenant.providers.records.Fixtures.ID_1;
import static dev.cotenant.providers.records.Fixtures.ID_2;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.api.ExecutionIdentity;
import dev.cotenant.api.HazardCode;
import dev.cotenant.spi.HazardLedger;
import dev.cotenant.spi.HazardLedger.Observations;
import dev.cotenant.spi.PreflightCache;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every compatibility fixture under {@code src/test/resources/records} loads to its documented reading. */
class CompatibilityFixturesTest {
  @TempDir Path dir;

  private HazardLedger.Snapshot ledger(String fixture) {
    Fixtures.ledger(fixture, dir);
    return FileHazardLedger.open(dir).snapshot();
  }

  private PreflightCache.Snapshot cache(String fixture) {
    Fixtures.cache(fixture, dir);
    return FilePreflightCache.open(dir).snapshot();
  }

  @Test
  void ledgerWithoutIdentitiesFromAnOlderWriter() {
    assertEquals(
        Map.of("old-server", Map.of("", new Observations(Set.of(UNROUTABLE_SERVER_REQUEST), 4, 1700000000.5))),
        ledger("without-identities.json").servers());
  }

  @Test
  void ledgerWithBothShapesReadsTheIdentities() {
    assertEquals(
        Map.of(
            "blue-green",
            Map.of(
                ID_1, new Observations(Set.of(UNROUTABLE_SERVER_REQUEST), 2, 10.0),
                ID_2, new Observations(Set.of(UNATTRIBUTABLE_NOTIFICATION), 1, 20.0))),
        ledger("both-shapes.json").servers());
  }

  @Test
  void ledgerWithSchema2ReadsAsNothingObserved() {
    assertEquals(Map.of(), ledger("schema-2.json").servers());
  }

  @Test
  void ledgerWithUnknownCodesDropsThem() {
    assertEquals(
        Map.of("mixed", Map.of(ID_1, new Observations(Set.of(UNROUTABLE_SERVER_REQUEST), 3, 5.0))),
        ledger("unknown-codes.json").servers());
  }

  @Test
  void ledgerWithWrongTypesKeepsWhatCanBeRead() {
    assertEquals(
        Map.of(
            "identities-is-a-list", Map.of("", new Observations(Set.of(UNATTRIBUTABLE_NOTIFICATION), 2, 3.0)),
            "bad-count-and-time", Map.of(ID_1, new Observations(Set.of(CROSS_SESSION_LEAK), 1, 0.0))),
        ledger("wrong-types.json").servers());
  }

  @ParameterizedTest
  @MethodSource("dev.cotenant.providers.records.Fixtures#unusableLedgers")
  void unusableLedgerReadsAsNothingObserved(String fixture) {
    assertEquals(Map.of(), ledger(fixture).servers());
  }

  @Test
  void cacheEntryLackingRanIsDropped() {
    PreflightCache.Snapshot s = cache("entry-without-ran.json");
    assertEquals(Set.of("good"), s.rows().keySet());
    assertEquals(Optional.of("2.0.0"), s.rows().get("good").reportedVersion());
  }

  @Test
  void cacheRowFromAnotherSchemaIsDropped() {
    PreflightCache.Snapshot s = cache("other-schema.json");
    assertEquals(Set.of("current"), s.rows().keySet());
    assertEquals(false, s.rows().get("current").ran());
    assertEquals(java.util.List.of("needs a credential"), s.rows().get("current").reasons());
  }

  @Test
  void cacheRowWithAReportedVersionMismatchIsDroppedWhenReadWithTheNewVersion() {
    Fixtures.cache("version-mismatch.json", dir);
    FilePreflightCache c = FilePreflightCache.open(dir);
    assertTrue(c.snapshot().rows().containsKey("upgraded-upstream"));
    assertEquals(
        Optional.empty(),
        c.lookup("upgraded-upstream", Fixtures.cacheKey("upgraded-upstream", ExecutionIdentity.PREFLIGHT_SCHEMA), Optional.of("2.0.0")));
    assertEquals(Set.of(), c.snapshot().rows().keySet());
  }

  @Test
  void cacheRowWithAnIdentityMismatchIsKeptButUnmeasured() {
    Fixtures.cache("identity-mismatch.json", dir);
    FilePreflightCache c = FilePreflightCache.open(dir);
    String now = "reconfigured\0" + Fixtures.ID_1 + "\0" + Fixtures.ID_2 + "\0unknown\0" + ExecutionIdentity.PREFLIGHT_SCHEMA;
    assertEquals(Optional.empty(), c.lookup("reconfigured", now, Optional.empty()));
    assertEquals(Set.of("reconfigured"), c.snapshot().rows().keySet());
  }

  @Test
  void cacheAppliedNamesNoLongerConfiguredAreKept() {
    assertEquals(
        Set.of("still-configured", "removed-last-month", "switched-off-by-operator"),
        cache("applied-not-configured.json").applied());
  }

  @ParameterizedTest
  @ValueSource(strings = {"truncated.json", "zero-bytes.json", "wrong-types.json"})
  void unusableCacheReadsAsEmpty(String fixture) {
    assertEquals(PreflightCache.Snapshot.empty(), cache(fixture));
  }

  @Test
  void aLedgerWrittenHereIsReadByTheRulesOfAnOlderReader() throws Exception {
    FileHazardLedger l = FileHazardLedger.open(dir);
    l.record("srv", ID_1, UNROUTABLE_SERVER_REQUEST, 2);
    l.record("srv", ID_2, CROSS_SESSION_LEAK, 2);
    l.flush();
    // An older reader knows only the flat fields.
    var srv = RecordsJson.MAPPER.readTree(java.nio.file.Files.readAllBytes(l.file())).get("servers").get("srv");
    Set<HazardCode> flat = new java.util.HashSet<>();
    srv.get("codes").forEach(n -> flat.add(HazardCode.parse(n.stringValue())));
    assertEquals(Set.of(UNROUTABLE_SERVER_REQUEST, CROSS_SESSION_LEAK), flat);
    assertEquals(2, srv.get("count").longValue());
  }
}
