package dev.cotenant.cli.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.cotenant.testkit.process.ChecksProcessLeaks;
import dev.cotenant.testkit.process.Processes;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The daemon binds {@code api.sock} and its HTTP port when it starts but loads Jetty only at the
 * first HTTP connection, serving that connection: a daemon run as a process with its JVM options
 * and {@code -Xlog:class+load} to a file, whose log tells which classes were loaded when.
 */
@ChecksProcessLeaks(waitMillis = 20_000)
class LazyHttpTest {
  private static final String JETTY_SERVER = "org.eclipse.jetty.server.Server ";
  /** A bound on each wait, so a daemon that never answers fails the test instead of hanging it. */
  private static final long BOUND_SECONDS = 90;

  @TempDir Path dir;
  private Path home;
  private Path classes;
  private Process daemon;

  @AfterEach
  void killWhatIsLeft() throws IOException {
    if (daemon != null) {
      daemon.descendants().forEach(ProcessHandle::destroyForcibly);
      daemon.destroyForcibly();
    }
    if (home != null) {
      try (var files = Files.walk(home)) {
        for (Path p : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(p);
        }
      }
    }
  }

  /**
   * A session over {@code cotenant.sock} ({@code cotenant status}) loads no Jetty class; two
   * connections to {@code api.sock} made before Jetty has started are both answered, and only
   * then is Jetty loaded; the port is then served too; stopping removes {@code api.sock}.
   * Mutants: the daemon starting Jetty (or making the API handler, a Jetty handler) when it
   * starts; the listeners closing a pending connection instead of handing it over (a client
   * unanswered); the API started on a socket of its own (the pending connections lost); the
   * port's listener never started (the TCP request unanswered).
   */
  @Test
  void jettyIsLoadedAtTheFirstApiConnectionWhichItServes() throws Exception {
    JsonNode state = startDaemon();
    Path socket = home.resolve("api.sock");
    assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(socket)));
    Process status = inHome(command("status")).redirectErrorStream(true).start();
    status.getOutputStream().close();
    String said = new String(status.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(status.waitFor(BOUND_SECONDS, TimeUnit.SECONDS), "cotenant status did not exit");
    assertEquals(0, status.exitValue(), said);
    assertTrue(said.contains("sessions: 0 over the socket"), said);
    String before = Files.readString(classes);
    assertTrue(before.contains("dev.cotenant.cli.daemon.HttpListeners "), "the log is the daemon's, up to date");
    assertTrue(before.contains("dev.cotenant.cli.daemon.SocketSession "), "a session over the socket was served");
    assertFalse(before.contains("org.eclipse.jetty."), "no Jetty class before the first HTTP connection");

    // Both connect before either asks: the second is pending in the backlog when Jetty starts.
    try (SocketChannel first = SocketChannel.open(UnixDomainSocketAddress.of(socket));
        SocketChannel second = SocketChannel.open(UnixDomainSocketAddress.of(socket))) {
      CompletableFuture<String> one = ask(first);
      CompletableFuture<String> two = ask(second);
      assertTrue(within(one).startsWith("HTTP/1.1 200"), "the first client's request is served");
      assertTrue(within(two).startsWith("HTTP/1.1 200"), "a second pending client's request is served");
    }
    assertTrue(Files.readString(classes).contains(JETTY_SERVER), "Jetty serves the API");

    try (Socket tcp = new Socket(InetAddress.getByName("127.0.0.1"), state.path("port").asInt())) {
      tcp.setSoTimeout((int) TimeUnit.SECONDS.toMillis(BOUND_SECONDS));
      tcp.getOutputStream().write(request("/api/rows"));
      String answer = new String(tcp.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
      assertTrue(answer.startsWith("HTTP/1.1 401"), "the port is served, behind its token: " + answer);
    }

    stopDaemon();
    assertFalse(Files.exists(socket), "stopping removes api.sock");
  }

  /**
   * Stopped before any HTTP connection, the daemon closes the port, removes {@code api.sock} and
   * never loads Jetty. Mutants: the listeners' close leaving a channel never served open or its
   * socket file behind; a stop that starts Jetty to stop it.
   */
  @Test
  void aDaemonStoppedBeforeAnyHttpConnectionClosesBothAndNeverLoadsJetty() throws Exception {
    JsonNode state = startDaemon();
    int port = state.path("port").asInt();
    assertTrue(port > 0, state.toString());
    stopDaemon();
    assertFalse(Files.exists(home.resolve("api.sock")), "stopping removes api.sock");
    assertThrows(IOException.class, () -> new Socket(InetAddress.getByName("127.0.0.1"), port).close(),
        "the port is closed");
    String log = Files.readString(classes);
    assertTrue(log.contains("dev.cotenant.cli.daemon.HttpListeners "), log.length() + " characters of log");
    assertFalse(log.contains("org.eclipse.jetty."), "no Jetty class was ever loaded");
  }

  private List<String> command(String... args) {
    List<String> cmd = new ArrayList<>(DaemonStarter.javaCommand());
    cmd.addAll(List.of(args));
    return cmd;
  }

  private ProcessBuilder inHome(List<String> cmd) {
    ProcessBuilder pb = new ProcessBuilder(cmd);
    pb.environment().put(CotenantHome.ENV, home.toString());
    pb.environment().put(Processes.COOKIE_ENV, Processes.cookie());
    return pb;
  }

  /** {@code serve --port 0} as one process (a daemon id of its own), until daemon.json names it. */
  private JsonNode startDaemon() throws Exception {
    // Short: a Unix socket path is limited to 107 bytes.
    home = Files.createTempDirectory(Path.of("/tmp"), "ctlh");
    classes = dir.resolve("classes.log");
    List<String> cmd = command("serve", "--port", "0");
    cmd.add(1, "-Xlog:class+load:file=" + classes);
    ProcessBuilder pb = inHome(cmd).redirectErrorStream(true).redirectOutput(dir.resolve("daemon.out").toFile());
    pb.environment().put(Watchdog.ENV, "lazy-http-" + System.nanoTime());
    daemon = pb.start();
    daemon.getOutputStream().close();
    Path json = home.resolve("daemon.json");
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(BOUND_SECONDS);
    while (true) {
      if (Files.exists(home.resolve("cotenant.sock")) && Files.exists(json)) {
        JsonNode state = JsonMapper.builder().build().readTree(Files.readString(json));
        if (state.path("pid").asLong() == daemon.pid()) {
          return state;
        }
      }
      if (!daemon.isAlive()) {
        fail("the daemon exited with " + daemon.exitValue() + ": " + Files.readString(dir.resolve("daemon.out")));
      }
      assertTrue(System.nanoTime() < deadline, "the daemon did not start: " + Files.readString(dir.resolve("daemon.out")));
      Thread.sleep(50);
    }
  }

  private void stopDaemon() throws Exception {
    daemon.destroy();
    assertTrue(daemon.waitFor(BOUND_SECONDS, TimeUnit.SECONDS), "the daemon did not stop on SIGTERM");
    assertEquals(0, daemon.exitValue(), Files.readString(dir.resolve("daemon.out")));
  }

  private static byte[] request(String path) {
    return ("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
  }

  /** Asks {@code GET /api/rows} on {@code channel}; the whole answer, read to its end. */
  private static CompletableFuture<String> ask(SocketChannel channel) throws IOException {
    channel.write(ByteBuffer.wrap(request("/api/rows")));
    return CompletableFuture.supplyAsync(() -> {
      try {
        InputStream in = Channels.newInputStream(channel);
        return new String(in.readAllBytes(), StandardCharsets.US_ASCII);
      } catch (IOException e) {
        return "failed: " + e;
      }
    });
  }

  private static String within(CompletableFuture<String> answer) throws Exception {
    try {
      return answer.get(BOUND_SECONDS, TimeUnit.SECONDS);
    } catch (TimeoutException e) {
      return fail("no answer to a request on api.sock");
    }
  }
}
