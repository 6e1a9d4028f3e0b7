package dev.cotenant.cli.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.cotenant.cli.route.NativeShim;
import dev.cotenant.testkit.process.ChecksProcessLeaks;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.StandardProtocolFamily;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.UnixDomainSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The native shim ({@code cotenant-shim}, built from {@code src/main/c} into the classes) as a
 * client runs it, against a fake daemon: a Unix socket in a home of the test's that speaks the
 * shim protocol line by line, so each test decides what the daemon says and checks every byte
 * the shim sends it. The real daemon is driven through the native shim in the examples module's
 * {@code NativeShimIT}. Skipped only where the build made no native shim because there is no C
 * compiler (or {@code cotenant.native.skip} was set).
 */
@ChecksProcessLeaks(waitMillis = 20_000)
class NativeShimTest {
  /** How long one step may take before the test gives up (never a measurement). */
  private static final Duration BOUND = Duration.ofSeconds(60);

  private static final String INIT = "{\"jsonrpc\":\"2.0\",  \"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
      + "\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"raw \\u00e9\",\"version\":\"1\"}}}";

  @TempDir Path dir;
  private Path home;
  private Path shim;
  private final List<Process> processes = new ArrayList<>();
  private final List<AutoCloseable> closeables = new ArrayList<>();

  /** The binary the build made, or a skip where it could not make one. */
  static Path binary() throws URISyntaxException {
    URL url = NativeShim.class.getClassLoader().getResource(NativeShim.resource());
    if (url == null) {
      boolean compiler = System.getProperty("os.name").equals("Linux") && Files.isExecutable(Path.of("/usr/bin/cc"));
      boolean skipped = Boolean.getBoolean("cotenant.native.skip");
      Assumptions.assumeTrue(compiler && !skipped, "no native shim was built (no /usr/bin/cc, or cotenant.native.skip)");
      fail(NativeShim.resource() + " is not on the class path although /usr/bin/cc exists: the build should have made it");
    }
    Path p = Path.of(url.toURI());
    assertTrue(Files.isExecutable(p), p + " is not executable");
    return p;
  }

  @BeforeEach
  void setUp() throws Exception {
    shim = binary();
    home = Files.createDirectories(dir.resolve("home"));
  }

  @AfterEach
  void tearDown() throws Exception {
    for (Process p : processes) {
      p.destroyForcibly();
      p.waitFor(BOUND.toSeconds(), TimeUnit.SECONDS);
    }
    for (AutoCloseable c : closeables) {
      c.close();
    }
  }

  /** A fake daemon listening on the home's socket. */
  private final class FakeDaemon implements AutoCloseable {
    final ServerSocketChannel server;

    FakeDaemon() throws IOException {
      server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
      server.bind(UnixDomainSocketAddress.of(home.resolve("cotenant.sock")));
      closeables.add(this);
    }

    Peer accept() throws Exception {
      SocketChannel ch = CompletableFuture.supplyAsync(() -> {
        try {
          return server.accept();
        } catch (IOException e) {
          throw new java.io.UncheckedIOException(e);
        }
      }).get(BOUND.toSeconds(), TimeUnit.SECONDS);
      Peer p = new Peer(ch);
      closeables.add(p);
      return p;
    }

    /** Whether a shim is waiting to be accepted, without waiting for one. */
    boolean anyoneWaiting() throws IOException {
      server.configureBlocking(false);
      try (SocketChannel ch = server.accept()) {
        return ch != null;
      } finally {
        server.configureBlocking(true);
      }
    }

    @Override
    public void close() throws IOException {
      server.close();
      Files.deleteIfExists(home.resolve("cotenant.sock"));
    }
  }

  /** One connection from a shim, as the daemon sees it. */
  private static final class Peer implements AutoCloseable {
    final SocketChannel channel;
    final LineChannel lines;

    Peer(SocketChannel channel) {
      this.channel = channel;
      this.lines = new LineChannel(channel);
    }

    String read() throws Exception {
      return CompletableFuture.supplyAsync(() -> {
        try {
          byte[] l = lines.readLine();
          return l == null ? null : new String(l, StandardCharsets.UTF_8);
        } catch (IOException e) {
          return "(read failed: " + e.getMessage() + ")";
        }
      }).get(BOUND.toSeconds(), TimeUnit.SECONDS);
    }

