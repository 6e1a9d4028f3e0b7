package dev.cotenant.gateway.rows;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.equivalentTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.lang.syntax.ArchRuleDefinition;
import dev.cotenant.api.ExecutionIdentity;
import dev.cotenant.api.HandshakeFacts;
import dev.cotenant.api.HazardCode;
import dev.cotenant.api.ReasonCode;
import dev.cotenant.api.ServerDescription;
import dev.cotenant.api.Strength;
import dev.cotenant.gateway.Cotenant;
import dev.cotenant.gateway.config.ConfiguredServer;
import dev.cotenant.gateway.identity.IdentityResolver;
import dev.cotenant.gateway.identity.ExecutionIdentities;
import dev.cotenant.providers.records.FileHazardLedger;
import dev.cotenant.providers.records.FilePreflightCache;
import dev.cotenant.spi.HazardLedger;
import dev.cotenant.spi.PreflightCache;
import dev.cotenant.spi.PreflightRecord;
import dev.cotenant.spi.RecordStores;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Rows load both records once and are then built purely from the loaded state (docs/integration.md). */
class RowsTest {
  private static final int SERVERS = 1_000;
  private static final HandshakeFacts LOGGING =
      HandshakeFacts.fromJson("2025-06-18", Map.of("logging", Map.of(), "tools", Map.of()), Map.of("name", "s"), List.of());

  @TempDir Path tmp;

  private final ExecutionIdentities identities = ExecutionIdentities.fromConfig(dev.cotenant.spi.ProviderConfig.empty(), Map.of("PATH", ""));
  private final Cotenant cotenant = Cotenant.builder().recordsDirectory(Path.of("/unused")).build();

  private static List<ConfiguredServer> servers(Path source) {
    List<ConfiguredServer> out = new ArrayList<>();
    for (int i = 0; i < SERVERS; i++) {
      String name = String.format("srv-%04d", i);
      out.add(new ConfiguredServer(ServerDescription.stdio(name, "/nonexistent/cotenant-rows-test/" + name), source));
    }
    return out;
  }

  /**
   * Writes, for server i: i%5==0 a passed measurement (with a logging handshake), 1 a divergent
   * one, 2 a passed one plus a hazard under its identity, 3 a measurement under another
   * identity, 4 nothing.
   */
  private void populate(Path records, List<ConfiguredServer> servers) throws IOException {
    FilePreflightCache cache = FilePreflightCache.open(records);
    FileHazardLedger ledger = FileHazardLedger.open(records);
    for (int i = 0; i < servers.size(); i++) {
      ServerDescription s = servers.get(i).description();
      ExecutionIdentity id = identities.identify(s);
      switch (i % 5) {
        case 0:
          cache.put(new PreflightRecord(s.name(), id.cacheKey(), true, false, List.of(), 1.0, Optional.empty(), Optional.of(LOGGING)));
          break;
        case 1:
          cache.put(new PreflightRecord(s.name(), id.cacheKey(), true, true, List.of("tools"), 1.0, Optional.empty(), Optional.of(LOGGING)));
          break;
        case 2:
          cache.put(new PreflightRecord(s.name(), id.cacheKey(), true, false, List.of(), 1.0, Optional.empty(), Optional.of(LOGGING)));
          ledger.record(s.name(), id.ledgerKey(), HazardCode.UNROUTABLE_SERVER_REQUEST, 2);
          break;
        case 3:
          ExecutionIdentity other =
              new ExecutionIdentity(id.serverName(), id.commandArgsHash(), id.envHash(), "/old/binary|1|x", id.schema());
          cache.put(new PreflightRecord(s.name(), other.cacheKey(), true, false, List.of(), 1.0, Optional.empty(), Optional.of(LOGGING)));
          ledger.record(s.name(), other.ledgerKey(), HazardCode.CROSS_SESSION_LEAK, 2);
          break;
        default:
          break;
      }
    }
    cache.flush();
    ledger.flush();
  }

