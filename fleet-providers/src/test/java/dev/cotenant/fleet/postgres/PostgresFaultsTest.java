package dev.cotenant.fleet.postgres;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.api.ConcurrencyRecord;
import dev.cotenant.api.HandshakeFacts;
import dev.cotenant.api.HazardCode;
import dev.cotenant.api.ProbePass;
import dev.cotenant.api.Reason;
import dev.cotenant.api.ReasonCode;
import dev.cotenant.api.ServerDescription;
import dev.cotenant.api.ShareScope;
import dev.cotenant.api.Strength;
import dev.cotenant.api.ToolFacts;
import dev.cotenant.fleet.servers.PostgresServer;
import dev.cotenant.gateway.Cotenant;
import dev.cotenant.gateway.config.ConfiguredServer;
import dev.cotenant.gateway.providers.Spi;
import dev.cotenant.gateway.rows.Row;
import dev.cotenant.spi.ConcurrencyRecords;
import dev.cotenant.spi.HazardLedger;
import dev.cotenant.spi.PreflightCache;
import dev.cotenant.spi.PreflightRecord;
import dev.cotenant.spi.ProviderConfig;
import dev.cotenant.spi.ProviderContext;
import dev.cotenant.spi.RecordStores;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code postgres} stores when things go wrong, against a real PostgreSQL: a database that is
 * not there or refuses the password, one killed while the stores are in use and started again, a
 * schema written by a newer version, rows that break the schema's invariants, many replicas
 * migrating at once, and names only the stored escaping keeps apart. Fail closed throughout: while
 * the ledger or the concurrency records cannot be read completely, no row of the runtime a host
 * embeds recommends sharing (docs/records.md, docs/statelessness.md).
 */
class PostgresFaultsTest {
  private static final String DATABASE = "faults";
  private static final AtomicInteger SCHEMAS = new AtomicInteger();

  static PostgresServer server;
  static String url;

  @TempDir Path records;

  private final List<PostgresRecordStores> opened = new ArrayList<>();
  private String schema;

  @BeforeAll
  static void start() throws Exception {
    server = PostgresServer.start();
    url = server.createDatabase(DATABASE);
    // The fixture's cluster commits asynchronously (synchronous_commit=off), so a SIGKILL loses
    // the last fraction of a second of commits. These tests kill the server to stand for a
    // crash of a production database, whose commits are durable: make this database's so.
    try (Connection c = server.connect("postgres"); Statement s = c.createStatement()) {
      s.execute("ALTER DATABASE " + DATABASE + " SET synchronous_commit = on");
    }
  }

  @AfterAll
  static void stop() {
    if (server != null) {
      server.close();
    }
  }

  @BeforeEach
  void freshSchema() {
    schema = "faults_" + SCHEMAS.incrementAndGet();
  }

  @AfterEach
  void closeAndRevive() throws IOException {
    opened.forEach(PostgresRecordStores::close);
    opened.clear();
    // A test that killed the server and failed before starting it again leaves it running for the next.
    if (!server.handle().isAlive()) {
      server.restart();
    }
  }

  private Map<String, String> config() {
    Map<String, String> m = new LinkedHashMap<>();
    m.put(PostgresSettings.URL_KEY, url);
    m.put(PostgresSettings.SCHEMA_KEY, schema);
    m.put(PostgresSettings.USER_KEY, PostgresServer.USER);
    m.put(PostgresSettings.PASSWORD_FILE_KEY, server.passwordFile().toString());
    return m;
  }

  /** Opens the stores of this test's schema through the provider, as a gateway does. */
  private PostgresRecordStores open() {
    return open(config());
  }

  private PostgresRecordStores open(Map<String, String> config) {
    RecordStores stores =
        new PostgresRecordStoreProvider().create(new ProviderContext(ProviderConfig.of(config), records));
    PostgresRecordStores p = (PostgresRecordStores) stores;
    synchronized (opened) {
      opened.add(p);
    }
    return p;
  }

  /** A runtime as a host embeds it, its records in this test's schema. */
  private Cotenant runtime() {
    Map<String, String> config = config();
    config.put(Spi.RECORDS_KEY, PostgresRecordStoreProvider.NAME);
    Cotenant c = Cotenant.builder().config(config).recordsDirectory(records).build();
    synchronized (opened) {
      opened.add((PostgresRecordStores) c.recordStores());
    }
    return c;
  }

  private String redactedUrl() {
    return "jdbc:postgresql://127.0.0.1:" + server.port() + "/" + DATABASE;
  }