    void send(String line) throws IOException {
      lines.writeLine(line.getBytes(StandardCharsets.UTF_8));
    }

    void connected(long pid) throws IOException {
      send("{\"cotenant\":\"connected\",\"session\":\"sock-1\",\"daemon_pid\":" + pid + "}");
    }

    @Override
    public void close() throws IOException {
      channel.close();
    }
  }

  /** A running shim, seen from its client's side. */
  private final class Client {
    final Process process;
    final OutputStream in;
    final BlockingQueue<String> out = new LinkedBlockingQueue<>();
    final CompletableFuture<String> err;

    Client(List<String> command, Map<String, String> env) throws IOException {
      ProcessBuilder pb = new ProcessBuilder(command).directory(dir.toFile());
      pb.environment().putAll(env);
      process = pb.start();
      processes.add(process);
      in = process.getOutputStream();
      err = drain(process.getErrorStream());
      Thread reader = new Thread(() -> {
        try (java.io.BufferedReader r = new java.io.BufferedReader(
            new java.io.InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
          String l;
          while ((l = r.readLine()) != null) {
            out.add(l);
          }
        } catch (IOException e) {
          // The shim is gone.
        }
        out.add("(end of output)");
      });
      reader.setDaemon(true);
      reader.start();
    }

    void send(String line) throws IOException {
      in.write((line + "\n").getBytes(StandardCharsets.UTF_8));
      in.flush();
    }

    String line() throws InterruptedException {
      String l = out.poll(BOUND.toSeconds(), TimeUnit.SECONDS);
      assertNotNull(l, "no line from the shim; stderr so far: " + err.getNow("(running)"));
      return l;
    }

    int exit() throws InterruptedException {
      assertTrue(process.waitFor(BOUND.toSeconds(), TimeUnit.SECONDS), "the shim did not exit");
      return process.exitValue();
    }

    String stderr() throws Exception {
      return err.get(BOUND.toSeconds(), TimeUnit.SECONDS);
    }
  }

  private static CompletableFuture<String> drain(InputStream in) {
    return CompletableFuture.supplyAsync(() -> {
      try (in) {
        return new String(in.readAllBytes(), StandardCharsets.UTF_8);
      } catch (IOException e) {
        return "";
      }
    });
  }

  private Map<String, String> env() {
    return Map.of("COTENANT_HOME", home.toString());
  }

  /** The shim for {@code echo} with a relative configuration path, never starting a daemon. */
  private Client echoShim() throws IOException {
    return new Client(List.of(shim.toString(), "connect", "echo", "sub/../mcp.json", "--no-start"), env());
  }

  /** The hello of {@code client}'s shim: the server, the configuration made absolute, and the shim's own pid. */
  private String expectedHello(Client client) {
    return "{\"cotenant\":\"connect\",\"version\":1,\"server\":\"echo\",\"configs\":[\"" + dir.resolve("mcp.json")
        + "\"],\"pid\":" + client.process.pid() + "}";
  }

  /** A process standing for the daemon: its pid is what {@code connected} names, and killing it is the daemon going away. */
  private Process daemonProcess() throws IOException {
    Process p = new ProcessBuilder("sleep", "600").start();
    processes.add(p);
    return p;
  }

  /** Kills {@code p} with SIGKILL and waits until it is gone (reaped). */
  private static void kill(Process p) throws InterruptedException {
    p.destroyForcibly();
    assertTrue(p.waitFor(BOUND.toSeconds(), TimeUnit.SECONDS));
  }

  /** Accepts the shim's next connection and asserts that its first line is {@code hello}. */
  private static Peer greeted(FakeDaemon daemon, String hello) throws Exception {
    Peer peer = daemon.accept();
    assertEquals(hello, peer.read());
    return peer;
  }

  /** As {@link #greeted}, then tells the shim it is connected to the daemon of pid {@code daemonPid}. */
  private static Peer connected(FakeDaemon daemon, String hello, long daemonPid) throws Exception {
    Peer peer = greeted(daemon, hello);
    peer.connected(daemonPid);
    return peer;
  }

