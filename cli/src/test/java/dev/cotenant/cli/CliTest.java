package dev.cotenant.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.api.ExecutionIdentity;
import dev.cotenant.api.HazardCode;
import dev.cotenant.api.ServerDescription;
import dev.cotenant.gateway.identity.ExecutionIdentities;
import dev.cotenant.providers.records.FileHazardLedger;
import dev.cotenant.providers.records.FilePreflightCache;
import dev.cotenant.spi.PreflightResult;
import dev.cotenant.spi.ProviderConfig;
import dev.cotenant.spi.RecordStoreProvider;
import dev.cotenant.spi.RecordStores;
import dev.cotenant.spi.ProviderContext;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** Every {@code cotenant} command, in-process: exit statuses, output and one-line errors. */
class CliTest {
  private static final JsonMapper JSON = JsonMapper.builder().build();
  private static final String THREE =
      "{\"mcpServers\": {"
          + "\"alpha\": {\"command\": \"/nonexistent/cli-test/alpha\"},"
          + "\"beta\": {\"command\": \"/nonexistent/cli-test/beta\"},"
          + "\"off\": {\"command\": \"/nonexistent/cli-test/off\", \"disabled\": true},"
          + "\"web\": {\"type\": \"http\", \"url\": \"http://127.0.0.1:9/mcp\"}}}";

  @TempDir Path tmp;
  private CliHarness cli;

  @BeforeEach
  void world() throws IOException {
    cli = new CliHarness(tmp);
  }

  private static JsonNode json(String out) {
    return JSON.readTree(out);
  }

  private static void assertOneLineError(CliHarness.Result r, int code, String line) {
    assertEquals(code, r.code(), r.err());
    assertEquals("", r.out(), "nothing on standard output");
    assertEquals(List.of(line), r.errLines());
  }

  /** Asserts that {@code r} exited 0 (its standard error the message) and printed exactly {@code lines}. */
  private static void assertPrinted(CliHarness.Result r, String... lines) {
    assertEquals(0, r.code(), r.err());
    assertEquals(List.of(lines), r.out().lines().toList());
  }

  // ---- assess ----

  @Test
  void assessPrintsAnAlignedTableAndSpawnsNothing() throws IOException {
    cli.write("mcp.json", THREE);
    CliHarness.Result r = cli.run("assess", "mcp.json");
    assertPrinted(r,
        "NAME   STRENGTH      STUB  SHARE  SOURCE    REASONS",
        "alpha  unknown       no    no     mcp.json  not_probed",
        "beta   unknown       no    no     mcp.json  not_probed",
        "off    unknown       no    no     mcp.json  not_probed",
        "web    disqualified  no    no     mcp.json  not_stdio(http)");
    assertEquals("", r.err());
    assertEquals(0, cli.transport.created.get(), "assess never selects the pre-flight transport");
    assertEquals(0, cli.transport.total());
  }

  @Test
  void theTableEscapesWhatAFileChose() throws IOException {
    cli.write("mcp.json", "{\"mcpServers\": {\"odd\\u202ename\": {\"command\": \"/nonexistent/x\", \"env\": {\"ODD\\u001b_TOKEN\": \"v\"}}}}");
    CliHarness.Result r = cli.run("assess", "mcp.json");
    assertEquals(0, r.code(), r.err());
    List<String> lines = r.out().lines().toList();
    assertEquals(2, lines.size(), "one line per row: " + r.out());
    assertTrue(lines.get(1).startsWith("odd\\u202ename  unknown"), lines.get(1));
    assertTrue(lines.get(1).endsWith("not_probed, rotating_secret_env(ODD\\u001b_TOKEN)"), lines.get(1));
    JsonNode raw = json(cli.run("assess", "mcp.json", "--json").out());
    assertEquals("odd\u202ename", raw.path("servers").get(0).path("name").stringValue(), "JSON carries it verbatim");
  }

  @Test
  void assessWithoutConfigReadsTheUsualLocationsThatExistAndSaysWhich() throws IOException {
    cli.write(".mcp.json", "{\"mcpServers\": {\"project\": {\"command\": \"/nonexistent/p\"}, \"shared\": {\"command\": \"/nonexistent/first\"}}}");
    Path cursor = cli.home.resolve(".cursor/mcp.json");
    Files.createDirectories(cursor.getParent());
    Files.writeString(cursor, "{\"mcpServers\": {\"shared\": {\"command\": \"/nonexistent/second\"}, \"user\": {\"command\": \"/nonexistent/u\"}}}");
    CliHarness.Result r = cli.run("assess", "--json");
    assertEquals(0, r.code(), r.err());
    assertEquals(List.of("cotenant: reading .mcp.json, " + cursor), r.errLines());
    JsonNode servers = json(r.out()).path("servers");
    assertEquals(3, servers.size());
    assertEquals("shared", servers.get(1).path("name").stringValue());
    assertEquals(".mcp.json", servers.get(1).path("source").stringValue(), "the first file to define a name wins");
    assertEquals(cursor.toString(), servers.get(2).path("source").stringValue());
  }

