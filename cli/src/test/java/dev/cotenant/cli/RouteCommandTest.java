package dev.cotenant.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.api.ServerDescription;
import dev.cotenant.cli.route.ConfigText;
import dev.cotenant.gateway.config.ConfigException;
import dev.cotenant.gateway.config.ConfiguredServer;
import dev.cotenant.gateway.config.McpConfigReader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.core.json.JsonReadFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** {@code cotenant route}: a client's stdio servers launch {@code connect}, their originals kept aside and put back. */
class RouteCommandTest {
  private static final JsonMapper JSON = JsonMapper.builder().build();
  private static final JsonMapper JSONC = JsonMapper.builder()
      .enable(JsonReadFeature.ALLOW_JAVA_COMMENTS)
      .enable(JsonReadFeature.ALLOW_TRAILING_COMMA)
      .build();
  private static final String LAUNCHER = "/some/cotenant";

  private static final String CLAUDE = """
      {
        "globalShortcut": "Ctrl+Space",
        "mcpServers": {
          "files": {
            "command": "/usr/bin/npx",
            "args": ["-y", "@modelcontextprotocol/server-filesystem", "/home/ana/notes"],
            "env": {"TOKEN": "s3cret", "DEBUG": "1"},
            "cwd": "/home/ana"
          },
          "git": {"command": "uvx", "args": ["mcp-server-git"]},
          "web": {"url": "https://mcp.example.com/mcp"}
        },
        "preferences": {"theme": "dark"}
      }
      """;

  @TempDir Path tmp;
  private CliHarness cli;
  private Path config;

  @BeforeEach
  void world() throws IOException {
    cli = new CliHarness(tmp);
    config = cli.write("claude_desktop_config.json", CLAUDE);
  }

  private Path routes() {
    return cli.home.resolve(".cotenant/routes");
  }

  private Path sidecar() throws IOException {
    try (Stream<Path> s = Files.list(routes())) {
      List<Path> files = s.toList();
      assertEquals(1, files.size(), files.toString());
      return files.get(0);
    }
  }

  private CliHarness.Result route(String... more) {
    String[] args = Stream.concat(Stream.of("route", "claude_desktop_config.json", "--all", "--launcher", LAUNCHER), Stream.of(more))
        .toArray(String[]::new);
    return cli.run(args);
  }

  private static List<String> strings(JsonNode array) {
    return java.util.stream.StreamSupport.stream(array.spliterator(), false).map(JsonNode::stringValue).toList();
  }

  @Test
  void withoutApplyTheRewrittenFileIsPrintedAndNothingIsWritten() throws IOException {
    CliHarness.Result r = route();

    assertEquals(0, r.code(), r.err());
    JsonNode out = JSON.readTree(r.out());
    String expectedSidecar = cli.home.resolve(".cotenant/routes").toString() + "/claude_desktop_config-";
    for (String name : List.of("files", "git")) {
      JsonNode e = out.path("mcpServers").path(name);
      assertEquals(LAUNCHER, e.path("command").stringValue(), r.out());
      List<String> args = strings(e.path("args"));
      assertEquals(3, args.size(), args.toString());
      assertEquals(List.of("connect", name), args.subList(0, 2));
      assertTrue(args.get(2).startsWith(expectedSidecar) && args.get(2).matches(".*-[0-9a-f]{12}\\.json"), args.get(2));
      assertFalse(e.has("env"), "the original env goes to the sidecar, not to the client");
      assertFalse(e.has("type"));
    }
    JsonNode original = JSON.readTree(CLAUDE);
    assertEquals(original.path("mcpServers").path("web"), out.path("mcpServers").path("web"));
    assertEquals("Ctrl+Space", out.path("globalShortcut").stringValue());
    assertEquals(original.path("preferences"), out.path("preferences"));
    assertEquals(List.of("globalShortcut", "mcpServers", "preferences"), List.copyOf(out.propertyNames()));
    assertTrue(r.err().contains("  routed:          files, git\n"), r.err());
    assertTrue(r.err().contains("  not routed:      web (remote (url): the client reaches it directly)\n"), r.err());
    assertTrue(r.err().contains("nothing written; rerun with --apply"), r.err());
    assertEquals(CLAUDE, Files.readString(config), "the file is untouched");
    assertFalse(Files.exists(cli.home.resolve(".cotenant")), "no sidecar");
  }

