package dev.cotenant.fleet.servers;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * What the real servers the fleet tests start have in common: a free port on 127.0.0.1, a
 * private temporary directory, and a teardown that leaves no process behind (the server and
 * every process it forked, checked with {@link ProcessHandle}).
 */
abstract class LocalServer implements AutoCloseable {
  /** The uid and gid the PostgreSQL server runs as when the tests run as root (it refuses root). */
  static final int NOBODY = 65534;

  final Path directory;
  final int port;
  Process process;

  LocalServer(String prefix) throws IOException {
    this.directory = Files.createTempDirectory(prefix);
    this.port = freePort();
  }

  static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
      return s.getLocalPort();
    }
  }

  static boolean root() {
    return "root".equals(System.getProperty("user.name"));
  }

  /** The port it listens on, on 127.0.0.1. */
  public int port() {
    return port;
  }

  /** The server's process (the postmaster, or redis-server). */
  public ProcessHandle handle() {
    return process.toHandle();
  }

  /** Every process of the server: the main one and its descendants. */
  public List<ProcessHandle> processes() {
    List<ProcessHandle> all = new ArrayList<>();
    if (process != null) {
      all.add(process.toHandle());
      process.toHandle().descendants().forEach(all::add);
    }
    return all;
  }

  /** SIGKILLs the server and everything it forked, and waits until each is gone. */
  public void kill() {
    List<ProcessHandle> all = processes();
    all.forEach(ProcessHandle::destroyForcibly);
    awaitGone(all, Duration.ofSeconds(20));
  }

  /** Asks the server to stop (SIGTERM), then SIGKILLs whatever is left after {@code grace}. */
  void stop(Duration grace) {
    List<ProcessHandle> all = processes();
    if (process != null && process.isAlive()) {
      process.destroy();
      try {
        process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    all.forEach(ProcessHandle::destroyForcibly);
    awaitGone(all, Duration.ofSeconds(20));
  }

  static void awaitGone(List<ProcessHandle> all, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    for (ProcessHandle p : all) {
      while (p.isAlive() && !zombie(p) && System.nanoTime() < deadline) {
        sleep(20);
      }
      if (p.isAlive() && !zombie(p)) {
        throw new IllegalStateException("process " + p.pid() + " of a test server outlived its teardown");
      }
    }
  }

  private static boolean zombie(ProcessHandle p) {
    try {
      String stat = Files.readString(Path.of("/proc/" + p.pid() + "/stat"));
      int close = stat.lastIndexOf(')');
      return close > 0 && stat.length() > close + 2 && stat.charAt(close + 2) == 'Z';
    } catch (IOException e) {
      return true;
    }
  }

  static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  static void deleteTree(Path root) {
    if (!Files.exists(root)) {
      return;
    }
    try {
      Files.walkFileTree(root, new SimpleFileVisitor<>() {
        @Override
        public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
          Files.deleteIfExists(file);
          return FileVisitResult.CONTINUE;
        }

        @Override
        public FileVisitResult postVisitDirectory(Path dir, IOException exc) throws IOException {
          Files.deleteIfExists(dir);
          return FileVisitResult.CONTINUE;
        }
      });
    } catch (IOException e) {
      // A leftover temporary directory is not worth failing a test for.
    }
  }

  static String tail(Path log) {
    try {
      String s = Files.readString(log);
      return s.length() > 2000 ? s.substring(s.length() - 2000) : s;
    } catch (IOException e) {
      return "(no log: " + e.getMessage() + ")";
    }
  }
}