  @Test
  void assessWithNoConfigurationAnywhereSaysWhereItLookedAndPrintsNoRows() {
    CliHarness.Result r = cli.run("assess", "--json");
    assertEquals(0, r.code(), r.err());
    assertEquals("{\"servers\":[]}\n", r.out());
    assertEquals(1, r.errLines().size());
    assertTrue(r.err().startsWith("cotenant: no MCP configuration file in the usual locations (.mcp.json, .vscode/mcp.json"), r.err());
  }

  @Test
  void aMissingConfigFileIsBadUsageNamingTheFile() {
    assertOneLineError(cli.run("assess", "missing.json"), 2, "cotenant: missing.json: no such file");
  }

  @Test
  void malformedJsonIsBadUsageNamingTheFileAndThePlace() throws IOException {
    cli.write("bad.json", "{\"mcpServers\": {\"a\" {\"command\": \"x\"}}}");
    CliHarness.Result r = cli.run("assess", "bad.json");
    assertOneLineError(
        r,
        2,
        "cotenant: bad.json: malformed JSON at line 1, column 21: Unexpected character ('{' (code 123)): was expecting a colon to separate property name and value");
  }

  @Test
  void anUnknownTransportIsBadUsageNamingTheServer() throws IOException {
    cli.write("t.json", "{\"mcpServers\": {\"sock\": {\"type\": \"websocket\", \"url\": \"ws://x\"}}}");
    assertOneLineError(
        cli.run("measure", "t.json"),
        2,
        "cotenant: t.json: server \"sock\" has unknown transport \"websocket\"; expected stdio, http, streamable-http or sse");
    assertEquals(0, cli.transport.total());
  }

  @Test
  void anUnknownOptionIsBadUsage() {
    assertOneLineError(cli.run("assess", "--frobnicate"), 2, "cotenant: Unknown option: '--frobnicate' (see 'cotenant assess --help')");
    assertOneLineError(cli.runRaw("hazards", "list", "--nope"), 2, "cotenant: Unknown option: '--nope' (see 'cotenant hazards list --help')");
  }

  @Test
  void noCommandAndAnUnknownCommandAreBadUsage() {
    assertOneLineError(cli.runRaw(), 2, "cotenant: missing command (assess, measure, hazards, seed, probe-stateless, register, share, serve, connect, status, stop, route, dashboard); see 'cotenant --help'");
    assertOneLineError(cli.runRaw("hazards"), 2, "cotenant: missing command (list, clear); see 'cotenant hazards --help'");
    assertOneLineError(cli.runRaw("frob"), 2, "cotenant: Unmatched argument at index 0: 'frob' (see 'cotenant --help')");
  }

  @Test
  void helpAndVersionSucceed() {
    CliHarness.Result help = cli.runRaw("--help");
    assertEquals(0, help.code());
    for (String c : List.of("assess", "measure", "hazards", "seed")) {
      assertTrue(help.out().contains(c), help.out());
    }
    CliHarness.Result version = cli.runRaw("--version");
    assertEquals(0, version.code());
    // Classes outside the jar have no manifest to read a version from.
    assertEquals("cotenant (development build)\n", version.out());
    CliHarness.Result sub = cli.runRaw("measure", "--help");
    assertEquals(0, sub.code());
    assertTrue(sub.out().contains("--records-dir") && sub.out().contains("--server"), sub.out());
  }

  // ---- records directory ----

  @Test
  void recordsDirAndSocketPathExcludeEachOther() throws IOException {
    cli.write("mcp.json", THREE);
    assertOneLineError(
        cli.runRaw("assess", "mcp.json", "--records-dir", "r", "--socket-path", "/run/gw.sock"),
        2,
        "cotenant: --records-dir and --socket-path exclude each other; give one");
  }