  private long count(String sql) throws SQLException {
    try (Connection c = server.connect(DATABASE); Statement s = c.createStatement(); ResultSet r = s.executeQuery(sql)) {
      assertTrue(r.next(), sql);
      return r.getLong(1);
    }
  }

  private void execute(String... sql) throws SQLException {
    try (Connection c = server.connect(DATABASE); Statement s = c.createStatement()) {
      for (String q : sql) {
        s.execute(q);
      }
    }
  }

  private String table(String name) {
    return "\"" + schema + "\"." + name;
  }

  /** Every message of {@code t} and its causes, and its stack trace as a log would print it. */
  private static String shown(Throwable t) {
    StringWriter w = new StringWriter();
    t.printStackTrace(new PrintWriter(w));
    StringBuilder b = new StringBuilder(w.toString());
    for (Throwable c = t; c != null; c = c.getCause()) {
      b.append('\n').append(c.getMessage()).append('\n').append(c);
    }
    return b.toString();
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
      return s.getLocalPort();
    }
  }

  private static PreflightRecord measurement(String name, String identity) {
    return new PreflightRecord(name, identity, true, false, List.of(), 1000.0, Optional.of("1.0"), Optional.empty());
  }

  // 1. The database is not there, or refuses the password.

  @Test
  void aDatabaseNobodyListensOnFailsCreateWithTheRedactedUrlAndTheCauseAndNoPassword() throws Exception {
    int port = freePort();
    String urlSecret = "url-secret-7f3a";
    String fileSecret = "file-secret-91c2";
    Path passwordFile = Files.writeString(records.resolve("password"), fileSecret + "\n");
    Map<String, String> config = new LinkedHashMap<>();
    config.put(PostgresSettings.URL_KEY,
        "jdbc:postgresql://127.0.0.1:" + port + "/" + DATABASE + "?password=" + urlSecret + "&connectTimeout=3");
    config.put(PostgresSettings.SCHEMA_KEY, schema);
    config.put(PostgresSettings.USER_KEY, PostgresServer.USER);
    config.put(PostgresSettings.PASSWORD_FILE_KEY, passwordFile.toString());

    UncheckedIOException e = assertThrows(UncheckedIOException.class,
        () -> new PostgresRecordStoreProvider().create(new ProviderContext(ProviderConfig.of(config), records)));

    String m = e.getMessage();
    String redacted = "jdbc:postgresql://127.0.0.1:" + port + "/" + DATABASE;
    assertTrue(m.startsWith("PostgreSQL at " + redacted + " as " + PostgresServer.USER + " could not open the Cotenant"
        + " records (connect, then create or migrate the schema): "), m);
    assertTrue(m.contains("refused"), "the cause is named: " + m);
    assertTrue(m.contains("SQLSTATE 08"), m);
    assertFalse(m.contains("connectTimeout") || m.contains("?"), "no query parameters: " + m);
    String all = shown(e);
    assertFalse(all.contains(urlSecret), all);
    assertFalse(all.contains(fileSecret), all);
    // No secret in the driver's message: its own exception is kept as the cause, for diagnosis
    // (mutant: revealsSecret answering true, which put a bare copy in its place).
    assertEquals("PSQLException", e.getCause().getCause().getClass().getSimpleName(), all);
  }

  @Test
  void aUrlTheDriverCannotParseNeverShowsItsPassword() throws Exception {
    String urlSecret = "url-secret-b0d5";
    Map<String, String> config = new LinkedHashMap<>();
    // Not a port: the driver does not take the URL, and the JDBC driver manager names it in full.
    config.put(PostgresSettings.URL_KEY,
        "jdbc:postgresql://127.0.0.1:notaport/" + DATABASE + "?user=" + PostgresServer.USER + "&password=" + urlSecret);
    config.put(PostgresSettings.SCHEMA_KEY, schema);

    UncheckedIOException e = assertThrows(UncheckedIOException.class,
        () -> new PostgresRecordStoreProvider().create(new ProviderContext(ProviderConfig.of(config), records)));

    assertTrue(e.getMessage().startsWith("PostgreSQL at jdbc:postgresql://127.0.0.1:notaport/" + DATABASE + " could not"),
        e.getMessage());
    String all = shown(e);
    assertFalse(all.contains(urlSecret), all);
    // The cause is kept, scrubbed (mutant: scrubbed answering null, which lost it).
    Throwable cause = e.getCause().getCause();
    assertEquals(java.sql.SQLException.class, cause.getClass(), all);
    assertTrue(cause.getMessage().contains("jdbc:postgresql://127.0.0.1:notaport/" + DATABASE), cause.getMessage());
  }

  @Test
  void aWrongPasswordIsSaidPlainlyAndNeverShown() throws Exception {
    String wrong = "wrong-secret-4e11";
    Path passwordFile = Files.writeString(records.resolve("password"), wrong + "\n");
    Map<String, String> config = config();
    config.put(PostgresSettings.PASSWORD_FILE_KEY, passwordFile.toString());

    UncheckedIOException e = assertThrows(UncheckedIOException.class, () -> open(config));

    String m = e.getMessage();
    assertTrue(m.startsWith("PostgreSQL at " + redactedUrl() + " as " + PostgresServer.USER + " could not"), m);
    assertTrue(m.contains("password authentication failed"), m);
    assertTrue(m.contains("28P01"), m);
    assertFalse(shown(e).contains(wrong), shown(e));

    // The same wrong password as a parameter of the URL.
    Map<String, String> inUrl = config();
    inUrl.remove(PostgresSettings.PASSWORD_FILE_KEY);
    inUrl.put(PostgresSettings.URL_KEY, url + "?password=" + wrong);
    UncheckedIOException e2 = assertThrows(UncheckedIOException.class, () -> open(inUrl));
    assertTrue(e2.getMessage().startsWith("PostgreSQL at " + redactedUrl() + " as " + PostgresServer.USER + " could not"),
        e2.getMessage());
    assertTrue(e2.getMessage().contains("password authentication failed"), e2.getMessage());
    assertFalse(shown(e2).contains(wrong), shown(e2));
  }

  // 2. The database dies while the stores are in use, and comes back.

  @Test
  void theLedgerKeepsWhatItReadAndRecordedThroughAnOutageAndWritesItExactlyOnceAfter() throws Exception {
    HazardLedger ledger = open().hazardLedger();
    assertTrue(ledger.record("alpha", "id-a", HazardCode.CROSS_SESSION_LEAK, 2));
    assertTrue(ledger.record("alpha", "id-a", HazardCode.CROSS_SESSION_LEAK, 2));
    ledger.flush();
    assertTrue(ledger.record("beta", "id-b", HazardCode.UNROUTABLE_SERVER_REQUEST, 3)); // recorded, not flushed
    assertTrue(ledger.snapshot().complete());

    server.kill();

    ledger.reload();
    HazardLedger.Snapshot down = ledger.snapshot();
    String why = down.incomplete().orElseThrow();
    assertTrue(why.contains(redactedUrl()), why);
    assertTrue(why.contains("could not read the hazard ledger"), why);
    assertEquals(2, down.servers().get("alpha").get("id-a").count(), "what was read before is still shown");
    assertEquals(Set.of(HazardCode.UNROUTABLE_SERVER_REQUEST), down.codesFor("beta", "id-b"));

    // Recording needs no database.
    assertTrue(ledger.record("alpha", "id-a", HazardCode.UNATTRIBUTABLE_NOTIFICATION, 2));
    assertTrue(ledger.record("gamma", "id-c", HazardCode.CROSS_SESSION_LEAK, 2));
    assertEquals(3, ledger.snapshot().servers().get("alpha").get("id-a").count());

    IOException first = assertThrows(IOException.class, ledger::flush);
    assertTrue(first.getMessage().startsWith("PostgreSQL at " + redactedUrl() + " as " + PostgresServer.USER
        + " could not write the hazard ledger: "), first.getMessage());
    // A second failed flush must not count anything twice either.
    assertThrows(IOException.class, ledger::flush);
    assertTrue(ledger.hasUnflushed());
    assertEquals(3, ledger.snapshot().servers().get("alpha").get("id-a").count());
    assertTrue(ledger.snapshot().incomplete().isPresent(), "still incomplete until a read succeeds");

    server.restart();
    ledger.flush();

    assertFalse(ledger.hasUnflushed());
    HazardLedger.Snapshot up = ledger.snapshot();
    assertTrue(up.complete(), up.toString());
    assertEquals(3, count("SELECT count FROM " + table("hazards") + " WHERE server_name = 'alpha'"));
    assertEquals(1, count("SELECT count FROM " + table("hazards") + " WHERE server_name = 'beta'"));
    assertEquals(1, count("SELECT count FROM " + table("hazards") + " WHERE server_name = 'gamma'"));
    assertEquals(3, count("SELECT count(*) FROM " + table("hazards")));
    assertEquals(3, up.servers().get("alpha").get("id-a").count(), "no double count in memory either");
    assertEquals(Set.of(HazardCode.CROSS_SESSION_LEAK, HazardCode.UNATTRIBUTABLE_NOTIFICATION),
        up.codesFor("alpha", "id-a"));

    ledger.reload();
    assertTrue(ledger.snapshot().complete());
    assertEquals(up.servers(), ledger.snapshot().servers());
    // Another replica reads the same.
    assertEquals(up.servers(), open().hazardLedger().snapshot().servers());
  }

  /**
   * A server restarted while the stores' connection sat idle costs no failure: the first
   * transaction finds the connection dead and runs once more on a fresh one. Mutants: the
   * retry's conditions in {@code Database.transaction} negated (the flush failed once after
   * every restart, and its observations waited for the next).
   */
  @Test
  void aServerRestartedWhileTheConnectionWasIdleCostsNoFailure() throws Exception {
    PostgresRecordStores stores = open();
    HazardLedger ledger = stores.hazardLedger();
    assertTrue(ledger.record("alpha", "id-a", HazardCode.CROSS_SESSION_LEAK, 2));
    ledger.flush();

    server.kill();
    server.restart();

    assertTrue(ledger.record("alpha", "id-a", HazardCode.CROSS_SESSION_LEAK, 2));
    ledger.flush();
    assertFalse(ledger.hasUnflushed());
    assertEquals(2, count("SELECT count FROM " + table("hazards") + " WHERE server_name = 'alpha'"));
    ledger.reload();
    assertTrue(ledger.snapshot().complete(), ledger.snapshot().toString());
  }

  @Test
  void theConcurrencyRecordsReadAsNoneAndRefuseWritesWhileTheDatabaseIsDown() throws Exception {
    ConcurrencyRecords concurrency = open().concurrencyRecords();
    ConcurrencyRecord shared = ConcurrencyRecord.shared("echo", ShareScope.TENANT, 4,
        ProbePass.wholeSurface("id-echo", 3, 1.0, ProbePass.Surface.of(List.of("work"), Map.of())));
    concurrency.put(shared);
    assertEquals(Optional.of(shared), concurrency.load().get("echo"));

    server.kill();

    ConcurrencyRecords.Snapshot down = concurrency.load();
    String why = down.incomplete().orElseThrow();
    assertTrue(why.contains(redactedUrl()), why);
    assertEquals(Map.of(), down.records(), "no record, so no server is shared");
    assertEquals(Optional.empty(), concurrency.get("echo"));
    IOException e = assertThrows(IOException.class, () -> concurrency.put(ConcurrencyRecord.sidecar("other")));
    assertTrue(e.getMessage().startsWith("PostgreSQL at " + redactedUrl() + " as " + PostgresServer.USER
        + " could not update the concurrency record of other: "), e.getMessage());
    assertThrows(IOException.class, () -> concurrency.update("echo", current -> Optional.empty()));

    server.restart();

    ConcurrencyRecords.Snapshot up = concurrency.load();
    assertTrue(up.complete(), up.toString());
    assertEquals(Map.of("echo", shared), up.records(), "nothing was written while down");
    assertEquals(1, count("SELECT count(*) FROM " + table("concurrency")));
  }

  @Test
  void thePreflightCacheAnswersFromWhatItReadWhileDownAndKeepsItsPutsForAfter() throws Exception {
    PreflightCache cache = open().preflightCache();
    PreflightRecord one = measurement("one", "key-1");
    cache.put(one);
    cache.markApplied("one");
    cache.flush();
    // Written by another replica: this cache knows it only from a read.
    PreflightRecord other = measurement("other", "key-o");
    PreflightCache replica = open().preflightCache();
    replica.put(other);
    replica.flush();
    assertEquals(Map.of("one", one, "other", other), cache.load().rows());

    server.kill();

    PreflightCache.Snapshot down = cache.load();
    assertEquals(Map.of("one", one, "other", other), down.rows());
    assertEquals(Set.of("one"), down.applied());
    PreflightRecord two = measurement("two", "key-2");
    cache.put(two);
    cache.markApplied("two");
    IOException e = assertThrows(IOException.class, cache::flush);
    assertTrue(e.getMessage().startsWith("PostgreSQL at " + redactedUrl() + " as " + PostgresServer.USER
        + " could not write the pre-flight cache: "), e.getMessage());
    assertEquals(Map.of("one", one, "other", other, "two", two), cache.load().rows());

    server.restart();
    cache.flush();

    assertEquals(3, count("SELECT count(*) FROM " + table("preflight")));
    assertEquals(1, count("SELECT count(*) FROM " + table("preflight") + " WHERE server_name = 'two'"));
    assertEquals(2, count("SELECT count(*) FROM " + table("applied")));
    PreflightCache.Snapshot fresh = open().preflightCache().load();
    assertEquals(Map.of("one", one, "other", other, "two", two), fresh.rows());
    assertEquals(Set.of("one", "two"), fresh.applied());
  }

  // 3. The verdicts of the runtime a host embeds: fail closed.

  private static ConcurrencyRecord registeredShared(String name, String ledgerIdentity) {
    return ConcurrencyRecord.shared(name, ShareScope.TENANT, 4,
        ProbePass.wholeSurface(ledgerIdentity, 3, 1.0, ProbePass.Surface.of(List.of("work"), Map.of())));
  }

  private Row row(Cotenant cotenant, ServerDescription server) {
    return cotenant.rows(List.of(new ConfiguredServer(server, records.resolve("servers.json")))).get(0);
  }

  @Test
  void aSharedServerStopsBeingRecommendedForSharingWhenTheDatabaseDies() throws Exception {
    Cotenant cotenant = runtime();
    ServerDescription echo = ServerDescription.stdio("echo", "/bin/cat");
    String id = cotenant.identityOf(echo).ledgerKey();
    cotenant.recordStores().concurrencyRecords().put(registeredShared("echo", id));

    Row up = row(cotenant, echo);
    assertEquals(Strength.DECLARED, up.strength(), up.toString());
    assertTrue(up.verdict().has(ReasonCode.REGISTERED_SHARED), up.toString());
    assertTrue(up.recommendShare(), up.toString());

    server.kill();
    cotenant.recordStores().hazardLedger().reload();

    Row down = row(cotenant, echo);
    assertFalse(down.recommendShare(), down.toString());
    assertTrue(down.verdict().has(ReasonCode.LEDGER_UNREADABLE), down.toString());
    assertTrue(down.verdict().has(ReasonCode.CONCURRENCY_RECORDS_UNREADABLE), down.toString());
    assertTrue(down.reasons().stream().filter(r -> r.code() == ReasonCode.LEDGER_UNREADABLE)
        .allMatch(r -> r.detail().contains(redactedUrl())), down.toString());

    server.restart();

    // The concurrency records read completely again, but the ledger was last read incompletely:
    // the registration holds (declared) and still nothing recommends sharing until the ledger reads.
    Row ledgerStale = row(cotenant, echo);
    assertEquals(Strength.DECLARED, ledgerStale.strength(), ledgerStale.toString());
    assertTrue(ledgerStale.verdict().has(ReasonCode.LEDGER_UNREADABLE), ledgerStale.toString());
    assertFalse(ledgerStale.verdict().has(ReasonCode.CONCURRENCY_RECORDS_UNREADABLE), ledgerStale.toString());
    assertFalse(ledgerStale.recommendShare(), ledgerStale.toString());

    cotenant.recordStores().hazardLedger().reload();
    Row again = row(cotenant, echo);
    assertTrue(again.recommendShare(), again.toString());
    assertFalse(again.verdict().has(ReasonCode.LEDGER_UNREADABLE), again.toString());
  }

  @Test
  void aHazardAnotherReplicaRecordsRefutesTheServerHereOnceTheLedgerReloads() throws Exception {
    Cotenant here = runtime();
    Cotenant replica = runtime();
    ServerDescription echo = ServerDescription.stdio("echo", "/bin/cat");
    String id = here.identityOf(echo).ledgerKey();
    assertEquals(id, replica.identityOf(echo).ledgerKey());
    here.recordStores().concurrencyRecords().put(registeredShared("echo", id));
    assertTrue(row(here, echo).recommendShare());
    assertTrue(row(replica, echo).recommendShare(), "the registration is the fleet's");

    HazardLedger theirs = replica.recordStores().hazardLedger();
    assertTrue(theirs.record("echo", id, HazardCode.CROSS_SESSION_LEAK, 2));
    theirs.flush();

    here.recordStores().hazardLedger().reload();
    Row refuted = row(here, echo);
    assertEquals(Strength.REFUTED, refuted.strength(), refuted.toString());
    assertTrue(refuted.reasons().contains(new Reason(ReasonCode.OBSERVED_HAZARD, "cross_session_leak")),
        refuted.toString());
    assertFalse(refuted.recommendShare(), refuted.toString());
  }

  // 4. A schema written by a newer version.

  @Test
  void aNewerSchemaReadsIncompleteAndRefusesEveryWriteLeavingTheTablesAlone() throws Exception {
    PostgresRecordStores before = open();
    assertTrue(before.hazardLedger().record("alpha", "id-a", HazardCode.CROSS_SESSION_LEAK, 2));
    before.hazardLedger().flush();
    ConcurrencyRecord sidecar = ConcurrencyRecord.sidecar("alpha");
    before.concurrencyRecords().put(sidecar);
    before.preflightCache().put(measurement("alpha", "key-a"));
    before.preflightCache().flush();
    before.close();
    execute("UPDATE " + table("schema_version") + " SET version = 99");

    PostgresRecordStores after = open();

    HazardLedger.Snapshot ledger = after.hazardLedger().snapshot();
    String why = ledger.incomplete().orElseThrow();
    assertTrue(why.contains("version 99") && why.contains("upgrade Cotenant"), why);
    after.hazardLedger().reload();
    assertTrue(after.hazardLedger().snapshot().incomplete().orElseThrow().contains("upgrade Cotenant"));
    ConcurrencyRecords.Snapshot concurrency = after.concurrencyRecords().load();
    assertTrue(concurrency.incomplete().orElseThrow().contains("upgrade Cotenant"), concurrency.toString());
    assertEquals(Map.of(), concurrency.records());
    assertEquals(Optional.empty(), after.concurrencyRecords().get("alpha"));

    assertTrue(after.hazardLedger().record("alpha", "id-a", HazardCode.UNROUTABLE_SERVER_REQUEST, 2));
    IOException flush = assertThrows(IOException.class, () -> after.hazardLedger().flush());
    assertTrue(flush.getMessage().contains("upgrade Cotenant") && flush.getMessage().contains("nothing was written"),
        flush.getMessage());
    assertThrows(IOException.class, () -> after.concurrencyRecords().update("alpha", r -> Optional.empty()));
    assertThrows(IOException.class, () -> after.concurrencyRecords().put(ConcurrencyRecord.sidecar("beta")));
    after.preflightCache().put(measurement("beta", "key-b"));
    assertThrows(IOException.class, () -> after.preflightCache().flush());

    assertEquals(99, count("SELECT version FROM " + table("schema_version")));
    assertEquals(1, count("SELECT count(*) FROM " + table("schema_version")));
    assertEquals(1, count("SELECT count(*) FROM " + table("hazards")));
    assertEquals(1, count("SELECT count FROM " + table("hazards") + " WHERE server_name = 'alpha'"));
    assertEquals(1, count("SELECT cardinality(codes) FROM " + table("hazards")));
    assertEquals(1, count("SELECT count(*) FROM " + table("concurrency") + " WHERE server_name = 'alpha'"));
    assertEquals(1, count("SELECT count(*) FROM " + table("concurrency")));
    assertEquals(1, count("SELECT count(*) FROM " + table("preflight")));
  }

  // 5. Rows that break the schema's invariants, read back.

  @Test
  void concurrencyRowsOfAnUnknownModelOrAMalformedProbeAreRejectedByNameAndReadAsAbsent() throws Exception {
    ConcurrencyRecords concurrency = open().concurrencyRecords();
    concurrency.put(ConcurrencyRecord.sidecar("good"));
    execute(
        "INSERT INTO " + table("concurrency") + " VALUES ('elastic-one', 'elastic', 'tenant', NULL, NULL)",
        "INSERT INTO " + table("concurrency") + " VALUES ('bad-probe', 'sidecar', 'tenant', NULL, '{\"identity\": ')",
        "INSERT INTO " + table("concurrency") + " VALUES ('odd-probe', 'shared', 'tenant', 2, '[1, 2]')",
        "INSERT INTO " + table("concurrency") + " VALUES ('odd-scope', 'sidecar', 'planet', NULL, NULL)");

    ConcurrencyRecords.Snapshot s = concurrency.load();

    assertTrue(s.complete(), "a refused entry alone does not make the read incomplete: " + s);
    assertEquals(Set.of("good"), s.records().keySet());
    assertEquals(Set.of("bad-probe", "elastic-one", "odd-probe", "odd-scope"), s.rejected().keySet());
    assertTrue(s.rejected().get("elastic-one").contains("unknown concurrency model 'elastic'"), s.rejected().toString());
    assertTrue(s.rejected().get("bad-probe").contains("the probe is not JSON"), s.rejected().toString());
    assertTrue(s.rejected().get("odd-probe").contains("not a JSON object"), s.rejected().toString());
    assertTrue(s.rejected().get("odd-scope").contains("unknown share scope 'planet'"), s.rejected().toString());
    assertEquals(Optional.empty(), concurrency.get("elastic-one"));
    assertEquals(Optional.empty(), concurrency.get("odd-probe"));
    // An update sees the refused entry as absent, and replaces it.
    assertEquals(Optional.of(ConcurrencyRecord.sidecar("elastic-one")),
        concurrency.update("elastic-one", current -> {
          assertEquals(Optional.empty(), current);
          return Optional.of(ConcurrencyRecord.sidecar("elastic-one"));
        }));
    assertEquals(Set.of("elastic-one", "good"), concurrency.load().records().keySet());
  }

  @Test
  void aHazardRowWithAnUnknownCodeMakesTheLedgerIncompleteAndKeepsTheKnownCodesOfTheRow() throws Exception {
    HazardLedger ledger = open().hazardLedger();
    execute(
        "INSERT INTO " + table("hazards") + " VALUES ('mixed', 'id-m', ARRAY['cross_session_leak', 'from_the_future'],"
            + " 3, 10.0)",
        "INSERT INTO " + table("hazards") + " VALUES ('future', 'id-f', ARRAY['from_the_future'], 1, 10.0)",
        "INSERT INTO " + table("hazards") + " VALUES ('plain', 'id-p', ARRAY['unroutable_server_request'], 1, 10.0)");

    ledger.reload();

    HazardLedger.Snapshot s = ledger.snapshot();
    String why = s.incomplete().orElseThrow();
    assertTrue(why.contains("from_the_future") && why.contains(redactedUrl()), why);
    assertEquals(Set.of(HazardCode.CROSS_SESSION_LEAK), s.codesFor("mixed", "id-m"));
    assertEquals(3, s.servers().get("mixed").get("id-m").count());
    assertEquals(Set.of(HazardCode.UNROUTABLE_SERVER_REQUEST), s.codesFor("plain", "id-p"));

    // Once the row of the unknown code is gone, a reload is complete.
    execute("DELETE FROM " + table("hazards") + " WHERE 'from_the_future' = ANY(codes)");
    ledger.reload();
    assertTrue(ledger.snapshot().complete(), ledger.snapshot().toString());
  }

  @Test
  void aPreflightRowWithAMalformedHandshakeKeepsItsMeasurementWithoutTheHandshake() throws Exception {
    PreflightCache cache = open().preflightCache();
    HandshakeFacts handshake = new HandshakeFacts("2025-11-25", Set.of("tools"), Map.of("tools.listChanged", true),
        Set.of(), Map.of("name", "srv", "version", "1.0"), List.of(new ToolFacts("work", Optional.empty())));
    PreflightRecord wellFormed = new PreflightRecord("well", "key-w", true, false, List.of(), 5.0, Optional.of("1.0"),
        Optional.of(handshake));
    cache.put(wellFormed);
    cache.flush();
    execute("INSERT INTO " + table("preflight") + " VALUES ('broken', 'key-b', true, false, '{}', 5.0, '2.0',"
            + " '{\"protocolVersion\": ')",
        "INSERT INTO " + table("preflight") + " VALUES ('mistyped', 'key-t', true, false, '{}', 5.0, NULL,"
            + " '{\"protocolVersion\": 7, \"serverInfo\": {}, \"capabilityFlags\": {}, \"tools\": [],"
            + " \"capabilityPaths\": [], \"experimentalKeys\": []}')");

    PreflightCache.Snapshot s = open().preflightCache().load();

    assertEquals(wellFormed, s.rows().get("well"), "the well-formed handshake reads back");
    PreflightRecord broken = s.rows().get("broken");
    assertNotNull(broken, s.rows().toString());
    assertEquals(new PreflightRecord("broken", "key-b", true, false, List.of(), 5.0, Optional.of("2.0"), Optional.empty()),
        broken);
    assertEquals(Optional.empty(), s.rows().get("mistyped").handshake());
    assertTrue(s.rows().get("mistyped").ran());
  }

  // 6. Migration.

  @Test
  void replicasOpeningAFreshSchemaAtOnceCreateItOnce() throws Exception {
    int replicas = 8;
    ExecutorService pool = Executors.newFixedThreadPool(replicas);
    CountDownLatch go = new CountDownLatch(1);
    try {
      List<Future<PostgresRecordStores>> opening = new ArrayList<>();
      for (int i = 0; i < replicas; i++) {
        opening.add(pool.submit(() -> {
          go.await();
          return open();
        }));
      }
      go.countDown();
      List<PostgresRecordStores> all = new ArrayList<>();
      for (Future<PostgresRecordStores> f : opening) {
        all.add(f.get(120, TimeUnit.SECONDS));
      }
      for (int i = 0; i < all.size(); i++) {
        assertTrue(all.get(i).hazardLedger().snapshot().complete());
        assertTrue(all.get(i).hazardLedger().record("s" + i, "id", HazardCode.CROSS_SESSION_LEAK, 2));
        all.get(i).hazardLedger().flush();
      }
    } finally {
      pool.shutdownNow();
    }
    assertEquals(1, count("SELECT count(*) FROM " + table("schema_version")));
    assertEquals(Schema.VERSION, count("SELECT version FROM " + table("schema_version")));

    // Opening again migrates nothing and keeps every row.
    PostgresRecordStores again = open();
    assertEquals(replicas, again.hazardLedger().snapshot().servers().size());
    assertEquals(replicas, count("SELECT count(*) FROM " + table("hazards")));
    assertEquals(1, count("SELECT count(*) FROM " + table("schema_version")));
    assertEquals(5, count("SELECT count(*) FROM information_schema.tables WHERE table_schema = '" + schema + "'"));
  }

  // 7. Names only the stored escaping keeps apart.

  @Test
  void namesAndIdentitiesWithNulBackslashesAndNonAsciiRoundTripAndNeverCollide() throws Exception {
    List<String> names = List.of("a\\0b", "a\u0000b", "a\\\u0000b", "trailing\\", "nul\u0000", "naïve-サーバ-😀",
        "\\\\", "\\0");
    List<String> identities = List.of("cmd\u0000arg\u0000", "c:\\bin\\srv.exe", "ïd-ü", "\u0000", "\\0\\\\0");
    PostgresRecordStores stores = open();
    for (String name : names) {
      for (String id : identities) {
        assertTrue(stores.hazardLedger().record(name, id, HazardCode.CROSS_SESSION_LEAK, 2));
      }
      stores.concurrencyRecords().put(ConcurrencyRecord.sidecar(name));
      stores.preflightCache().put(new PreflightRecord(name, identities.get(0) + name, true, true,
          List.of("facet\u0000" + name, "back\\slash"), 1.0, Optional.of("v\\0" + name), Optional.empty()));
      stores.preflightCache().markApplied(name);
    }
    stores.hazardLedger().flush();
    stores.preflightCache().flush();

    assertEquals((long) names.size() * identities.size(), count("SELECT count(*) FROM " + table("hazards")));
    assertEquals(names.size(), count("SELECT count(DISTINCT server_name) FROM " + table("hazards")));
    assertEquals(names.size(), count("SELECT count(*) FROM " + table("concurrency")));
    assertEquals(names.size(), count("SELECT count(*) FROM " + table("preflight")));
    assertEquals(names.size(), count("SELECT count(*) FROM " + table("applied")));

    PostgresRecordStores replica = open();
    HazardLedger.Snapshot ledger = replica.hazardLedger().snapshot();
    assertTrue(ledger.complete());
    assertEquals(new TreeSet<>(names), ledger.servers().keySet());
    for (String name : names) {
      assertEquals(new TreeSet<>(identities), ledger.servers().get(name).keySet(), name);
      for (String id : identities) {
        assertEquals(1, ledger.servers().get(name).get(id).count(), name + " / " + id);
      }
    }
    ConcurrencyRecords.Snapshot concurrency = replica.concurrencyRecords().load();
    assertEquals(new TreeSet<>(names), concurrency.records().keySet());
    assertEquals(Map.of(), concurrency.rejected());
    for (String name : names) {
      assertEquals(Optional.of(ConcurrencyRecord.sidecar(name)), replica.concurrencyRecords().get(name), name);
    }
    PreflightCache.Snapshot cache = replica.preflightCache().load();
    Map<String, PreflightRecord> expected = new TreeMap<>(stores.preflightCache().snapshot().rows());
    assertEquals(expected, new TreeMap<>(cache.rows()));
    assertEquals(Set.copyOf(names), cache.applied());

    // Clearing one name clears that name only, not the one it would collide with unescaped.
    assertTrue(replica.hazardLedger().clear("a\u0000b"));
    replica.hazardLedger().flush();
    assertEquals((long) (names.size() - 1) * identities.size(), count("SELECT count(*) FROM " + table("hazards")));
    assertTrue(replica.hazardLedger().snapshot().servers().containsKey("a\\0b"));
    replica.concurrencyRecords().update("a\\0b", current -> Optional.empty());
    assertEquals(Optional.of(ConcurrencyRecord.sidecar("a\u0000b")), replica.concurrencyRecords().get("a\u0000b"));
    assertEquals(Optional.empty(), replica.concurrencyRecords().get("a\\0b"));
  }
}
