package dev.cotenant.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.api.ConcurrencyModel;
import dev.cotenant.api.ConcurrencyRecord;
import dev.cotenant.api.HandshakeFacts;
import dev.cotenant.api.HazardCode;
import dev.cotenant.api.ProbePass;
import dev.cotenant.api.ShareScope;
import dev.cotenant.gateway.Cotenant;
import dev.cotenant.gateway.config.ConfiguredServer;
import dev.cotenant.gateway.config.McpConfigReader;
import dev.cotenant.providers.records.FileConcurrencyRecords;
import dev.cotenant.providers.records.FileHazardLedger;
import dev.cotenant.providers.records.FilePreflightCache;
import dev.cotenant.spi.PreflightRecord;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Fail closed (docs/statelessness.md), end to end through the CLI over real files in a temporary records
 * directory: while the hazard ledger or the concurrency records cannot be read completely, no row
 * recommends sharing and every row says why, {@code register --model shared} is refused naming
 * the record, and {@code hazards list} says the ledger is unreadable and where the copy is.
 *
 * <p>The servers: {@code leaky}, whose statelessness probe once passed and whose leak was then
 * recorded in the ledger (so only the ledger stands between it and a registration as shared);
 * {@code registered}, registered shared before anything went wrong; {@code caller-aware}, measured
 * and declaring the caller-identity extension. With healthy records the last two recommend
 * sharing and {@code leaky} is refuted.
 */
class FailClosedRecordsTest {
  private static final JsonMapper JSON = JsonMapper.builder().build();
  private static final HandshakeFacts CALLER_AWARE =
      HandshakeFacts.fromJson(
          "2025-11-25",
          Map.of("experimental", Map.of("cotenant.caller-identity", Map.of()), "tools", Map.of()),
          Map.of("name", "caller-aware", "version", "1"),
          List.of());

  @TempDir Path tmp;

  private CliHarness cli;
  private Map<String, String> ledgerKeys;

  @BeforeEach
  void records() throws Exception {
    cli = new CliHarness(tmp);
    Path config = cli.write("mcp.json", "{\"mcpServers\": {"
        + "\"leaky\": {\"command\": \"/nonexistent/fail-closed/leaky\"},"
        + "\"registered\": {\"command\": \"/nonexistent/fail-closed/registered\"},"
        + "\"caller-aware\": {\"command\": \"/nonexistent/fail-closed/caller-aware\"}}}");
    List<ConfiguredServer> servers = new McpConfigReader().readFile(config);
    Cotenant writer = Cotenant.builder().recordsDirectory(cli.records).environment(cli.env).build();
    ledgerKeys = new LinkedHashMap<>();
    Map<String, String> cacheKeys = new LinkedHashMap<>();
    for (ConfiguredServer s : servers) {
      ledgerKeys.put(s.name(), writer.identityOf(s.description()).ledgerKey());
      cacheKeys.put(s.name(), writer.identityOf(s.description()).cacheKey());
    }

    FileConcurrencyRecords concurrency = FileConcurrencyRecords.open(cli.records);
    concurrency.put(new ConcurrencyRecord("leaky", ConcurrencyModel.SIDECAR, ShareScope.TENANT, OptionalInt.empty(),
        Optional.of(ProbePass.wholeSurface(ledgerKeys.get("leaky"), 5, 1.0, ProbePass.Surface.of(java.util.List.of("echo"), java.util.Map.of())))));
    concurrency.put(new ConcurrencyRecord("registered", ConcurrencyModel.SHARED, ShareScope.TENANT, OptionalInt.of(4),
        Optional.of(ProbePass.wholeSurface(ledgerKeys.get("registered"), 5, 1.0, ProbePass.Surface.of(java.util.List.of("echo"), java.util.Map.of())))));
    FilePreflightCache cache = FilePreflightCache.open(cli.records);
    cache.put(new PreflightRecord("caller-aware", cacheKeys.get("caller-aware"), true, false, List.of(), 1.0,
        Optional.empty(), Optional.of(CALLER_AWARE)));
    cache.flush();
    FileHazardLedger ledger = FileHazardLedger.open(cli.records);
    ledger.record("leaky", ledgerKeys.get("leaky"), HazardCode.CROSS_SESSION_LEAK, 2);
    ledger.flush();
  }

  private Path ledgerFile() {
    return cli.records.resolve(FileHazardLedger.FILE_NAME);
  }

  private Path concurrencyFile() {
    return cli.records.resolve(FileConcurrencyRecords.FILE_NAME);
  }

  private Map<String, JsonNode> rows() {
    CliHarness.Result r = cli.run("assess", "mcp.json", "--json");
    assertEquals(0, r.code(), r.err());
    Map<String, JsonNode> out = new LinkedHashMap<>();
    JSON.readTree(r.out()).path("servers").forEach(s -> out.put(s.path("name").stringValue(), s));
    return out;
  }