  @Test
  void pathOptionsAreRelativeToTheWorkingDirectoryOrTheHomeAndADotSocketIsUnset() throws IOException {
    cli.write("mcp.json", THREE);
    Map<List<String>, Path> where = new java.util.LinkedHashMap<>();
    where.put(List.of("--socket-path", "sock/gw.sock"), cli.cwd.resolve("sock"));
    where.put(List.of("--socket-path", "~/gws/gw.sock"), cli.home.resolve("gws"));
    where.put(List.of("--records-dir", "~/r"), cli.home.resolve("r"));
    where.put(List.of("--records-dir", "~"), cli.home);
    where.put(List.of("--records-dir", "rel/r"), cli.cwd.resolve("rel/r"));
    Path cotenantHome = tmp.resolve("cotenant-home");
    cli.env.put("COTENANT_HOME", cotenantHome.toString());
    // "", "." and "./" would otherwise mean "wherever the CLI was started": they count as unset.
    for (String unset : List.of("", ".", "./", " ")) {
      where.put(List.of("--socket-path", unset), cotenantHome.resolve("records"));
    }
    for (Map.Entry<List<String>, Path> e : where.entrySet()) {
      List<String> args = new java.util.ArrayList<>(List.of("measure", "mcp.json"));
      args.addAll(e.getKey());
      CliHarness.Result r = cli.runRaw(args.toArray(new String[0]));
      assertEquals(0, r.code(), e.getKey() + ": " + r.err());
      assertTrue(Files.exists(e.getValue().resolve(FilePreflightCache.FILE_NAME)), e.getKey() + " puts the records in "
          + e.getValue());
      Files.delete(e.getValue().resolve(FilePreflightCache.FILE_NAME));
    }
  }

  @Test
  void aSetWithoutAKeyIsAUsageErrorNamingWhatWasGiven() throws IOException {
    cli.write("mcp.json", THREE);
    assertOneLineError(cli.run("assess", "mcp.json", "--set", "=initialize"), 2,
        "cotenant: --set needs KEY=VALUE, got '=initialize'");
    assertOneLineError(cli.run("assess", "mcp.json", "--set", "cotenant.preflight.era"), 2,
        "cotenant: --set needs KEY=VALUE, got 'cotenant.preflight.era'");
  }

  @Test
  void theRecordsLiveBesideTheSocketThenInCotenantHome() throws IOException {
    cli.write("mcp.json", THREE);
    Path sockDir = Files.createDirectories(tmp.resolve("sock"));
    CliHarness.Result bySocket = cli.runRaw("measure", "mcp.json", "--socket-path", sockDir.resolve("gw.sock").toString());
    assertEquals(0, bySocket.code(), bySocket.err());
    assertTrue(Files.exists(sockDir.resolve(FilePreflightCache.FILE_NAME)), "records beside the socket");

    Path cotenantHome = tmp.resolve("cotenant-home");
    cli.env.put("COTENANT_HOME", cotenantHome.toString());
    cli.transport.calls.clear();
    CliHarness.Result byHome = cli.runRaw("measure", "mcp.json");
    assertEquals(0, byHome.code(), byHome.err());
    assertTrue(Files.exists(cotenantHome.resolve("records").resolve(FilePreflightCache.FILE_NAME)));
    assertEquals(2, cli.transport.total(), "another records directory has no measurements yet");

    cli.env.put("COTENANT_HOME", "relative/home");
    assertOneLineError(
        cli.runRaw("assess", "mcp.json"),
        2,
        "cotenant: COTENANT_HOME 'relative/home' is a relative path; give an absolute path (or one starting with ~/)");
  }

  // ---- measure ----

  @Test
  void onATerminalTheProgressLineRedrawsInPlaceAndNamesTheServersBeingMeasured() throws Exception {
    cli.write("mcp.json", THREE);
    cli.interactive = true;
    java.util.concurrent.CountDownLatch gate = new java.util.concurrent.CountDownLatch(1);
    cli.transport.gates.put("alpha", gate);
    java.util.concurrent.CompletableFuture<CliHarness.Result> run =
        java.util.concurrent.CompletableFuture.supplyAsync(() -> cli.run("measure", "mcp.json", "--json"));
    long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(30);
    while (!cli.liveErr.toString().contains("(now: alpha") && System.nanoTime() < deadline && !run.isDone()) {
      Thread.sleep(10);
    }
    String during = cli.liveErr.toString();
    gate.countDown();
    CliHarness.Result r = run.get(30, java.util.concurrent.TimeUnit.SECONDS);
    assertEquals(0, r.code(), r.err());
    assertTrue(during.contains("\rmeasuring: ") && during.contains(" measured (now: alpha"), during);
    assertTrue(r.err().contains("\rmeasuring: 2/2 done, 2 measured\u001b[K\n"), r.err());
    assertTrue(json(r.out()).path("servers").isArray(), "standard output keeps the rows");
  }