  @Test
  void aThousandRowsReadEachRecordOnceAndDeletingTheRecordsChangesNoRow() throws IOException {
    Path records = tmp.resolve("records");
    List<ConfiguredServer> servers = servers(tmp.resolve("mcp.json"));
    populate(records, servers);
    SpyRecordStores spy = new SpyRecordStores(records);
    spy.resetCounts();
    IdentityResolver counted = identities::identify;

    LoadedState state = new RowLoader(spy, counted).load(servers);
    assertEquals(1, spy.cacheReads.get(), "the pre-flight cache is read once");
    assertEquals(1, spy.ledgerReads.get(), "the hazard ledger is read once");

    RowBuilder builder = new RowBuilder(cotenant::assess);
    List<Row> rows = builder.build(state);
    assertEquals(SERVERS, rows.size());
    assertEquals(1, spy.cacheReads.get(), "building rows reads the cache no more");
    assertEquals(1, spy.ledgerReads.get(), "building rows reads the ledger no more");
    assertEquals(0, spy.perServerQueries.get(), "no row queries a store");

    for (int i = 0; i < SERVERS; i++) {
      Row r = rows.get(i);
      assertEquals(servers.get(i).name(), r.name());
      assertEquals(tmp.resolve("mcp.json").toString(), r.source());
      switch (i % 5) {
        case 0:
          assertEquals(Strength.MEASURED, r.strength(), r.name());
          assertTrue(r.verdict().has(ReasonCode.DEGRADES_WHEN_SHARED), "the stored handshake is read");
          break;
        case 1:
          assertEquals(Strength.NO_OBJECTION, r.strength(), r.name());
          assertTrue(r.verdict().has(ReasonCode.HANDSHAKE_NOT_REPRODUCIBLE));
          break;
        case 2:
          assertEquals(Strength.REFUTED, r.strength(), r.name());
          break;
        default:
          assertEquals(Strength.UNKNOWN, r.strength(), r.name() + ": a record under another identity is no record");
          break;
      }
    }

    deleteRecursively(records);
    assertFalse(Files.exists(records));
    assertEquals(rows, builder.build(state), "the rows depend on the loaded state only");
    assertEquals(rows, new RowBuilder(cotenant::assess).build(state));
    assertEquals(1, spy.cacheReads.get());
    assertEquals(1, spy.ledgerReads.get());
    assertEquals(0, spy.perServerQueries.get());
  }

  @Test
  void theRowBuilderCannotReachAStoreAFileOrAnIdentityResolver() {
    ArchRuleDefinition.noClasses()
        .that()
        .belongToAnyOf(RowBuilder.class, Row.class, LoadedState.class)
        .should()
        .dependOnClassesThat(
            equivalentTo(RecordStores.class)
                .or(equivalentTo(PreflightCache.class))
                .or(equivalentTo(HazardLedger.class))
                .or(equivalentTo(IdentityResolver.class))
                .or(equivalentTo(ExecutionIdentities.class))
                .or(equivalentTo(Files.class))
                .or(equivalentTo(java.io.File.class))
                .or(equivalentTo(java.io.InputStream.class)))
        .because("a row is built from the loaded state only (docs/integration.md)")
        .check(new ClassFileImporter().importClasses(RowBuilder.class, Row.class, LoadedState.class));
  }

  @Test
  void aRowThatCouldNotRunOrDivergedWithoutAFacetIsNeverReadAsPassed() {
    PreflightRecord notRun = new PreflightRecord("a", "k", false, false, List.of("needs SAMPLE_API_TOKEN"), 1.0, Optional.empty(), Optional.empty());
    assertEquals(new dev.cotenant.api.PreflightOutcome.NotRun("needs SAMPLE_API_TOKEN"), RowBuilder.outcome(Optional.of(notRun)));
    PreflightRecord diverged = new PreflightRecord("a", "k", true, true, List.of(), 1.0, Optional.empty(), Optional.of(LOGGING));
    assertEquals(
        new dev.cotenant.api.PreflightOutcome.Ran(List.of(RowBuilder.UNNAMED_FACET)), RowBuilder.outcome(Optional.of(diverged)));
    assertEquals(dev.cotenant.api.PreflightOutcome.NOT_MEASURED, RowBuilder.outcome(Optional.empty()));
  }

  @Test
  void aHostHandshakeReportingAnotherVersionDropsTheStoredMeasurement() throws IOException {
    Path records = tmp.resolve("records");
    ConfiguredServer s = new ConfiguredServer(ServerDescription.stdio("upgraded", "/nonexistent/upgraded"), tmp.resolve("mcp.json"));
    FilePreflightCache cache = FilePreflightCache.open(records);
    HandshakeFacts v1 = HandshakeFacts.fromJson("2025-06-18", Map.of("tools", Map.of()), Map.of("name", "u", "version", "1.0"), List.of());
    HandshakeFacts v2 = HandshakeFacts.fromJson("2025-06-18", Map.of("tools", Map.of()), Map.of("name", "u", "version", "2.0"), List.of());
    cache.put(new PreflightRecord("upgraded", identities.identify(s.description()).cacheKey(), true, false, List.of(), 1.0, Optional.of("1.0"), Optional.of(v1)));
    cache.flush();
    SpyRecordStores spy = new SpyRecordStores(records);

    List<Row> same = new RowBuilder(cotenant::assess).build(new RowLoader(spy, identities::identify).load(List.of(s), Map.of("upgraded", v1)));
    assertEquals(Strength.MEASURED, same.get(0).strength());

    List<Row> upgraded = new RowBuilder(cotenant::assess).build(new RowLoader(spy, identities::identify).load(List.of(s), Map.of("upgraded", v2)));
    assertEquals(Strength.NO_OBJECTION, upgraded.get(0).strength(), "the host's handshake is seen, the old measurement is not");
    assertTrue(spy.preflightCache().load().rows().isEmpty(), "the row of replaced code is dropped");
  }