  @Test
  void onOneTerminalThePlanComesBeforeItsSummary() {
    java.io.StringWriter terminal = new java.io.StringWriter();
    // Standard output buffered, standard error not, both on one terminal.
    CliContext context = CliContext.of(new java.io.PrintWriter(new java.io.BufferedWriter(terminal)),
        new java.io.PrintWriter(terminal, true), cli.env, cli.cwd, cli.home);
    assertEquals(0, new Cli(context).run("route", "claude_desktop_config.json", "--all", "--launcher", LAUNCHER));
    String shown = terminal.toString();
    // (The warning about the launcher, written before the plan, comes first.)
    assertTrue(shown.contains("\"mcpServers\"") && shown.indexOf("route plan for claude_desktop_config.json:")
        > shown.lastIndexOf("\"preferences\""), shown);
  }

  @Test
  void applyWritesThePrintedFileAndAPrivateSidecarHoldingTheOriginals() throws IOException {
    String planned = route().out();

    CliHarness.Result r = route("--apply");

    assertEquals(0, r.code(), r.err());
    assertEquals(planned, Files.readString(config), "--apply writes what the plan printed");
    Path sidecar = sidecar();
    assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(sidecar)));
    assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(routes())));
    JsonNode kept = JSON.readTree(Files.readString(sidecar));
    JsonNode original = JSON.readTree(CLAUDE).path("mcpServers");
    assertEquals(config.toString(), kept.path("routedFrom").stringValue());
    assertEquals(original.path("files"), kept.path("mcpServers").path("files"));
    assertEquals(original.path("git"), kept.path("mcpServers").path("git"));
    assertFalse(kept.path("mcpServers").has("web"), "a remote server stays with the client");
    assertEquals(sidecar.toString(), strings(JSON.readTree(planned).path("mcpServers").path("files").path("args")).get(2));
    assertTrue(r.out().startsWith("routed claude_desktop_config.json:\n  sidecar:         " + sidecar + "\n"), r.out());
  }

  @Test
  void theDaemonReadsTheSidecarAsAnOrdinaryConfigurationWithTheOriginalLaunches() throws Exception {
    assertEquals(0, route("--apply").code());

    List<ConfiguredServer> servers = new McpConfigReader().readFile(sidecar());

    assertEquals(List.of("files", "git"), servers.stream().map(ConfiguredServer::name).toList());
    ServerDescription files = servers.get(0).description();
    assertEquals("/usr/bin/npx", files.command());
    assertEquals(List.of("-y", "@modelcontextprotocol/server-filesystem", "/home/ana/notes"), files.args());
    assertEquals(Map.of("TOKEN", "s3cret", "DEBUG", "1"), files.env());
    assertEquals("/home/ana", files.cwd().orElseThrow());
    assertEquals("uvx", servers.get(1).description().command());
    assertEquals(List.of("mcp-server-git"), servers.get(1).description().args());
  }

  @Test
  void routingAgainChangesNothing() throws IOException {
    assertEquals(0, route("--apply").code());
    byte[] client = Files.readAllBytes(config);
    Path sidecar = sidecar();
    byte[] kept = Files.readAllBytes(sidecar);

    CliHarness.Result dry = route();
    CliHarness.Result again = route("--apply");

    assertEquals(0, again.code(), again.err());
    assertEquals(new String(client, java.nio.charset.StandardCharsets.UTF_8), dry.out());
    assertTrue(dry.err().contains("nothing to change"), dry.err());
    assertTrue(again.out().contains("  routed:          (none)\n  already routed:  files, git\n"), again.out());
    assertArrayEquals(client, Files.readAllBytes(config));
    assertArrayEquals(kept, Files.readAllBytes(sidecar));
  }

  @Test
  void undoApplyRestoresTheOriginalsAndRemovesTheSidecar() throws IOException {
    assertEquals(0, route("--apply").code());
    Path sidecar = sidecar();

    CliHarness.Result dry = cli.run("route", "claude_desktop_config.json", "--undo");
    assertEquals(0, dry.code(), dry.err());
    assertEquals(JSON.readTree(CLAUDE), JSON.readTree(dry.out()));
    assertTrue(Files.exists(sidecar), "a plan writes nothing");

    CliHarness.Result r = cli.run("route", "claude_desktop_config.json", "--undo", "--apply");

    assertEquals(0, r.code(), r.err());
    assertEquals(JSON.readTree(CLAUDE), JSON.readTree(Files.readString(config)));
    assertFalse(Files.exists(sidecar), "no original left, so no sidecar");
    assertTrue(r.out().contains("  restored:        files, git\n  left:            (none)\n"), r.out());
    assertTrue(r.out().contains("  sidecar removed: no original left in it"), r.out());
  }

  @Test
  void theJsonOfARouteAgainAndOfAnUndoNamesEveryEntryAndTheTextSaysWhatAnUndoWouldDo() throws IOException {
    assertEquals(0, route("--apply").code());
    JsonNode again = JSON.readTree(route("--json").out());
    assertEquals(List.of(), strings(again.path("routed")));
    assertEquals(List.of("files", "git"), strings(again.path("alreadyRouted")));
    assertEquals("web", again.path("notRouted").path(0).path("name").stringValue());

    CliHarness.Result dry = cli.run("route", "claude_desktop_config.json", "--undo");
    assertEquals(0, dry.code(), dry.err());
    List<String> err = dry.errLines();
    assertEquals("undo plan for claude_desktop_config.json:", err.get(0), dry.err());
    assertEquals("nothing written; rerun with --undo --apply to write claude_desktop_config.json and the sidecar",
        err.get(err.size() - 1), dry.err());

    JsonNode plan = JSON.readTree(cli.run("route", "claude_desktop_config.json", "--undo", "--json").out());
    assertTrue(plan.path("undo").asBoolean() && !plan.path("applied").asBoolean(), plan.toString());
    assertEquals(List.of("files", "git"), strings(plan.path("restored")));
    assertEquals(0, plan.path("left").size());
    assertFalse(plan.path("sidecarRemoved").asBoolean(), "a plan removes nothing");
    assertEquals(JSON.readTree(CLAUDE), JSON.readTree(plan.path("content").stringValue()));

    JsonNode undone = JSON.readTree(cli.run("route", "claude_desktop_config.json", "--undo", "--apply", "--json").out());
    assertTrue(undone.path("applied").asBoolean(), undone.toString());
    assertTrue(undone.path("sidecarRemoved").asBoolean(), undone.toString());
    assertFalse(undone.has("content"), "an applied plan is in the file, not in the answer");
  }

  @Test
  void aLauncherPathIsResolvedAndOneThatCannotRunIsWarnedAboutWhileACommandNameIsKept() throws IOException {
    JsonNode relative = JSON.readTree(cli.run("route", "claude_desktop_config.json", "--all", "--launcher", "bin/cotenant").out());
    String resolved = cli.cwd.resolve("bin/cotenant").toString();
    assertEquals(resolved, relative.path("mcpServers").path("git").path("command").stringValue());
    CliHarness.Result missing = cli.run("route", "claude_desktop_config.json", "--all", "--launcher", "bin/cotenant");
    assertTrue(missing.errLines().contains("cotenant: warning: the launcher " + resolved
        + " is not an executable file; the client will fail to start it"), missing.err());

    Path script = cli.write("bin/cotenant", "#!/bin/sh\n");
    Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwx------"));
    CliHarness.Result runnable = cli.run("route", "claude_desktop_config.json", "--all", "--launcher", "bin/cotenant");
    assertFalse(runnable.err().contains("warning"), runnable.err());

    CliHarness.Result onPath = cli.run("route", "claude_desktop_config.json", "--all", "--launcher", "cotenant");
    assertEquals(0, onPath.code(), onPath.err());
    assertEquals("cotenant", JSON.readTree(onPath.out()).path("mcpServers").path("git").path("command").stringValue(),
        "a command name is left for the client's PATH");
    assertFalse(onPath.err().contains("warning"), onPath.err());
  }

  @Test
  void anExplicitCotenantHomeTravelsWithTheRoutedEntryAndADotHomeDoesNot() throws IOException {
    Path home = tmp.resolve("elsewhere");
    cli.env.put("COTENANT_HOME", home.toString());
    JsonNode routed = JSON.readTree(route().out());
    assertEquals(home.toString(), routed.path("mcpServers").path("git").path("env").path("COTENANT_HOME").stringValue(),
        routed.toString());
    for (String unset : List.of("", ".", "./")) {
      cli.env.put("COTENANT_HOME", unset);
      JsonNode plain = JSON.readTree(route().out());
      assertFalse(plain.path("mcpServers").path("git").has("env"), "'" + unset + "': " + plain);
    }
  }

  @Test
  void aVsCodeFileKeepsItsCommentsAndTheStdioType() throws IOException {
    String jsonc = """
        {
          // servers for this workspace
          "servers": {
            /* the local one */
            "echo": {
              "type": "stdio",
              "command": "/opt/echo/bin/echo-server",
              "args": ["--verbose",], // trailing comma, as VS Code allows
            },
            "remote": {"type": "http", "url": "https://mcp.example.com/mcp"},
          },
          "inputs": [],
        }
        """;
    Path vscode = cli.write(".vscode/mcp.json", jsonc);

    CliHarness.Result r = cli.run("route", ".vscode/mcp.json", "--all", "--launcher", LAUNCHER, "--apply");

    assertEquals(0, r.code(), r.err());
    String written = Files.readString(vscode);
    assertTrue(written.contains("// servers for this workspace\n"), written);
    assertTrue(written.contains("/* the local one */\n"), written);
    assertTrue(written.contains("\"remote\": {\"type\": \"http\", \"url\": \"https://mcp.example.com/mcp\"},\n"), written);
    JsonNode echo = JSONC.readTree(written).path("servers").path("echo");
    assertEquals("stdio", echo.path("type").stringValue(), written);
    assertEquals(LAUNCHER, echo.path("command").stringValue());
    assertEquals(List.of("connect", "echo", sidecar().toString()), strings(echo.path("args")));
    assertEquals(JSONC.readTree(jsonc).path("servers").path("echo"), JSON.readTree(Files.readString(sidecar())).path("mcpServers").path("echo"));

    assertEquals(0, cli.run("route", ".vscode/mcp.json", "--undo", "--apply").code());
    assertEquals(jsonc, Files.readString(vscode),
        "undone verbatim: the comment and trailing comma inside the entry are back, byte for byte");
  }

  /** A one-line entry comes back on one line, as it was, not reformatted. */
  @Test
  void aRoutedOneLineEntryIsRestoredAsItWas() throws IOException {
    String text = "{\"mcpServers\": {\"echo\": {\"command\":\"/opt/echo/bin/echo-server\" , \"args\":[\"-v\"]}}}\n";
    Path file = cli.write("one-line.json", text);
    assertEquals(0, cli.run("route", "one-line.json", "--all", "--launcher", LAUNCHER, "--apply").code());
    assertFalse(Files.readString(file).equals(text), "routed");
    assertEquals(0, cli.run("route", "one-line.json", "--undo", "--apply").code());
    assertEquals(text, Files.readString(file));
  }

  @Test
  void undoLeavesAnEntryEditedSinceRoutingAndKeepsItsOriginal() throws IOException {
    assertEquals(0, route("--apply").code());
    Path sidecar = sidecar();
    String routed = Files.readString(config);
    String edited = routed.replace("\"command\": \"" + LAUNCHER + "\",\n      \"args\": [\n        \"connect\",\n        \"files\"",
        "\"command\": \"" + LAUNCHER + "\",\n      \"env\": {\"EXTRA\": \"1\"},\n      \"args\": [\n        \"connect\",\n        \"files\"");
    assertFalse(edited.equals(routed), routed);
    Files.writeString(config, edited);

    JsonNode plan = JSON.readTree(cli.run("route", "claude_desktop_config.json", "--undo", "--json").out());
    assertEquals("files", plan.path("left").path(0).path("name").stringValue(), plan.toString());
    assertEquals("changed since it was routed; its original stays in the sidecar",
        plan.path("left").path(0).path("reason").stringValue());
    CliHarness.Result r = cli.run("route", "claude_desktop_config.json", "--undo", "--apply");

    assertEquals(0, r.code(), r.err());
    assertTrue(r.out().contains("  restored:        git\n"), r.out());
    assertTrue(r.out().contains("  left:            files (changed since it was routed; its original stays in the sidecar)\n"), r.out());
    JsonNode now = JSON.readTree(Files.readString(config));
    assertEquals(JSON.readTree(edited).path("mcpServers").path("files"), now.path("mcpServers").path("files"), "left as edited");
    assertEquals(JSON.readTree(CLAUDE).path("mcpServers").path("git"), now.path("mcpServers").path("git"));
    JsonNode kept = JSON.readTree(Files.readString(sidecar));
    assertEquals(JSON.readTree(CLAUDE).path("mcpServers").path("files"), kept.path("mcpServers").path("files"));
    assertFalse(kept.path("mcpServers").has("git"), "a restored original leaves the sidecar");
  }

  @Test
  void aMalformedFileIsAOneLineErrorAndNothingIsWritten() throws IOException {
    String bad = "{\"mcpServers\": {\"a\" {\"command\": \"x\"}}}";
    cli.write("bad.json", bad);

    CliHarness.Result r = cli.run("route", "bad.json", "--launcher", LAUNCHER, "--apply");

    assertEquals(Cli.EXIT_USAGE, r.code(), r.err());
    assertEquals("", r.out());
    assertEquals(1, r.errLines().size(), r.err());
    assertTrue(r.err().startsWith("cotenant: bad.json: malformed JSON at line 1, column 21: "), r.err());
    assertEquals(bad, Files.readString(cli.cwd.resolve("bad.json")));
    assertFalse(Files.exists(cli.home.resolve(".cotenant")), "no sidecar");
  }

  @Test
  void withoutAJarToStartTheLauncherIsRequired() throws IOException {
    CliHarness.Result r = cli.run("route", "claude_desktop_config.json");

    assertEquals(Cli.EXIT_USAGE, r.code(), r.err());
    assertEquals(List.of("cotenant: not running from cotenant.jar, so there is no jar for the client to start; "
        + "name the command with --launcher PATH (e.g. --launcher /path/to/cotenant)"), r.errLines());
    assertEquals("", r.out());
  }

  @Test
  void entriesTheDaemonCouldNotLaunchAlikeAreLeftWithTheReason() throws IOException {
    cli.write("mcp.json", """
        {"mcpServers": {
          "ws": {"command": "node", "args": ["${workspaceFolder}/server.js"]},
          "rel": {"command": "./bin/server"},
          "off": {"command": "/usr/bin/server", "disabled": true},
          "sse": {"type": "sse", "url": "http://127.0.0.1:9/sse"},
          "ok": {"command": "/usr/bin/server"}
        }}
        """);

    CliHarness.Result r = cli.run("route", "mcp.json", "--all", "--launcher", LAUNCHER, "--json");

    assertEquals(0, r.code(), r.err());
    JsonNode o = JSON.readTree(r.out());
    assertEquals(List.of("ok"), strings(o.path("routed")));
    Map<String, String> why = new java.util.LinkedHashMap<>();
    o.path("notRouted").forEach(n -> why.put(n.path("name").stringValue(), n.path("reason").stringValue()));
    assertEquals(List.of("ws", "rel", "off", "sse"), List.copyOf(why.keySet()));
    assertTrue(why.get("ws").contains("${...} placeholders"), why.toString());
    assertTrue(why.get("rel").contains("relative path"), why.toString());
    assertEquals("disabled", why.get("off"));
    assertEquals("remote (sse): the client reaches it directly", why.get("sse"));
    assertFalse(o.path("applied").asBoolean());
    assertEquals("node", JSON.readTree(o.path("content").stringValue()).path("mcpServers").path("ws").path("command").stringValue());
  }

  @Test
  void aFileChangedSinceItWasReadIsNotWritten() throws Exception {
    Path file = cli.write("mcp.json", "{\"mcpServers\": {}}\n");
    Files.writeString(file, "{\"mcpServers\": {\"new\": {\"command\": \"/x\"}}}\n");

    ConfigException e =
        assertThrows(ConfigException.class, () -> ConfigText.write(file, "{\"mcpServers\": {}}\n", "{\"routed\": true}\n"));

    assertTrue(e.problem().startsWith("changed since it was read; nothing was written"), e.problem());
    assertEquals("{\"mcpServers\": {\"new\": {\"command\": \"/x\"}}}\n", Files.readString(file));
  }

  /**
   * By default only servers whose sessions the daemon would place on a shared backend are routed
   * (here `git`, forced); the others stay direct with their reason, since a shim would only add to
   * a backend of their own. `--refresh` restores a routed entry whose sessions would no longer
   * share, and routes one that now would. Before, every stdio server was routed.
   */
  @Test
  void byDefaultOnlyServersThatWouldShareAreRoutedAndRefreshFollowsTheVerdicts() throws IOException {
    JsonNode plan = JSON.readTree(cli.run("route", "claude_desktop_config.json", "--launcher", LAUNCHER, "--apply",
        "--json", "--set", "cotenant.sharing.forced=git").out());
    assertEquals("[\"git\"]", plan.path("routed").toString(), plan.toString());
    JsonNode files = null;
    for (JsonNode n : plan.path("notRouted")) {
      if (n.path("name").asString().equals("files")) {
        files = n;
      }
    }
    assertTrue(files != null && files.path("reason").asString().startsWith("left direct: its verdict (unknown) does not"
        + " recommend sharing"), plan.toString());
    JsonNode written = JSONC.readTree(Files.readString(config)).path("mcpServers");
    assertEquals("/usr/bin/npx", written.path("files").path("command").asString(), "files stays as it was");
    assertEquals(LAUNCHER, written.path("git").path("command").asString());

    // Without the force, git's sessions would each get a backend of their own: --refresh restores it.
    JsonNode refreshed = JSON.readTree(cli.run("route", "claude_desktop_config.json", "--launcher", LAUNCHER, "--apply",
        "--json", "--refresh").out());
    assertEquals("[\"git\"]", refreshed.path("restored").toString(), refreshed.toString());
    assertEquals(CLAUDE, Files.readString(config), "the file is as it was before routing");

    // Forced again, --refresh routes it again.
    JsonNode again = JSON.readTree(cli.run("route", "claude_desktop_config.json", "--launcher", LAUNCHER, "--apply",
        "--json", "--refresh", "--set", "cotenant.sharing.forced=git").out());
    assertEquals("[\"git\"]", again.path("routed").toString(), again.toString());
    assertEquals("[]", again.path("restored").toString(), again.toString());
  }

  /**
   * A server whose measurement recorded its start is routed although its sessions would each get a
   * backend of their own: a session that never calls it starts no process. One whose measurement
   * recorded none stays direct, and its reason says both why it does not share and why its sessions
   * cannot wait. Before, only servers that would share were routed.
   */
  @Test
  void aServerWhoseStartIsRecordedIsRoutedForItsSessionsWaitToStartIt() throws Exception {
    dev.cotenant.gateway.Cotenant writer = dev.cotenant.gateway.Cotenant.builder().recordsDirectory(cli.records)
        .environment(cli.env).build();
    for (dev.cotenant.gateway.config.ConfiguredServer s : new dev.cotenant.gateway.config.McpConfigReader()
        .readFile(config)) {
      boolean recorded = s.name().equals("git");
      writer.recordStores().preflightCache().put(new dev.cotenant.spi.PreflightRecord(s.name(),
          writer.identityOf(s.description()).cacheKey(), true, false, List.of(), 1.0, java.util.Optional.empty(),
          java.util.Optional.of(CliHarness.FACTS),
          recorded ? java.util.Optional.of(new dev.cotenant.spi.StartRecording(
              new java.util.TreeMap<>(java.util.Map.of("2025-11-25", "2025-11-25")), List.of(),
              java.util.Map.of("capabilities", java.util.Map.of()), new java.util.TreeMap<>()))
              : java.util.Optional.empty(),
          recorded ? "" : "it sent a request roots/list before its listings ended"));
    }
    writer.recordStores().preflightCache().flush();
    JsonNode plan = JSON.readTree(cli.run("route", "claude_desktop_config.json", "--launcher", LAUNCHER, "--apply",
        "--json").out());
    assertEquals("[\"git\"]", plan.path("routed").toString(), plan.toString());
    String files = "";
    for (JsonNode n : plan.path("notRouted")) {
      if (n.path("name").asString().equals("files")) {
        files = n.path("reason").asString();
      }
    }
    assertTrue(files.startsWith("left direct: its verdict (measured) does not recommend sharing, and its sessions cannot"
        + " wait for their first call to start it (its pre-flight recorded no start: it sent a request roots/list before"
        + " its listings ended)"), files);
  }

  /**
   * A server on which a hazard was observed is left direct with that reason and no suggestion to
   * {@code share} it ({@code share} stops at once on a refuted server); a server whose verdict is
   * only unproven is still told {@code cotenant share NAME}. Kills the mutant that suggests
   * {@code share} for every server left direct (as before).
   */
  @Test
  void aRefutedServerIsToldItsHazardAndNeverToShareIt() throws Exception {
    dev.cotenant.gateway.Cotenant writer = dev.cotenant.gateway.Cotenant.builder().recordsDirectory(cli.records)
        .environment(cli.env).build();
    for (dev.cotenant.gateway.config.ConfiguredServer s : new McpConfigReader().readFile(config)) {
      if (s.name().equals("files")) {
        writer.recordStores().hazardLedger().record("files", writer.identityOf(s.description()).ledgerKey(),
            dev.cotenant.api.HazardCode.values()[0], 2);
      }
    }
    writer.recordStores().hazardLedger().flush();
    JsonNode plan = JSON.readTree(cli.run("route", "claude_desktop_config.json", "--launcher", LAUNCHER, "--json").out());
    Map<String, String> reasons = new java.util.HashMap<>();
    plan.path("notRouted").forEach(n -> reasons.put(n.path("name").asString(), n.path("reason").asString()));
    String files = reasons.getOrDefault("files", "");
    assertTrue(files.startsWith("left direct: its verdict (refuted) does not recommend sharing"), plan.toString());
    assertTrue(files.contains("a hazard was observed on it") && files.contains("cotenant hazards list"), files);
    assertFalse(files.contains("cotenant share"), files);
    String git = reasons.getOrDefault("git", "");
    assertTrue(git.contains("to share it: cotenant share git, then route --refresh"), plan.toString());
  }
}