  @Test
  void measureRunsAnUncappedPassShowsProgressThenTheRows() throws IOException {
    cli.write("mcp.json", THREE);
    cli.transport.answers.put("beta", PreflightResult.notRun("needs a credential"));
    CliHarness.Result r = cli.run("measure", "mcp.json", "--json");
    assertEquals(0, r.code(), r.err());
    assertEquals(1, cli.transport.calls("alpha"));
    assertEquals(1, cli.transport.calls("beta"));
    assertEquals(0, cli.transport.calls("off"), "a disabled server is never spawned");
    assertEquals(0, cli.transport.calls("web"), "an http server is never spawned");
    List<String> err = r.errLines();
    assertEquals("measuring: 2/2 done, 1 measured", err.get(err.size() - 2), r.err());
    assertEquals("cotenant: measured 1 of 2 servers", err.get(err.size() - 1));
    for (String line : err.subList(0, err.size() - 1)) {
      assertTrue(line.matches("measuring: [0-2]/2 done, [0-1] measured"), line);
    }
    JsonNode servers = json(r.out()).path("servers");
    assertEquals("measured", servers.get(0).path("strength").stringValue());
    assertEquals("unknown", servers.get(1).path("strength").stringValue(), "could not ask is not unsafe");
    assertEquals("preflight_not_run", servers.get(1).path("reasons").get(1).path("code").stringValue());
    assertEquals("needs a credential", servers.get(1).path("reasons").get(1).path("detail").stringValue());
    assertEquals("disqualified", servers.get(3).path("strength").stringValue());

    CliHarness.Result again = cli.run("measure", "mcp.json");
    assertEquals(0, again.code(), again.err());
    assertEquals(1, cli.transport.calls("alpha"), "a stored measurement under the same identity is not taken again");
    assertEquals(2, cli.transport.calls("beta"), "a server that could not be asked is tried again");
  }

  @Test
  void measureWithServerMeasuresAndShowsOnlyThose() throws IOException {
    cli.write("mcp.json", THREE);
    CliHarness.Result r = cli.run("measure", "mcp.json", "--server", "beta", "--json");
    assertEquals(0, r.code(), r.err());
    assertEquals(0, cli.transport.calls("alpha"));
    assertEquals(1, cli.transport.calls("beta"));
    JsonNode servers = json(r.out()).path("servers");
    assertEquals(1, servers.size());
    assertEquals("beta", servers.get(0).path("name").stringValue());

    CliHarness.Result nothing = cli.run("measure", "mcp.json", "--server", "off");
    assertEquals(0, nothing.code());
    assertEquals(
        List.of("cotenant: nothing to measure: every enabled stdio server already has a measurement under its current identity"),
        nothing.errLines());
  }

  @Test
  void measureAnUnknownServerIsBadUsage() throws IOException {
    cli.write("mcp.json", THREE);
    assertOneLineError(cli.run("measure", "mcp.json", "--server", "gamma"), 2, "cotenant: no server named \"gamma\" in mcp.json");
    assertEquals(0, cli.transport.total());
  }

  @Test
  void aRecordsDirectoryThatCannotBeWrittenIsOneLineNamingItWithoutAStackTraceUnlessDebug() throws IOException {
    cli.write("mcp.json", THREE);
    // A records "directory" that is a regular file cannot hold the cache: the flush fails.
    Path notADir = cli.write("plain-file", "x");
    CliHarness.Result r = cli.runRaw("measure", "mcp.json", "--records-dir", notADir.toString());
    assertEquals(1, r.code(), r.err());
    assertEquals("", r.out());
    assertEquals(1, r.errLines().size(), r.err());
    assertTrue(r.err().startsWith("cotenant: cannot write " + notADir), r.err());
    assertTrue(r.err().strip().endsWith("put the records elsewhere with --records-dir DIR or the COTENANT_HOME environment variable"),
        r.err());

    CliHarness.Result debug = cli.runRaw("measure", "mcp.json", "--records-dir", notADir.toString(), "--debug");
    assertEquals(1, debug.code());
    assertTrue(debug.errLines().size() > 1, "the stack trace follows the line");
    assertTrue(debug.err().contains("\tat "), debug.err());
  }