  @Test
  void whileALedgerOrTheConcurrencyRecordsWereNotReadCompletelyNoRowRecommendsSharingAndEachSaysWhy() {
    // Kills LoadedState.recordsComplete returning true (BooleanTrueReturnValsMutator), and
    // recordsNotes without either ifPresent or returning an empty list: a row read through an
    // unreadable record recommended sharing, or said nothing of why it did not (fail closed,
    // docs/statelessness.md).
    ConfiguredServer s = new ConfiguredServer(ServerDescription.stdio("declares", "/nonexistent/declares"), tmp.resolve("mcp.json"));
    Map<String, ExecutionIdentity> ids = Map.of("declares", identities.identify(s.description()));
    HandshakeFacts declares = HandshakeFacts.fromJson(
        "2025-06-18", Map.of("experimental", Map.of("cotenant.caller-identity", Map.of()), "tools", Map.of()), Map.of("name", "d"), List.of());
    Map<String, HandshakeFacts> host = Map.of("declares", declares);
    HazardLedger.Snapshot readLedger = new HazardLedger.Snapshot(Map.of(), Optional.empty());
    HazardLedger.Snapshot unreadLedger = HazardLedger.Snapshot.incomplete(Map.of(), "ledger.json is not valid JSON");
    dev.cotenant.spi.ConcurrencyRecords.Snapshot readRecords = dev.cotenant.spi.ConcurrencyRecords.Snapshot.empty();
    dev.cotenant.spi.ConcurrencyRecords.Snapshot unreadRecords =
        dev.cotenant.spi.ConcurrencyRecords.Snapshot.incomplete(Map.of(), Map.of(), "concurrency.json is locked");
    RowBuilder builder = new RowBuilder(cotenant::assess);

    Row complete = builder.build(new LoadedState(List.of(s), ids, PreflightCache.Snapshot.empty(), readLedger, host, readRecords)).get(0);
    assertEquals(Strength.DECLARED, complete.strength());
    assertTrue(complete.recommendShare(), "the control: read completely, a declaration shares");
    // Row.recommendStub is the verdict's (mutants: returning true, returning false): a declaration keeps the
    // stub, and a server nothing is known of does not.
    assertTrue(complete.recommendStub());
    Row unknown = builder.build(new LoadedState(List.of(s), ids, PreflightCache.Snapshot.empty(), readLedger, Map.of(),
        readRecords)).get(0);
    assertEquals(Strength.UNKNOWN, unknown.strength(), unknown.toString());
    assertFalse(unknown.recommendStub(), unknown.toString());

    Row ledger = builder.build(new LoadedState(List.of(s), ids, PreflightCache.Snapshot.empty(), unreadLedger, host, readRecords)).get(0);
    Row records = builder.build(new LoadedState(List.of(s), ids, PreflightCache.Snapshot.empty(), readLedger, host, unreadRecords)).get(0);
    Row both = builder.build(new LoadedState(List.of(s), ids, PreflightCache.Snapshot.empty(), unreadLedger, host, unreadRecords)).get(0);
    for (Row r : List.of(ledger, records, both)) {
      assertFalse(r.recommendShare(), r.toString());
    }
    assertTrue(ledger.reasons().contains(new dev.cotenant.api.Reason(ReasonCode.LEDGER_UNREADABLE, "ledger.json is not valid JSON")),
        ledger.reasons().toString());
    assertTrue(records.reasons().contains(
        new dev.cotenant.api.Reason(ReasonCode.CONCURRENCY_RECORDS_UNREADABLE, "concurrency.json is locked")), records.reasons().toString());
    assertTrue(both.verdict().has(ReasonCode.LEDGER_UNREADABLE) && both.verdict().has(ReasonCode.CONCURRENCY_RECORDS_UNREADABLE),
        both.reasons().toString());
  }

  private static void deleteRecursively(Path dir) throws IOException {
    try (Stream<Path> walk = Files.walk(dir)) {
      for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }
}