  private static List<String> codes(JsonNode row) {
    List<String> out = new ArrayList<>();
    row.path("reasons").forEach(r -> out.add(r.path("code").stringValue()));
    return out;
  }

  private static String detail(JsonNode row, String code) {
    for (JsonNode r : row.path("reasons")) {
      if (r.path("code").stringValue().equals(code)) {
        return r.path("detail").stringValue();
      }
    }
    throw new AssertionError("no " + code + " in " + row);
  }

  private CliHarness.Result registerLeakyShared() {
    return cli.run("register", "leaky", "mcp.json", "--model", "shared", "--max-concurrent", "4");
  }

  /** No row recommends sharing; every row carries {@code note} naming {@code file}; strengths are as read. */
  private void assertNothingShares(String note, Path file, String leakyStrength) {
    Map<String, JsonNode> rows = rows();
    for (JsonNode row : rows.values()) {
      assertFalse(row.path("recommendShare").booleanValue(), "recommends sharing: " + row);
      assertTrue(detail(row, note).contains(file.toString()), "names the file: " + row);
    }
    assertEquals(leakyStrength, rows.get("leaky").path("strength").stringValue(), rows.get("leaky").toString());
    assertEquals("declared", rows.get("caller-aware").path("strength").stringValue(), "the strength is what the evidence says");
    assertTrue(rows.get("caller-aware").path("recommendStub").booleanValue());
  }

  @Test
  void withHealthyRecords_theLeakRefutes_registrationIsRefused_andTheOthersShare() {
    Map<String, JsonNode> rows = rows();
    assertEquals("refuted", rows.get("leaky").path("strength").stringValue());
    assertTrue(rows.get("registered").path("recommendShare").booleanValue(), rows.get("registered").toString());
    assertTrue(rows.get("caller-aware").path("recommendShare").booleanValue(), rows.get("caller-aware").toString());
    assertFalse(codes(rows.get("registered")).contains("ledger_unreadable"));
    assertEquals(RegisterCommand.EXIT_REFUSED, registerLeakyShared().code());
  }