  @Test
  void aRecordStoreThatCannotBeCreatedIsAnInternalErrorOnOneLine() throws IOException {
    cli.write("mcp.json", THREE);
    StringWriterPair io = new StringWriterPair();
    RecordStoreProvider broken =
        new RecordStoreProvider() {
          @Override
          public String name() {
            return "broken";
          }

          @Override
          public RecordStores create(ProviderContext context) {
            throw new IllegalStateException("disk on fire");
          }
        };
    CliContext context = io.context(cli).withRuntime(b -> b.recordStores(broken).preflightTransport(cli.transport));
    int code = new Cli(context).run("assess", "mcp.json");
    assertEquals(1, code);
    assertEquals("", io.out.toString());
    assertEquals(1, io.err.toString().lines().count(), io.err.toString());
    assertTrue(io.err.toString().contains("disk on fire"), io.err.toString());
  }

  // ---- hazards ----

  @Test
  void hazardsListShowsEveryIdentityAndClearForgetsThem() throws IOException {
    FileHazardLedger ledger = FileHazardLedger.open(cli.records, () -> 1_700_000_000_000L);
    ledger.record("alpha", "a".repeat(64), HazardCode.CROSS_SESSION_LEAK, 2);
    ledger.record("alpha", "b".repeat(64), HazardCode.UNROUTABLE_SERVER_REQUEST, 3);
    ledger.record("beta", "c".repeat(64), HazardCode.UNATTRIBUTABLE_NOTIFICATION, 2);
    ledger.flush();

    CliHarness.Result table = cli.run("hazards", "list");
    assertPrinted(table,
        "NAME   IDENTITY      CODES                        COUNT  LAST_SEEN",
        "alpha  aaaaaaaaaaaa  cross_session_leak           1      2023-11-14T22:13:20Z",
        "alpha  bbbbbbbbbbbb  unroutable_server_request    1      2023-11-14T22:13:20Z",
        "beta   cccccccccccc  unattributable_notification  1      2023-11-14T22:13:20Z");

    JsonNode json = json(cli.run("hazards", "list", "--json").out());
    assertEquals("alpha", json.path("servers").get(0).path("name").stringValue());
    assertEquals("a".repeat(64), json.path("servers").get(0).path("identities").get(0).path("identity").stringValue());
    assertEquals("cross_session_leak", json.path("servers").get(0).path("identities").get(0).path("codes").get(0).stringValue());

    CliHarness.Result clear = cli.run("hazards", "clear", "alpha");
    assertEquals(0, clear.code(), clear.err());
    assertEquals("cleared every hazard record of alpha\n", clear.out());
    assertEquals(List.of("beta"), List.copyOf(FileHazardLedger.open(cli.records).serverNames()), "cleared on disk");

    CliHarness.Result again = cli.run("hazards", "clear", "alpha", "--json");
    assertEquals(0, again.code());
    assertEquals("{\"name\":\"alpha\",\"cleared\":false}\n", again.out());
    assertEquals("no hazard records for alpha; nothing to clear\n", cli.run("hazards", "clear", "alpha").out());
  }

  @Test
  void hazardsListOnAnEmptyLedgerSaysSo() {
    CliHarness.Result r = cli.run("hazards", "list");
    assertEquals(0, r.code());
    assertEquals("", r.out());
    assertEquals(List.of("cotenant: no hazards observed (records in " + cli.records + ")"), r.errLines());
    assertEquals("{\"servers\":[]}\n", cli.run("hazards", "list", "--json").out());
  }

  @Test
  void aHazardWithoutATimeShowsADash() throws IOException {
    FileHazardLedger ledger = FileHazardLedger.open(cli.records, () -> 0L);
    ledger.record("alpha", "a".repeat(64), HazardCode.CROSS_SESSION_LEAK, 2);
    ledger.flush();
    assertEquals(List.of("NAME   IDENTITY      CODES               COUNT  LAST_SEEN", "alpha  aaaaaaaaaaaa  cross_session_leak  1      -"),
        cli.run("hazards", "list").out().lines().toList());
  }

  @Test
  void hazardsClearNeedsAName() {
    assertOneLineError(
        cli.runRaw("hazards", "clear"), 2, "cotenant: Missing required parameter: 'NAME' (see 'cotenant hazards clear --help')");
  }

  // ---- seed ----

