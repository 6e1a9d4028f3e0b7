package dev.cotenant.cli.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.api.ServerDescription;
import dev.cotenant.gateway.Cotenant;
import dev.cotenant.gateway.pool.EntrySnapshot;
import dev.cotenant.gateway.sharing.SharingSettings;
import dev.cotenant.testkit.process.ChecksProcessLeaks;
import dev.cotenant.testkit.process.Processes;
import dev.cotenant.testkit.server.FakeServer;
import java.io.IOException;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The daemon in this JVM over real sockets and a real backend process (the kit's fake server):
 * one daemon per home, the socket's mode and lifetime, shims sharing one backend, refusals.
 */
@ChecksProcessLeaks(waitMillis = 20_000)
class DaemonTest {
  private static final JsonMapper JSON = JsonMapper.builder().build();

  @TempDir Path dir;
  private final List<Daemon> daemons = new ArrayList<>();

  @AfterEach
  void stopAll() {
    daemons.forEach(Daemon::stop);
  }

  private CotenantHome home() {
    return new CotenantHome(dir.resolve("home"));
  }

  /** A configuration naming {@code server} as "fake", and a daemon sharing it. */
  private Daemon daemon(ServerDescription server) throws IOException {
    return daemon(server, -1, false);
  }

  /** As {@link #daemon(ServerDescription)}, serving HTTP on {@code port} (-1: none). */
  private Daemon daemon(ServerDescription server, int port, boolean portChosen) throws IOException {
    return daemon(server, port, portChosen, true);
  }

  /** As above; {@code forced} false leaves the placement to the verdict (a dedicated backend for the echo server). */
  private Daemon daemon(ServerDescription server, int port, boolean portChosen, boolean forced) throws IOException {
    Path config = dir.resolve("mcp.json");
    Map<String, Object> entry = new LinkedHashMap<>();
    entry.put("command", server.command());
    entry.put("args", server.args());
    entry.put("env", server.env());
    Files.write(config, JSON.writeValueAsBytes(Map.of("mcpServers", Map.of("fake", entry))));
    Cotenant cotenant = Cotenant.builder()
        .config(forced
            ? Map.of(SharingSettings.ENABLED, "true", SharingSettings.FORCED, "fake", "cotenant.pool.drain-grace-ms", "0")
            : Map.of(SharingSettings.ENABLED, "true", "cotenant.pool.drain-grace-ms", "0"))
        .recordsDirectory(dir.resolve("records")).build();
    Daemon d = new Daemon(home(), cotenant, new ServerDirectory(List.of(config)), port, "", portChosen);
    daemons.add(d);
    return d;
  }

  /** A daemon of {@link #echo()}, started. */
  private Daemon startedEcho() throws IOException {
    Daemon d = daemon(echo());
    d.start();
    return d;
  }

  private static ServerDescription echo() {
    return FakeServer.builder().name("fake").era(FakeServer.Era.LEGACY).echo().build().description();
  }

  @Test
  void aSecondDaemonForTheSameHomeIsRefusedNamingTheFirstsPid() throws Exception {
    Daemon first = daemon(echo());
    first.start();
    Daemon second = daemon(echo());
    DaemonLock.HeldException e = assertThrows(DaemonLock.HeldException.class, second::start);
    assertEquals(ProcessHandle.current().pid(), e.pid().orElseThrow());
    assertTrue(e.getMessage().contains("already runs for " + home().dir()), e.getMessage());
    assertTrue(Files.exists(home().socket()), "the refused daemon left the first one's socket alone");
    first.stop();
    Daemon third = daemon(echo());
    third.start();
    assertTrue(DaemonStarter.tryConnect(home().socket()).isPresent(), "a daemon starts once the first has stopped");
  }

  /**
   * A start that fails midway (the HTTP port the operator chose is taken) says so and releases
   * what it had taken: the next daemon starts in the same home. Mutants: {@code start} without
   * the {@code stop} of its failure path (the lock stayed held), and the port's fallback
   * condition negated (a chosen port in use was swapped for a free one).
   */
  @Test
  void aStartThatFailsOnItsChosenPortSaysSoAndLeavesTheHomeFree() throws Exception {
    try (java.net.ServerSocket busy = new java.net.ServerSocket(0, 1, java.net.InetAddress.getByName("127.0.0.1"))) {
      Daemon d = daemon(echo(), busy.getLocalPort(), true);
      IOException e = assertThrows(IOException.class, d::start);
      assertTrue(e.getMessage().startsWith("cannot listen on 127.0.0.1:" + busy.getLocalPort() + ": "), e.getMessage());
    }
    assertFalse(Files.exists(home().socket()));
    Daemon next = daemon(echo());
    next.start();
    assertTrue(DaemonStarter.tryConnect(home().socket()).isPresent());
  }

  /**
   * A home whose socket path is too long for a Unix socket is refused before anything starts,
   * naming the limit. Mutant: {@code start} without the length check (the bind then failed with
   * the platform's own words).
   */
  @Test
  void aHomeTooDeepForAUnixSocketIsRefusedNamingTheLimit() throws Exception {
    CotenantHome deep = new CotenantHome(dir.resolve("d".repeat(CotenantHome.SOCKET_PATH_MAX)));
    Cotenant cotenant = Cotenant.builder().config(Map.of()).recordsDirectory(dir.resolve("records")).build();
    Daemon d = new Daemon(deep, cotenant, new ServerDirectory(List.of()), -1, "");
    daemons.add(d);
    IOException e = assertThrows(IOException.class, d::start);
    assertTrue(e.getMessage().contains("a Unix socket's limit is " + CotenantHome.SOCKET_PATH_MAX), e.getMessage());
  }

  /**
   * What the daemon trusts must be its user's alone (StrictModes): a home, or a records
   * directory, that others may write is refused before anything starts, naming the path and its
   * mode. It was served before.
   */
  @Test
  void aHomeOrRecordsDirectoryWritableByOthersIsRefusedAndNothingStarts() throws Exception {
    Files.createDirectories(home().dir());
    Files.setPosixFilePermissions(home().dir(), PosixFilePermissions.fromString("rwxrwxrwx"));
    IOException e = assertThrows(IOException.class, daemon(echo())::start);
    assertTrue(e.getMessage().startsWith(home().dir() + " is writable by others (rwxrwxrwx): refusing to start."),
        e.getMessage());
    assertFalse(Files.exists(home().socket()), "nothing was started");
    Files.setPosixFilePermissions(home().dir(), PosixFilePermissions.fromString("rwx------"));

    Path records = Files.createDirectories(dir.resolve("records"));
    Files.setPosixFilePermissions(records, PosixFilePermissions.fromString("rwxrwx---"));
    e = assertThrows(IOException.class, daemon(echo())::start);
    assertTrue(e.getMessage().startsWith(records + " is writable by others (rwxrwx---)"), e.getMessage());
    Files.setPosixFilePermissions(records, PosixFilePermissions.fromString("rwxr-x---"));
    daemon(echo()).start();
    assertTrue(DaemonStarter.tryConnect(home().socket()).isPresent(), "a home and records of its own: it serves");
  }

  /**
   * A home that is a symbolic link to another user's directory holding a planted token: refused,
   * naming the owner. Needs root (to make a directory another user owns); reported skipped
   * otherwise.
   */
  @Test
  void aHomeThatLeadsToAnotherUsersDirectoryIsRefused() throws Exception {
    org.junit.jupiter.api.Assumptions.assumeTrue(System.getProperty("user.name").equals("root"),
        "not root: a directory another user owns cannot be made here");
    Path theirs = Files.createDirectories(dir.resolve("theirs"));
    Files.writeString(theirs.resolve("api-token"), "x".repeat(64));
    java.nio.file.attribute.UserPrincipal nobody =
        theirs.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName("nobody");
    Files.setOwner(theirs, nobody);
    Files.setOwner(theirs.resolve("api-token"), nobody);
    Path link = Files.createSymbolicLink(dir.resolve("home-link"), theirs);
    Cotenant cotenant = Cotenant.builder().config(Map.of()).recordsDirectory(dir.resolve("records")).build();
    Daemon d = new Daemon(new CotenantHome(link), cotenant, new ServerDirectory(List.of()), -1, "");
    daemons.add(d);
    IOException e = assertThrows(IOException.class, d::start);
    assertTrue(e.getMessage().startsWith(link + " (" + theirs.toRealPath() + ") belongs to nobody, not to root, who runs"
        + " the daemon: refusing to start."), e.getMessage());
    assertFalse(Files.exists(theirs.resolve("cotenant.sock")), "no socket in their directory");
  }

  @Test
  void theSocketIsItsOwnersOnlyAndStoppingRemovesItAndTheState() throws Exception {
    Daemon d = startedEcho();
    assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(home().socket())));
    assertEquals(System.getProperty("user.name"), Files.getOwner(home().socket()).getName());
    assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(home().dir())),
        "a home the daemon creates is its owner's only");
    JsonNode state = JSON.readTree(home().state().toFile());
    assertEquals(ProcessHandle.current().pid(), state.get("pid").asLong());
    assertEquals(home().socket().toString(), state.get("socket").asString());
    try (var files = Files.list(home().dir())) {
      assertTrue(files.noneMatch(p -> p.getFileName().toString().startsWith(".b")), "no private bind directory is left");
    }
    d.stop();
    assertFalse(Files.exists(home().socket()), "the socket is removed");
    assertFalse(Files.exists(home().state()), "daemon.json is removed");
    assertTrue(DaemonStarter.tryConnect(home().socket()).isEmpty());
  }

  @Test
  void aStaleSocketLeftByAKilledDaemonIsReplaced() throws Exception {
    home().ensure();
    try (ServerSocketChannel stale = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
      stale.bind(UnixDomainSocketAddress.of(home().socket()));
    }
    assertTrue(Files.exists(home().socket()));
    assertTrue(DaemonStarter.tryConnect(home().socket()).isEmpty(), "a stale socket answers nobody");
    Daemon d = startedEcho();
    try (SocketChannel ch = DaemonStarter.tryConnect(home().socket()).orElseThrow()) {
      assertTrue(ch.isConnected());
    }
  }

  /** A shim in this JVM, with the client's side of its stdio. */
  private static final class Client implements AutoCloseable {
    final PipedOutputStream toShim = new PipedOutputStream();
    final PipedInputStream fromShim = new PipedInputStream(1 << 20);
    final StringWriter err = new StringWriter();
    final CompletableFuture<Integer> exit = new CompletableFuture<>();
    final java.io.BufferedReader reader;

    Client(String server, Path socket) throws IOException {
      PipedInputStream shimIn = new PipedInputStream(toShim, 1 << 20);
      PipedOutputStream shimOut = new PipedOutputStream(fromShim);
      reader = new java.io.BufferedReader(new java.io.InputStreamReader(fromShim, StandardCharsets.UTF_8));
      SocketChannel ch = DaemonStarter.tryConnect(socket).orElseThrow();
      Thread t = new Thread(() -> {
        try {
          exit.complete(new Shim(server, List.of(), shimIn, shimOut, new PrintWriter(err, true)).run(ch));
          shimOut.close();
        } catch (Throwable e) {
          exit.completeExceptionally(e);
        }
      });
      t.setDaemon(true);
      t.start();
    }

    void send(Object... keyValues) throws IOException {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("jsonrpc", "2.0");
      for (int i = 0; i < keyValues.length; i += 2) {
        m.put((String) keyValues[i], keyValues[i + 1]);
      }
      toShim.write(JSON.writeValueAsBytes(m));
      toShim.write('\n');
      toShim.flush();
    }

    JsonNode answer(Object id) throws IOException {
      String line;
      while ((line = reader.readLine()) != null) {
        JsonNode n = JSON.readTree(line);
        if (n.has("id") && !n.has("method") && n.get("id").toString().equals(JSON.writeValueAsString(id))) {
          return n;
        }
      }
      throw new IOException("the shim's output ended before the answer to " + id + "; stderr: " + err);
    }

    void initialize() throws IOException {
      send("id", 0, "method", "initialize", "params", Map.of("protocolVersion", "2025-11-25", "capabilities", Map.of(),
          "clientInfo", Map.of("name", "test", "version", "1")));
      assertTrue(answer(0).has("result"));
      send("method", "notifications/initialized");
    }

    @Override
    public void close() throws IOException {
      toShim.close();
    }
  }

  @Test
  void twoShimsShareOneBackendEachGetsItsOwnAnswersAndClosingStdinEndsTheShimWithStatus0() throws Exception {
    Daemon d = startedEcho();
    try (Client a = new Client("fake", home().socket()); Client b = new Client("fake", home().socket())) {
      a.initialize();
      b.initialize();
      a.send("id", "same", "method", "tools/call", "params", Map.of("name", "echo", "arguments", Map.of("text", "from-a")));
      b.send("id", "same", "method", "tools/call", "params", Map.of("name", "echo", "arguments", Map.of("text", "from-b")));
      String ta = a.answer("same").toString();
      String tb = b.answer("same").toString();
      assertTrue(ta.contains("from-a") && !ta.contains("from-b"), ta);
      assertTrue(tb.contains("from-b") && !tb.contains("from-a"), tb);
      List<EntrySnapshot> backends = d.sharingRuntime().accounting();
      assertEquals(1, backends.size(), backends.toString());
      assertEquals(2, backends.get(0).sessions(), backends.toString());
      assertEquals(2, d.socketSessions());

      // What `cotenant status` shows: the one backend, shared (forced), with both sessions.
      StringWriter out = new StringWriter();
      StringWriter err = new StringWriter();
      int status = new dev.cotenant.cli.Cli(dev.cotenant.cli.CliContext.of(new PrintWriter(out), new PrintWriter(err),
          Map.of("COTENANT_HOME", home().dir().toString()), dir, dir)).run("status");
      assertEquals(0, status, err.toString());
      String table = out.toString();
      assertEquals("daemon " + ProcessHandle.current().pid() + "  socket " + home().socket() + "  (no HTTP)",
          table.lines().findFirst().orElseThrow(), table);
      assertTrue(table.contains("sessions: 2 over the socket, 0 over HTTP"), table);
      assertTrue(table.endsWith("* forced by cotenant.sharing.forced, not by the verdict\n"), table);
      String row = table.lines().filter(l -> l.startsWith("fake ")).findFirst().orElseThrow(() -> new AssertionError(table));
      assertEquals(List.of("fake", "shared*", "active", Long.toString(backends.get(0).pid().getAsLong()), "2"),
          List.of(row.split("\\s+")).subList(0, 5), table);
      ProcessHandle backend = ProcessHandle.of(backends.get(0).pid().getAsLong()).orElseThrow();
      a.close();
      assertEquals(Shim.EXIT_CLIENT_CLOSED, a.exit.get(20, TimeUnit.SECONDS), a.err.toString());
      assertEquals("", a.err.toString(), "a client that closes says nothing");
      // Its socket session's end closes its connection: the backend is left one session
      // (mutant: SocketSession.end without the connection's close).
      awaitTrue("the backend to have one session", () -> d.sharingRuntime().accounting().stream()
          .mapToInt(EntrySnapshot::sessions).sum() == 1);
      b.close();
      assertEquals(Shim.EXIT_CLIENT_CLOSED, b.exit.get(20, TimeUnit.SECONDS));
      awaitTrue("the backend to drain", () -> d.sharingRuntime().accounting().isEmpty() && !Processes.running(backend));
    }
  }

  private static void awaitTrue(String what, java.util.function.BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (!condition.getAsBoolean()) {
      assertTrue(System.nanoTime() < deadline, "waited 30 s for " + what);
      Thread.sleep(20);
    }
  }

  @Test
  void statusShowsADedicatedBackendWithoutTheForcedFootnote() throws Exception {
    Daemon d = daemon(echo(), -1, false, false);
    d.start();
    try (Client a = new Client("fake", home().socket())) {
      a.initialize();
      StringWriter out = new StringWriter();
      assertEquals(0, cli(out, new StringWriter()).run("status"));
      String table = out.toString();
      String row = table.lines().filter(l -> l.startsWith("fake ")).findFirst().orElseThrow(() -> new AssertionError(table));
      assertEquals(List.of("fake", "dedicated", "active"), List.of(row.split("\\s+")).subList(0, 3), table);
      assertFalse(table.contains("forced"), table);
    }
  }

  @Test
  void stoppingTheDaemonAnswersAnUnansweredRequestCallInterruptedAndTheShimExits1() throws Exception {
    Daemon d = startedEcho();
    try (Client a = new Client("fake", home().socket())) {
      a.initialize();
      // The fake server sleeps this long before answering: the call is unanswered when the daemon stops.
      a.send("id", 41, "method", "tools/call", "params", Map.of("name", "echo",
          "arguments", Map.of("text", "slow", "delayMillis", 600_000)));
      a.send("id", 42, "method", "ping");
      assertTrue(a.answer(42).has("result"), "the ping went through, so the call is in the daemon");
      ProcessHandle backend = ProcessHandle.of(d.sharingRuntime().accounting().get(0).pid().getAsLong()).orElseThrow();
      d.stop();
      // The stop drains the backends before it returns (mutant: stop without Sharing.close).
      assertFalse(Processes.running(backend), "the backend outlived the daemon's stop");
      JsonNode interrupted = a.answer(41);
      assertEquals(Shim.INTERRUPTED, interrupted.get("error").get("code").asInt(), interrupted.toString());
      assertEquals(Shim.EXIT_DAEMON, a.exit.get(20, TimeUnit.SECONDS));
      assertTrue(a.err.toString().startsWith("cotenant connect fake: the daemon (pid "), a.err.toString());
    }
  }

  /**
   * A client message over the line limit: the shim reads no more of it, ends the session and
   * exits 1 with one line saying why. It lingered before, its reading side still waiting on a
   * daemon that had nothing to say.
   */
  /**
   * A request nested deeper than the parser allows is answered a parse error that carries its id,
   * read before the depth ran out, and the session goes on; a line that shows no id gets the error
   * with a null id. Mutant: the parse error always sent with a null id (the client waits forever).
   */
  @Test
  void aMessageTooDeepToParseIsAnsweredWithTheIdItShows() throws Exception {
    Daemon d = startedEcho();
    try (Client a = new Client("fake", home().socket())) {
      a.initialize();
      String deep = "[".repeat(5000) + "]".repeat(5000);
      a.toShim.write(("{\"jsonrpc\":\"2.0\",\"id\":\"deep\",\"method\":\"tools/call\",\"params\":{\"name\":\"echo\","
          + "\"arguments\":{\"text\":" + deep + "}}}\n").getBytes(StandardCharsets.UTF_8));
      a.toShim.flush();
      JsonNode error = JSON.readTree(CompletableFuture.supplyAsync(() -> {
        try {
          return a.reader.readLine();
        } catch (IOException e) {
          throw new java.io.UncheckedIOException(e);
        }
      }).get(30, TimeUnit.SECONDS));
      assertEquals("deep", error.path("id").asString(), error.toString());
      assertEquals(-32700, error.path("error").path("code").asInt(), error.toString());
      a.send("id", 9, "method", "tools/call", "params", Map.of("name", "echo", "arguments", Map.of("text", "after")));
      assertTrue(a.answer(9).toString().contains("after"), "the session goes on");
    }
    assertEquals(null, dev.cotenant.cli.daemon.http.ReadableId.in("{\"method\":\"x\",\"params\":[[[".getBytes(StandardCharsets.UTF_8)));
    assertEquals(dev.cotenant.spi.rpc.RequestId.of(7), dev.cotenant.cli.daemon.http.ReadableId.in("{\"id\":7.0,\"params\":[".getBytes(StandardCharsets.UTF_8)));
  }

  @Test
  void aClientMessageOverTheLimitEndsTheSessionAndTheShimExits1() throws Exception {
    Daemon d = startedEcho();
    try (Client a = new Client("fake", home().socket())) {
      a.initialize();
      byte[] chunk = new byte[1 << 20];
      java.util.Arrays.fill(chunk, (byte) 'x');
      for (int i = 0; i < LineChannel.MAX_LINE / chunk.length; i++) {
        a.toShim.write(chunk);
      }
      a.toShim.write('x');
      a.toShim.flush();
      assertEquals(Shim.EXIT_DAEMON, a.exit.get(30, TimeUnit.SECONDS));
      assertEquals("cotenant connect fake: the client sent a message longer than " + LineChannel.MAX_LINE
          + " bytes; the session was ended", a.err.toString().strip());
    }
  }

  @Test
  void stopOverTheSocketStopsTheDaemonAndStatusThenSaysNoneRuns() throws Exception {
    Daemon d = startedEcho();
    Map<String, Object> answer = DaemonControl.ask(home(), "stop").orElseThrow();
    assertEquals("stopping", answer.get("cotenant"));
    assertTrue(waitStopped(d), "the daemon stopped");
    assertFalse(Files.exists(home().socket()));
    assertTrue(DaemonControl.ask(home(), "status").isEmpty(), "no daemon answers");
    StringWriter err = new StringWriter();
    int status = new dev.cotenant.cli.Cli(dev.cotenant.cli.CliContext.of(new PrintWriter(new StringWriter()),
        new PrintWriter(err), Map.of("COTENANT_HOME", home().dir().toString()), dir, dir)).run("status");
    assertEquals(1, status);
    assertTrue(err.toString().contains("no daemon runs for " + home().dir()), err.toString());
  }

  private dev.cotenant.cli.Cli cli(StringWriter out, StringWriter err) {
    return new dev.cotenant.cli.Cli(dev.cotenant.cli.CliContext.of(new PrintWriter(out), new PrintWriter(err),
        Map.of("COTENANT_HOME", home().dir().toString()), dir, dir));
  }

  @Test
  void dashboardPrintsTheAddressOfTheRunningDaemonWhoseListenerServesThePage() throws Exception {
    StringWriter none = new StringWriter();
    assertEquals(1, cli(new StringWriter(), none).run("dashboard"));
    assertTrue(none.toString().contains("no daemon runs for " + home().dir()), none.toString());

    Path config = dir.resolve("mcp.json");
    Files.writeString(config, "{\"mcpServers\": {}}");
    Cotenant cotenant = Cotenant.builder().config(Map.of("cotenant.pool.drain-grace-ms", "0",
            "cotenant.backends.pid-namespace", "off"))
        .recordsDirectory(dir.resolve("records")).build();
    Daemon d = new Daemon(home(), cotenant, new ServerDirectory(List.of(config)), 0, "");
    daemons.add(d);
    d.start();
    StringWriter status = new StringWriter();
    assertEquals(0, cli(status, new StringWriter()).run("status"));
    assertEquals(List.of("daemon " + ProcessHandle.current().pid() + "  socket " + home().socket() + "  http://127.0.0.1:"
        + d.httpPort().orElseThrow() + "/mcp/{server}",
        "backends start as configured, without a pid namespace: turned off (cotenant.backends.pid-namespace=off)",
        "sessions: 0 over the socket, 0 over HTTP", "no backend runs"),
        status.toString().lines().toList());
    StringWriter statusJson = new StringWriter();
    assertEquals(0, cli(statusJson, new StringWriter()).run("status", "--json"));
    JsonNode json = JSON.readTree(statusJson.toString());
    assertEquals(d.httpPort().orElseThrow().intValue(), json.path("port").intValue(), json.toString());
    assertEquals(ProcessHandle.current().pid(), json.path("pid").longValue(), json.toString());
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    assertEquals(0, cli(out, err).run("dashboard"), err.toString());
    String url = out.toString().strip();
    assertEquals("http://127.0.0.1:" + d.httpPort().orElseThrow() + "/#token=" + Files.readString(home().token()).strip(), url);
    java.net.http.HttpResponse<String> page = java.net.http.HttpClient.newHttpClient().send(
        java.net.http.HttpRequest.newBuilder(java.net.URI.create(url.substring(0, url.indexOf('#')))).build(),
        java.net.http.HttpResponse.BodyHandlers.ofString());
    assertEquals(200, page.statusCode());
    assertTrue(page.body().contains("<title>Cotenant dashboard</title>"), page.body());

    // A token file emptied or removed since the daemon started: one line saying which, no address.
    Files.writeString(home().token(), "\n");
    StringWriter empty = new StringWriter();
    StringWriter emptyOut = new StringWriter();
    assertEquals(1, cli(emptyOut, empty).run("dashboard"));
    assertEquals("cotenant: the token file " + home().token() + " is empty; restart the daemon to create one\n",
        empty.toString());
    Files.delete(home().token());
    StringWriter gone = new StringWriter();
    assertEquals(1, cli(emptyOut, gone).run("dashboard"));
    assertTrue(gone.toString().startsWith("cotenant: cannot read the dashboard's token " + home().token() + ": "),
        gone.toString());
    assertEquals("", emptyOut.toString(), "no address without its token");
  }

  @Test
  void dashboardOfADaemonWithoutHttpSaysSo() throws Exception {
    Daemon d = startedEcho();
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    assertEquals(1, cli(out, err).run("dashboard"));
    assertEquals("cotenant: the daemon (pid " + ProcessHandle.current().pid() + ") of " + home().dir()
        + " serves no HTTP; restart it without --no-http\n", err.toString());
    assertEquals("", out.toString());
  }

  private static boolean waitStopped(Daemon d) throws InterruptedException {
    Thread t = new Thread(() -> {
      try {
        d.awaitStop();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });
    t.start();
    t.join(30_000);
    return !t.isAlive();
  }

  @Test
  void anUnknownServerIsRefusedNamingTheFilesLookedAt() throws Exception {
    Daemon d = startedEcho();
    try (Client a = new Client("nope", home().socket())) {
      assertEquals(Shim.EXIT_DAEMON, a.exit.get(20, TimeUnit.SECONDS));
      assertTrue(a.err.toString().contains("no server named 'nope' in " + dir.resolve("mcp.json")), a.err.toString());
      assertEquals(-1, a.reader.read(), "nothing reached the client's standard output");
    }
    assertNotEquals(0, d.sharingRuntime().accounting().size() + 1);
    assertEquals(List.of(), d.sharingRuntime().accounting(), "no backend was started");
  }

  /** The daemon's answer to one first line on its socket. */
  private Map<String, Object> hello(String line) throws IOException {
    try (SocketChannel ch = DaemonStarter.tryConnect(home().socket()).orElseThrow();
        LineChannel c = new LineChannel(ch)) {
      c.writeLine(line.getBytes(StandardCharsets.UTF_8));
      byte[] answer = c.readLine();
      assertNotNull(answer, "no answer to " + line);
      return Wire.object(answer);
    }
  }

  /**
   * What the socket refuses before anything reaches a backend: a first line that is no JSON,
   * another version of the shim protocol, a hello without a server; and that a hello's relative
   * config paths are ignored, not read. Mutants: {@code SocketSession.hello}'s version check and
   * its absolute-path filter negated, and its refusals removed.
   */
  @Test
  void aShimsHelloIsCheckedBeforeAnythingStarts() throws Exception {
    Daemon d = startedEcho();
    Map<String, Object> notJson = hello("hello there");
    assertEquals("refused", notJson.get("cotenant"), notJson.toString());
    assertTrue(String.valueOf(notJson.get("error")).startsWith("the first line is not a Cotenant hello: "), notJson.toString());

    Map<String, Object> version = hello("{\"cotenant\":\"connect\",\"version\":" + (Wire.VERSION + 1) + ",\"server\":\"fake\"}");
    assertEquals("refused", version.get("cotenant"), version.toString());
    assertTrue(String.valueOf(version.get("error")).startsWith("this daemon speaks version " + Wire.VERSION
        + " of the shim protocol; the shim sent " + (Wire.VERSION + 1)), version.toString());

    Map<String, Object> noServer = hello("{\"cotenant\":\"connect\",\"version\":" + Wire.VERSION + "}");
    assertEquals("refused", noServer.get("cotenant"), noServer.toString());

    Map<String, Object> relative = hello("{\"cotenant\":\"connect\",\"version\":" + Wire.VERSION
        + ",\"server\":\"fake\",\"configs\":[\"no-such-dir/mcp.json\"]}");
    assertEquals("connected", relative.get("cotenant"), "a relative config path is ignored: " + relative);
    assertEquals(List.of(), d.sharingRuntime().accounting(), "no backend was started by a hello alone");
  }
}