  /** Connects, initializes, and returns the daemon side of the session. */
  private Peer initialized(FakeDaemon daemon, Client client, long daemonPid) throws Exception {
    Peer peer = connected(daemon, expectedHello(client), daemonPid);
    client.send(INIT);
    assertEquals(INIT, peer.read(), "the client's line reaches the daemon byte for byte");
    String result = "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},"
        + "\"serverInfo\":{\"name\":\"fake\",\"version\":\"1\"}}}";
    peer.send(result);
    assertEquals(result, client.line());
    client.send("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
    assertEquals("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}", peer.read());
    return peer;
  }

  @Test
  void versionExitsZeroAndNamesTheProtocol() throws Exception {
    Client c = new Client(List.of(shim.toString(), "--version"), Map.of());
    assertTrue(c.line().matches("cotenant-shim \\S+ \\(shim protocol " + Wire.VERSION + "\\)"));
    assertEquals(0, c.exit());
  }

  /**
   * A session relayed both ways, byte for byte: the hello names the server and the configuration
   * made absolute, messages pass unchanged in order, and when the client closes its input the
   * shim closes its half of the socket and exits 0 once the daemon has ended the session.
   */
  @Test
  void aSessionIsRelayedBothWaysAndTheClientClosingItsInputEndsItWithZero() throws Exception {
    FakeDaemon daemon = new FakeDaemon();
    Client client = echoShim();
    Peer peer = initialized(daemon, client, ProcessHandle.current().pid());
    client.send("{\"jsonrpc\":\"2.0\",\"id\":\"a\\\"b\",\"method\":\"tools/list\"}\r");
    assertEquals("{\"jsonrpc\":\"2.0\",\"id\":\"a\\\"b\",\"method\":\"tools/list\"}", peer.read());
    client.send("");
    client.send("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"text\":\"é\"}}}");
    assertEquals("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"text\":\"é\"}}}",
        peer.read());
    peer.send("{\"jsonrpc\":\"2.0\",\"id\":\"a\\\"b\",\"result\":{\"tools\":[]}}");
    peer.send("");
    peer.send("{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"é\"}]}}  ");
    assertEquals("{\"jsonrpc\":\"2.0\",\"id\":\"a\\\"b\",\"result\":{\"tools\":[]}}", client.line());
    assertEquals("{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"é\"}]}}", client.line());

    client.in.close();
    assertNull(peer.read(), "the shim closed its half once the client closed its input");
    peer.close();
    assertEquals(0, client.exit());
    assertEquals("", client.stderr());
  }

  @Test
  void aRefusedHelloEndsWithOneLineNamingTheDaemonsReason() throws Exception {
    FakeDaemon daemon = new FakeDaemon();
    Client client = echoShim();
    Peer peer = greeted(daemon, expectedHello(client));
    peer.send("{\"cotenant\":\"refused\",\"error\":\"no server named \\\"echo\\\" in /x/mcp.json\"}");
    peer.close();
    assertEquals(1, client.exit());
    assertEquals("cotenant connect echo: no server named \"echo\" in /x/mcp.json\n", client.stderr());
    assertEquals("(end of output)", client.line(), "nothing for the client");
  }

  /**
   * A client line of exactly 32 MiB is relayed; one byte more ends the session with one line and
   * exit 1 (the daemon reads no message that long).
   */
  @Test
  void aClientLineOverThirtyTwoMebibytesEndsTheSessionWithOneLine() throws Exception {
    FakeDaemon daemon = new FakeDaemon();
    Client client = echoShim();
    Peer peer = connected(daemon, expectedHello(client), ProcessHandle.current().pid());
    byte[] longest = new byte[LineChannel.MAX_LINE];
    java.util.Arrays.fill(longest, (byte) 'a');
    CompletableFuture<String> got = CompletableFuture.supplyAsync(() -> {
      try {
        return peer.read();
      } catch (Exception e) {
        return e.toString();
      }
    });
    client.in.write(longest);
    client.in.write('\n');
    client.in.flush();
    String read = got.get(BOUND.toSeconds(), TimeUnit.SECONDS);
    assertEquals(LineChannel.MAX_LINE, read.length(), "a line of exactly the limit passes");
    try {
      client.in.write(longest);
      client.in.write('a');
      client.in.flush();
    } catch (IOException e) {
      // The shim stopped reading once the line was over the limit.
    }
    assertEquals(1, client.exit());
    assertEquals("cotenant connect echo: the client sent a message longer than 33554432 bytes; the session was ended\n",
        client.stderr());
  }

  /**
   * The daemon went away (its pid is gone) with a call in flight, after the client's initialize
   * was answered: the call is answered -32073, the shim connects again with the client's
   * initialize, verbatim, as {@code resume} (again when a connection is dropped unanswered, as a
   * daemon that is still exiting drops it), holds what the client sends meanwhile until the daemon
   * says {@code connected}, and the session goes on without initialize being sent again.
   */
  @Test
  void whenTheDaemonGoesAwayTheCallInFlightIsInterruptedAndTheSessionResumesWithTheOriginalInitialize() throws Exception {
    FakeDaemon daemon = new FakeDaemon();
    Process first = daemonProcess();
    Client client = echoShim();
    Peer peer = initialized(daemon, client, first.pid());
    client.send("{\"jsonrpc\":\"2.0\",\"id\":\"call-7\",\"method\":\"tools/call\",\"params\":{\"name\":\"slow\"}}");
    assertEquals("{\"jsonrpc\":\"2.0\",\"id\":\"call-7\",\"method\":\"tools/call\",\"params\":{\"name\":\"slow\"}}", peer.read());

    kill(first);
    peer.close();
    assertEquals("{\"jsonrpc\":\"2.0\",\"id\":\"call-7\",\"error\":{\"code\":-32073,\"message\":\"call interrupted: the daemon"
        + " (pid " + first.pid() + ") went away\"}}", client.line());
    String held = "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"tools/call\",\"params\":{\"name\":\"after\"}}";
    client.send(held);

    String resume = expectedHello(client).substring(0, expectedHello(client).length() - 1) + ",\"resume\":" + INIT + "}";
    // A daemon still exiting takes the connection and drops it unanswered: the shim tries again.
    Peer dropped = greeted(daemon, resume);
    dropped.close();
    Peer again = connected(daemon, resume, ProcessHandle.current().pid());
    assertEquals(held, again.read(), "the line sent while resuming follows the hello; initialize is not sent again");
    again.send("{\"jsonrpc\":\"2.0\",\"id\":8,\"result\":{\"content\":[]}}");
    assertEquals("{\"jsonrpc\":\"2.0\",\"id\":8,\"result\":{\"content\":[]}}", client.line());

    client.in.close();
    assertNull(again.read());
    again.close();
    assertEquals(0, client.exit());
    assertEquals("", client.stderr(), "a resumed session says nothing on standard error");
  }

  /**
   * After a {@code stopping} notice the shim does not resume, even though the daemon's pid is
   * gone: it answers the call in flight -32073 with the reason and exits 1. The notice itself
   * never reaches the client.
   */
  @Test
  void afterAStoppingNoticeTheShimExitsWithTheReasonAndDoesNotResume() throws Exception {
    FakeDaemon daemon = new FakeDaemon();
    Process first = daemonProcess();
    Client client = echoShim();
    Peer peer = initialized(daemon, client, first.pid());
    client.send("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"slow\"}}");
    peer.read();
    peer.send("{\"cotenant\":\"stopping\",\"reason\":\"cotenant stop was run\"}");
    String log = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"bye\"}}";
    peer.send(log);
    assertEquals(log, client.line(), "the notice is not passed on; what follows it is");

    kill(first);
    peer.close();
    assertEquals("{\"jsonrpc\":\"2.0\",\"id\":2,\"error\":{\"code\":-32073,\"message\":\"call interrupted: the daemon (pid "
        + first.pid() + ") stopped: cotenant stop was run\"}}", client.line());
    assertEquals(1, client.exit());
    assertEquals("cotenant connect echo: the daemon (pid " + first.pid() + ") stopped: cotenant stop was run\n", client.stderr());
    assertTrue(!daemon.anyoneWaiting(), "the shim did not connect again");
  }

  /** A daemon that is still running but closed the session is not resumed from: exit 1, as before. */
  @Test
  void aDaemonThatEndedTheSessionButStillRunsIsNotResumedFrom() throws Exception {
    FakeDaemon daemon = new FakeDaemon();
    long alive = ProcessHandle.current().pid();
    Client client = echoShim();
    Peer peer = initialized(daemon, client, alive);
    client.send("{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"ping\"}");
    peer.read();
    peer.close();
    assertEquals("{\"jsonrpc\":\"2.0\",\"id\":5,\"error\":{\"code\":-32073,\"message\":\"call interrupted: the daemon (pid "
        + alive + ") ended echo's session\"}}", client.line());
    assertEquals(1, client.exit());
    assertEquals("cotenant connect echo: the daemon (pid " + alive + ") ended echo's session\n", client.stderr());
    assertTrue(!daemon.anyoneWaiting(), "the shim did not connect again");
  }

  /**
   * Ids follow one rule, RequestId's: the daemon writes back {@code 2e0} as {@code 2.0} and
   * {@code 3.10} as {@code 3.1}, and those answers still answer the client's requests, so when the
   * session ends only the one left unanswered ({@code -0}, written as the client wrote it) is told
   * it was interrupted; {@code "2"} and {@code 2} stay two requests. A method written
   * {@code "initialize\u0000x"} is not taken for {@code initialize}. Mutants: pending ids matched
   * by their text (a second, -32073, answer for {@code 2e0} and {@code 3.10}); the decoded method
   * cut at its NUL (the answer to it taken for initialize's).
   */
  @Test
  void anIdIsAnsweredOnceHoweverTheDaemonWritesIt() throws Exception {
    FakeDaemon daemon = new FakeDaemon();
    Process first = daemonProcess();
    Client client = echoShim();
    Peer peer = initialized(daemon, client, first.pid());
    List<String> ids = List.of("2e0", "\"2\"", "3.10", "-0", "4");
    for (String id : ids) {
      String method = id.equals("4") ? "initialize\\u0000x" : "ping";
      String line = "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"" + method + "\"}";
      client.send(line);
      assertEquals(line, peer.read());
    }
    for (String id : List.of("2.0", "\"2\"", "3.1", "4")) {
      String answer = "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"result\":{}}";
      peer.send(answer);
      assertEquals(answer, client.line());
    }
    kill(first);
    peer.close();
    assertEquals("{\"jsonrpc\":\"2.0\",\"id\":-0,\"error\":{\"code\":-32073,\"message\":\"call interrupted: the daemon (pid "
        + first.pid() + ") went away\"}}", client.line());
    // The session resumes with the client's own initialize, not the look-alike.
    String resume = expectedHello(client).substring(0, expectedHello(client).length() - 1) + ",\"resume\":" + INIT + "}";
    Peer again = connected(daemon, resume, ProcessHandle.current().pid());
    client.in.close();
    assertNull(again.read());
    again.close();
    assertEquals("(end of output)", client.line(), "no request is answered twice");
    assertEquals(0, client.exit());
  }

  /** Before the client's initialize was answered there is nothing to resume with: exit 1 when the daemon goes away. */
  @Test
  void aDaemonThatWentAwayBeforeInitializeWasAnsweredIsNotResumedFrom() throws Exception {
    FakeDaemon daemon = new FakeDaemon();
    Process first = daemonProcess();
    Client client = echoShim();
    Peer peer = connected(daemon, expectedHello(client), first.pid());
    client.send(INIT);
    assertEquals(INIT, peer.read());
    kill(first);
    peer.close();
    assertEquals("{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32073,\"message\":\"call interrupted: the daemon (pid "
        + first.pid() + ") went away\"}}", client.line());
    assertEquals(1, client.exit());
    assertEquals("cotenant connect echo: the daemon (pid " + first.pid() + ") went away\n", client.stderr());
  }

  /**
   * The native shim finds the same home as the JVM shim for every way of naming it, and refuses
   * a relative one with the JVM's words and status: the home is read from its "no daemon runs"
   * line, the JVM's from {@link CotenantHome#resolve} and {@link Connect#fastPath}.
   */
  @Test
  void theHomeIsResolvedAsTheJvmShimResolvesIt() throws Exception {
    Path userHome = Path.of(System.getProperty("user.home"));
    Map<String, String> values = new LinkedHashMap<>();
    values.put("absolute, to normalize", dir + "/a/../b/./c//");
    values.put("blank around it", " \t" + dir + "/spaced\n");
    values.put("under ~", "~/" + dir.getFileName() + "/../x");
    // The user's own homes are tried only where no daemon of the user's could answer there.
    boolean defaultHasADaemon = Files.exists(userHome.resolve(".cotenant/cotenant.sock"))
        || Files.exists(userHome.resolve("cotenant.sock"));
    if (!defaultHasADaemon) {
      values.put("~ alone", "~");
      values.put("\".\" is unset", ".");
      values.put("empty is unset", "");
    }
    for (Map.Entry<String, String> v : values.entrySet()) {
      Path expected = CotenantHome.resolve(Map.of("COTENANT_HOME", v.getValue()), userHome).dir();
      Client c = new Client(List.of(shim.toString(), "connect", "echo", "--no-start"), Map.of("COTENANT_HOME", v.getValue()));
      assertEquals(1, c.exit(), v.getKey());
      assertEquals("cotenant connect echo: no daemon runs for " + expected + " (start one: cotenant serve)\n", c.stderr(),
          v.getKey());
    }
    Client option = new Client(List.of(shim.toString(), "--home", dir + "/h/../o", "connect", "echo", "--no-start"), env());
    assertEquals(1, option.exit());
    assertEquals("cotenant connect echo: no daemon runs for " + dir.resolve("o") + " (start one: cotenant serve)\n",
        option.stderr());

    StringWriter jvm = new StringWriter();
    int jvmStatus = Connect.fastPath(new String[] {"connect", "echo", "--no-start"}, Map.of("COTENANT_HOME", "rel/home"),
        userHome, dir, new PrintWriter(jvm)).orElseThrow();
    Client relative = new Client(List.of(shim.toString(), "connect", "echo", "--no-start"), Map.of("COTENANT_HOME", "rel/home"));
    assertEquals(jvmStatus, relative.exit());
    assertEquals(2, jvmStatus);
    assertEquals(jvm.toString(), relative.stderr());
  }

  /**
   * A listener run by another user is refused before a byte is sent to it, with the JVM shim's
   * words: the shim runs as {@code nobody} against a socket of this user's opened to everyone.
   * Needs root and setpriv; reported skipped otherwise, never passed.
   */
  @Test
  void aListenerOfAnotherUserIsRefusedBeforeAByteIsSent() throws Exception {
    Assumptions.assumeTrue(System.getProperty("user.name").equals("root") && Files.isExecutable(Path.of("/usr/bin/setpriv")),
        "not root, or no /usr/bin/setpriv: another user's shim cannot be run here");
    Path open = Files.createTempDirectory(Path.of("/tmp"), "ctn");
    closeables.add(() -> {
      try (var files = Files.walk(open)) {
        files.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
      }
    });
    Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rwxr-xr-x"));
    Path copy = Files.copy(shim, open.resolve("cotenant-shim"));
    Files.setPosixFilePermissions(copy, PosixFilePermissions.fromString("rwxr-xr-x"));
    home = Files.createDirectories(open.resolve("home"));
    Files.setPosixFilePermissions(home, PosixFilePermissions.fromString("rwxr-xr-x"));
    FakeDaemon daemon = new FakeDaemon();
    Files.setPosixFilePermissions(home.resolve("cotenant.sock"), PosixFilePermissions.fromString("rw-rw-rw-"));
    Client client = new Client(List.of("/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
        copy.toString(), "connect", "echo", "--no-start"), env());
    Peer peer = daemon.accept();
    assertEquals(1, client.exit());
    assertEquals("cotenant connect echo: refusing the daemon at " + home.resolve("cotenant.sock") + ": it is run by root,"
        + " not by nobody; a socket of another user's is never spoken to (check who can write to " + home + ")\n",
        client.stderr());
    assertNull(peer.read(), "not a byte was sent");
  }
}