  private void measureAlphaAndBeta() throws IOException {
    ExecutionIdentities ids = ExecutionIdentities.fromConfig(ProviderConfig.empty(), cli.env);
    FilePreflightCache cache = FilePreflightCache.open(cli.records);
    for (String n : List.of("alpha", "beta")) {
      ExecutionIdentity id = ids.identify(ServerDescription.stdio(n, "/nonexistent/cli-test/" + n));
      cache.put(new dev.cotenant.spi.PreflightRecord(n, id.cacheKey(), true, false, List.of(), 1.0, java.util.Optional.empty(),
          java.util.Optional.of(CliHarness.FACTS)));
    }
    cache.flush();
  }

  @Test
  void seedPrintsThePlanAndWritesNothing() throws IOException {
    Path config = cli.write("mcp.json", THREE.replace("{\"mcpServers\"", "{\"cotenant\": {\"sharing\": false}, \"mcpServers\""));
    measureAlphaAndBeta();
    String before = Files.readString(config);
    CliHarness.Result r = cli.run("seed", "--config", "mcp.json");
    assertPrinted(r,
        "seed plan for mcp.json:",
        "  stub:            alpha, beta",
        "  wants sharing:   (none)",
        "  already seeded:  (none)",
        "nothing written; rerun with --apply to write the stub overrides into mcp.json");
    assertEquals(before, Files.readString(config), "a plan writes nothing");
    assertTrue(FilePreflightCache.open(cli.records).load().applied().isEmpty(), "nor any marker");
  }

  @Test
  void seedApplyWritesStubOverridesOnceAndNeverTheSharingSwitch() throws IOException {
    Path config = cli.write("mcp.json", THREE.replace("{\"mcpServers\"", "{\"cotenant\": {\"sharing\": false}, \"mcpServers\""));
    measureAlphaAndBeta();
    CliHarness.Result r = cli.run("seed", "--config", "mcp.json", "--apply", "--json");
    assertEquals(0, r.code(), r.err());
    assertEquals(
        "{\"config\":\"mcp.json\",\"applied\":true,\"stubOverrides\":{\"alpha\":true,\"beta\":true},\"wantsShare\":[],\"alreadySeeded\":[]}\n",
        r.out());
    JsonNode written = JSON.readTree(Files.readString(config));
    assertEquals(false, written.path("cotenant").path("sharing").booleanValue(), "the sharing switch is untouched");
    assertEquals(true, written.path("cotenant").path("stubOverrides").path("alpha").booleanValue());
    assertEquals(4, written.path("mcpServers").size(), "the servers are kept");

    // The operator switches alpha off; a later seed leaves it off.
    Files.writeString(config, Files.readString(config).replace("\"alpha\": true", "\"alpha\": false"));
    assertEquals(false, JSON.readTree(Files.readString(config)).path("cotenant").path("stubOverrides").path("alpha").booleanValue());
    CliHarness.Result again = cli.run("seed", "--config", "mcp.json", "--apply");
    assertEquals(0, again.code(), again.err());
    assertTrue(again.out().contains("already seeded:  alpha, beta (left as configured)"), again.out());
    assertEquals(List.of("alpha", "beta"), JSON.readTree(cli.run("seed", "--config", "mcp.json", "--json").out())
        .path("alreadySeeded").valueStream().map(JsonNode::stringValue).toList());
    assertEquals(false, JSON.readTree(Files.readString(config)).path("cotenant").path("stubOverrides").path("alpha").booleanValue());
    assertFalse(JSON.readTree(Files.readString(config)).path("cotenant").path("sharing").booleanValue());
  }

  @Test
  void seedNeedsAConfigAndAReadableOne() throws IOException {
    assertOneLineError(
        cli.runRaw("seed"), 2, "cotenant: Missing required option: '--config=FILE' (see 'cotenant seed --help')");
    assertOneLineError(cli.run("seed", "--config", "absent.json"), 2, "cotenant: absent.json: no such file");
    measureAlphaAndBeta();
    cli.write("cfg.json", THREE.replace("{\"mcpServers\"", "{\"cotenant\": [], \"mcpServers\""));
    assertOneLineError(
        cli.run("seed", "--config", "cfg.json", "--apply"), 2, "cotenant: cfg.json: \"cotenant\" must be an object, found an array");
  }

  /** Output and error writers for a hand-built context. */
  private static final class StringWriterPair {
    final java.io.StringWriter out = new java.io.StringWriter();
    final java.io.StringWriter err = new java.io.StringWriter();

    CliContext context(CliHarness h) {
      return CliContext.of(new java.io.PrintWriter(out, true), new java.io.PrintWriter(err, true), h.env, h.cwd, h.home);
    }
  }
}
