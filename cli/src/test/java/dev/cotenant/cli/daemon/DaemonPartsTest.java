package dev.cotenant.cli.daemon;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ByteChannel;
import java.nio.channels.Channels;
import java.nio.channels.ReadableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Parts of the daemon without a daemon: the line framing of its socket, its API token file, the
 * socket path's length check, and the shim's reading of the daemon's hello. Each test names the
 * mutants it kills.
 */
class DaemonPartsTest {
  @TempDir Path dir;

  /** A channel reading {@code bytes} in reads of at most {@code chunk} bytes, then end of stream. */
  private static ByteChannel reading(byte[] bytes, int chunk) {
    ReadableByteChannel in = Channels.newChannel(new java.io.ByteArrayInputStream(bytes));
    return new ByteChannel() {
      @Override
      public int read(ByteBuffer dst) throws IOException {
        ByteBuffer limited = dst.slice();
        limited.limit(Math.min(limited.limit(), chunk));
        int n = in.read(limited);
        if (n > 0) {
          dst.position(dst.position() + n);
        }
        return n;
      }

      @Override
      public int write(ByteBuffer src) {
        throw new UnsupportedOperationException();
      }

      @Override
      public boolean isOpen() {
        return true;
      }

      @Override
      public void close() {}
    };
  }

  private static String text(byte[] line) {
    return line == null ? null : new String(line, StandardCharsets.UTF_8);
  }

  /**
   * Lines are trimmed of trailing CR, spaces and tabs, blank ones skipped, and the last one is
   * read without a newline. Mutants: {@code trimmed}'s copy condition negated (the untrimmed
   * line returned), and the last line's return made null.
   */
  @Test
  void linesAreTrimmedBlankOnesSkippedAndTheLastNeedsNoNewline() throws IOException {
    LineChannel c = new LineChannel(reading("first \t\r\n\r\n  \nsecond\nlast\r".getBytes(StandardCharsets.UTF_8), 3));
    assertEquals("first", text(c.readLine()));
    assertEquals("second", text(c.readLine()));
    assertEquals("last", text(c.readLine()));
    assertNull(c.readLine());
    assertNull(c.readLine(), "end of stream stays");
  }

  /** A line of exactly {@value LineChannel#MAX_LINE} bytes is read; one byte more is refused. Mutant: the bound at {@code >}. */
  @Test
  void aLineOfExactlyTheLimitIsReadAndOneByteMoreIsRefused() throws IOException {
    byte[] at = new byte[LineChannel.MAX_LINE + 1];
    java.util.Arrays.fill(at, (byte) 'x');
    at[LineChannel.MAX_LINE] = '\n';
    byte[] read = new LineChannel(reading(at, 1 << 16)).readLine();
    assertEquals(LineChannel.MAX_LINE, read.length);

    byte[] over = new byte[LineChannel.MAX_LINE + 2];
    java.util.Arrays.fill(over, (byte) 'x');
    over[LineChannel.MAX_LINE + 1] = '\n';
    IOException e = assertThrows(IOException.class, () -> new LineChannel(reading(over, 1 << 16)).readLine());
    assertEquals("a message longer than " + LineChannel.MAX_LINE + " bytes", e.getMessage());
  }

  /**
   * A token file with 32 characters or more is kept; a shorter one is replaced by 64 hex digits
   * in a file only its owner reads. Mutants: the length check negated (a short token kept: an
   * API guarded by a guessable token) or at {@code >}.
   */
  @Test
  void aTokenOfAtLeast32CharactersIsKeptAndAShorterOneReplaced() throws IOException {
    Path file = dir.resolve("token");
    String thirtyTwo = "k".repeat(32);
    Files.writeString(file, thirtyTwo + "\n");
    assertEquals(thirtyTwo, Daemon.ApiToken.readOrCreate(file));

    Files.writeString(file, "k".repeat(31) + "\n");
    String made = Daemon.ApiToken.readOrCreate(file);
    assertTrue(made.matches("[0-9a-f]{64}"), made);
    assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
    assertEquals(made, Daemon.ApiToken.readOrCreate(file), "read back the next time");

    Files.delete(file);
    String fresh = Daemon.ApiToken.readOrCreate(file);
    assertTrue(fresh.matches("[0-9a-f]{64}"), fresh);
    assertNotEquals(made, fresh);
  }

  /** A socket path of exactly the limit passes; one byte more is refused. Mutant: the bound at {@code >=}. */
  @Test
  void aSocketPathOfExactlyTheLimitPasses() throws IOException {
    String name = "cotenant.sock";
    Path base = Path.of("/");
    int room = CotenantHome.SOCKET_PATH_MAX - name.length() - 1 - 1; // "/" + dir + "/" + name
    Path at = base.resolve("d".repeat(room));
    assertEquals(CotenantHome.SOCKET_PATH_MAX, new CotenantHome(at).socket().toString().length());
    new CotenantHome(at).checkSocketPathLength();
    Path over = base.resolve("d".repeat(room + 1));
    IOException e = assertThrows(IOException.class, () -> new CotenantHome(over).checkSocketPathLength());
    assertTrue(e.getMessage().contains("is " + (CotenantHome.SOCKET_PATH_MAX + 1) + " bytes long"), e.getMessage());
  }