  @Test
  void aTruncatedLedgerHoldingALeak_sharesNothing_refusesRegistration_andHazardsListNamesTheCopy() throws IOException {
    byte[] whole = Files.readAllBytes(ledgerFile());
    Files.write(ledgerFile(), Arrays.copyOf(whole, whole.length / 2));

    assertNothingShares("ledger_unreadable", ledgerFile(), "unknown");
    CliHarness.Result assess = cli.run("assess", "mcp.json");
    assertTrue(assess.err().contains("cotenant: warning: the hazard ledger cannot be read completely: " + ledgerFile()),
        assess.err());
    assertTrue(assess.out().contains("ledger_unreadable(" + ledgerFile()), assess.out());

    CliHarness.Result register = registerLeakyShared();
    assertEquals(RegisterCommand.EXIT_REFUSED, register.code(), register.err() + register.out());
    assertEquals(1, register.errLines().size(), register.err());
    assertTrue(register.err().startsWith("cotenant: refusing to register leaky as shared: the hazard ledger cannot be "
        + "read completely (" + ledgerFile()), register.err());
    assertEquals(ConcurrencyModel.SIDECAR, FileConcurrencyRecords.open(cli.records).get("leaky").orElseThrow().model(),
        "nothing was registered");

    CliHarness.Result list = cli.run("hazards", "list");
    assertEquals(0, list.code(), list.err());
    assertTrue(list.err().contains("the hazard ledger cannot be read completely: " + ledgerFile() + " is not valid JSON"),
        list.err());
    JsonNode listJson = JSON.readTree(cli.run("hazards", "list", "--json").out());
    assertTrue(listJson.path("incomplete").stringValue().startsWith(ledgerFile().toString()), listJson.toString());

    // A writer (the gateway recording a hazard elsewhere) moves the unreadable copy aside and
    // rewrites the ledger; the copy's observations are still unread, so nothing changes.
    FileHazardLedger gateway = FileHazardLedger.open(cli.records);
    gateway.record("registered-elsewhere", "f".repeat(64), HazardCode.UNROUTABLE_SERVER_REQUEST, 2);
    gateway.flush();
    Path copy = cli.records.resolve(FileHazardLedger.FILE_NAME + ".corrupt");
    assertTrue(Files.exists(copy));

    CliHarness.Result moved = cli.run("hazards", "list");
    assertTrue(moved.err().contains("moved to " + copy), moved.err());
    assertTrue(moved.out().contains("registered-elsewhere"), "what can be read is listed: " + moved.out());
    assertNothingShares("ledger_unreadable", copy, "unknown");
    assertEquals(RegisterCommand.EXIT_REFUSED, registerLeakyShared().code());

    // Dealt with: the operator restores the leak by hand and deletes the copy.
    Files.write(copy, whole);
    Files.move(copy, ledgerFile(), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    Map<String, JsonNode> healthy = rows();
    assertEquals("refuted", healthy.get("leaky").path("strength").stringValue());
    assertTrue(healthy.get("registered").path("recommendShare").booleanValue());
  }

  @Test
  void aFutureSchemaLedgerHoldingALeak_sharesNothing_andRefusesRegistration() throws IOException {
    Files.writeString(ledgerFile(), Files.readString(ledgerFile()).replace("\"schema\" : 1", "\"schema\" : 2"));
    assertTrue(Files.readString(ledgerFile()).contains("\"schema\" : 2"));

    assertNothingShares("ledger_unreadable", ledgerFile(), "unknown");
    assertTrue(detail(rows().get("registered"), "ledger_unreadable").contains("has schema 2"));

    CliHarness.Result register = registerLeakyShared();
    assertEquals(RegisterCommand.EXIT_REFUSED, register.code(), register.err() + register.out());
    assertTrue(register.err().contains("the hazard ledger cannot be read completely (" + ledgerFile() + " has schema 2"),
        register.err());

    CliHarness.Result list = cli.run("hazards", "list");
    assertTrue(list.err().contains("has schema 2"), list.err());
    assertTrue(list.err().contains("cotenant: no hazards could be read"), list.err());
  }

  @Test
  void aLedgerWithAWronglyTypedEntry_stillRefutesTheLeak_sharesNothing_andIsWarnedAboutOnce() throws IOException {
    Files.writeString(ledgerFile(), Files.readString(ledgerFile())
        .replace("\"servers\" : {", "\"servers\" : { \"mangled\": {\"identities\": {\"" + "e".repeat(64) + "\": 7}},"));

    ByteArrayOutputStream log = new ByteArrayOutputStream();
    PrintStream original = System.err;
    System.setErr(new PrintStream(log, true, StandardCharsets.UTF_8));
    Map<String, JsonNode> rows;
    try {
      rows = rows();
    } finally {
      System.setErr(original);
    }
    String logged = log.toString(StandardCharsets.UTF_8);
    assertEquals(1, logged.lines().filter(l -> l.contains("server \"mangled\" identity")).count(), logged);

    assertEquals("refuted", rows.get("leaky").path("strength").stringValue(), "what could be read still counts");
    for (JsonNode row : rows.values()) {
      assertFalse(row.path("recommendShare").booleanValue(), row.toString());
      assertTrue(detail(row, "ledger_unreadable").contains("server \"mangled\" identity"), row.toString());
    }
    CliHarness.Result register = cli.run("register", "caller-aware", "mcp.json", "--model", "shared", "--max-concurrent", "2");
    assertEquals(RegisterCommand.EXIT_REFUSED, register.code(), register.err());
    assertTrue(register.err().contains(FileHazardLedger.FILE_NAME), register.err());
  }

  @Test
  void aCorruptConcurrencyRecordsFile_sharesNothing_andRefusesRegistration() throws IOException {
    byte[] whole = Files.readAllBytes(concurrencyFile());
    Files.write(concurrencyFile(), Arrays.copyOf(whole, whole.length - 20));

    Map<String, JsonNode> rows = rows();
    for (JsonNode row : rows.values()) {
      assertFalse(row.path("recommendShare").booleanValue(), "recommends sharing: " + row);
      assertTrue(detail(row, "concurrency_records_unreadable").contains(concurrencyFile().toString()), row.toString());
    }
    assertEquals("refuted", rows.get("leaky").path("strength").stringValue());
    assertEquals("declared", rows.get("caller-aware").path("strength").stringValue());

    CliHarness.Result register = cli.run("register", "caller-aware", "mcp.json", "--model", "shared", "--max-concurrent", "2");
    assertEquals(RegisterCommand.EXIT_REFUSED, register.code(), register.err() + register.out());
    assertTrue(register.err().contains("the concurrency records cannot be read completely (" + concurrencyFile()),
        register.err());
    assertArrayEquals(Arrays.copyOf(whole, whole.length - 20), Files.readAllBytes(concurrencyFile()),
        "a refused registration writes nothing");

    // Registering another model rewrites the file and moves the corrupt copy aside: still incomplete.
    CliHarness.Result sidecar = cli.run("register", "caller-aware", "mcp.json", "--model", "sidecar");
    assertEquals(0, sidecar.code(), sidecar.err());
    Path copy = cli.records.resolve(FileConcurrencyRecords.FILE_NAME + ".corrupt");
    for (JsonNode row : rows().values()) {
      assertFalse(row.path("recommendShare").booleanValue(), row.toString());
      assertTrue(detail(row, "concurrency_records_unreadable").contains(copy.toString()), row.toString());
    }
  }

  private static void assertArrayEquals(byte[] expected, byte[] actual, String message) {
    org.junit.jupiter.api.Assertions.assertArrayEquals(expected, actual, message);
  }
}