  /**
   * A number the hello does not carry reads as -1, not 0. Mutant: {@code peek} without the
   * fill, which read a missing {@code daemon_pid} as pid 0.
   */
  @Test
  void aNumberTheLineDoesNotCarryReadsAsMinusOne() {
    ShimJson.Peek p = ShimJson.peek("{\"cotenant\":\"connected\"}".getBytes(StandardCharsets.UTF_8),
        List.of("cotenant"), List.of("daemon_pid", "other"));
    assertArrayEquals(new long[] {-1, -1}, p.numbers());
    assertEquals("connected", p.strings()[0]);
    ShimJson.Peek q = ShimJson.peek("{\"daemon_pid\":42}".getBytes(StandardCharsets.UTF_8), List.of(), List.of("daemon_pid"));
    assertArrayEquals(new long[] {42}, q.numbers());
  }

  /** The shim's hello names its server, its files and its own process id (the daemon counts its memory). */
  @Test
  void theShimsHelloNamesItsProcess() throws IOException {
    java.util.Map<String, Object> hello = Wire.object(ShimJson.hello("files", List.of("/home/ana/.cursor/mcp.json")));
    assertEquals("connect", hello.get("cotenant"));
    assertEquals("files", hello.get("server"));
    assertEquals(List.of("/home/ana/.cursor/mcp.json"), hello.get("configs"));
    assertEquals(ProcessHandle.current().pid(), ((Number) hello.get("pid")).longValue());
  }

  /**
   * A daemon killed with SIGKILL is a zombie until its parent reaps it; the shim must read that
   * as gone ("went away"), not as a daemon that ended the session on purpose.
   */
  @Test
  void aZombieDaemonCountsAsGoneAndARunningOneAsRunning() throws Exception {
    // sh forks a child that exits at once, then becomes `sleep`, which never reaps it: a zombie.
    Process sh = new ProcessBuilder("sh", "-c", "sleep 0 & exec sleep 30").start();
    try {
      ProcessHandle zombie = null;
      for (int i = 0; i < 200 && zombie == null; i++) {
        zombie = sh.descendants().filter(h -> {
          try {
            String stat = Files.readString(Path.of("/proc", Long.toString(h.pid()), "stat"));
            return stat.charAt(stat.lastIndexOf(')') + 2) == 'Z';
          } catch (IOException | RuntimeException e) {
            return false;
          }
        }).findFirst().orElse(null);
        if (zombie == null) {
          Thread.sleep(25);
        }
      }
      assertTrue(zombie != null, "no zombie child of " + sh.pid());
      assertTrue(zombie.isAlive(), "ProcessHandle counts a zombie as alive, which is why the shim looks further");
      assertEquals(false, Shim.stillRunning(zombie.pid()));
      assertTrue(Shim.stillRunning(sh.pid()), "a running process is running");
    } finally {
      sh.destroyForcibly().waitFor();
    }
    assertEquals(false, Shim.stillRunning(sh.pid()), "reaped: gone");
  }

  /**
   * A home that cannot hold a daemon: a regular file, or one whose socket path is over the Unix
   * limit. {@code connect} says so in one line and exits 1; it threw a stack trace before.
   */
  @Test
  void connectToAHomeThatCannotHoldADaemonSaysWhyInOneLine(@TempDir Path dir) throws Exception {
    Path file = Files.writeString(dir.resolve("home-file"), "x");
    Path deep = Files.createDirectories(dir.resolve("d".repeat(120)));
    for (Path home : List.of(file, deep)) {
      java.io.StringWriter text = new java.io.StringWriter();
      int code = Connect.run("echo", List.of(), false, List.of(),
          CotenantHome.resolve(java.util.Map.of("COTENANT_HOME", home.toString()), dir), java.util.Map.of(),
          new java.io.PrintWriter(text, true));
      String err = text.toString();
      assertEquals(Shim.EXIT_DAEMON, code, err);
      assertEquals(1, err.strip().lines().count(), err);
      assertTrue(err.startsWith("cotenant connect echo: cannot reach or start the daemon in "), err);
      assertFalse(err.contains("Exception") || err.contains("\tat "), err);
    }
    assertTrue(Files.isRegularFile(file), "the file is left as it was");
  }

  /**
   * A daemon stopped with SIGSTOP still has its connections accepted by the kernel, and never
   * answers: {@code status} and {@code stop} hung with no output. A listener that accepts and
   * says nothing stands in for it: the question ends with one clear error.
   */
  @Test
  void aDaemonThatAcceptsAndNeverAnswersIsReportedNotWaitedForForever(@TempDir Path dir) throws Exception {
    CotenantHome home = CotenantHome.resolve(java.util.Map.of("COTENANT_HOME", dir.resolve("h").toString()), dir);
    home.ensure();
    try (java.nio.channels.ServerSocketChannel silent = java.nio.channels.ServerSocketChannel.open(java.net.StandardProtocolFamily.UNIX)) {
      silent.bind(java.net.UnixDomainSocketAddress.of(home.socket()));
      java.io.IOException e = assertThrows(java.io.IOException.class,
          () -> DaemonControl.ask(home, "status", java.time.Duration.ofMillis(300)));
      assertTrue(e.getMessage().startsWith("the daemon at " + home.socket() + " did not answer within 1 s: it may be stopped"),
          e.getMessage());
    }
  }
}
