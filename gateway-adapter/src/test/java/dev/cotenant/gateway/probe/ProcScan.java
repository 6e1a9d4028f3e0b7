package dev.cotenant.gateway.probe;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The tests' own way of finding processes by an entry of their environment: every
 * {@code /proc/<pid>/environ} this user can read is searched for the exact entry. It finds a
 * process that is no longer anyone's descendant (double-forked, {@code setsid}, reparented when its
 * parent exited). Written independently of the teardown it checks. Linux only: elsewhere it finds
 * nothing.
 */
final class ProcScan {
  private ProcScan() {}

  /**
   * The live processes whose environment holds {@code entry} ({@code NAME=value}), polling until
   * there are none or {@code waitMillis} passed. Zombies have an empty environ and are not
   * counted.
   */
  static List<Long> carriers(String entry, long waitMillis) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(waitMillis);
    while (true) {
      List<Long> found = carriers(entry);
      if (found.isEmpty() || System.nanoTime() - deadline >= 0) {
        return found;
      }
      Thread.sleep(50);
    }
  }

  /** The live processes whose environment holds {@code entry} now, this JVM excluded. */
  static List<Long> carriers(String entry) {
    Path proc = Path.of("/proc");
    List<Long> out = new ArrayList<>();
    if (!Files.isDirectory(proc.resolve("self"))) {
      return out;
    }
    long self = ProcessHandle.current().pid();
    try (DirectoryStream<Path> dir = Files.newDirectoryStream(proc)) {
      for (Path p : dir) {
        String name = p.getFileName().toString();
        if (name.isEmpty() || !name.chars().allMatch(Character::isDigit)) {
          continue;
        }
        long pid = Long.parseLong(name);
        if (pid != self && holds(p.resolve("environ"), entry)) {
          out.add(pid);
        }
      }
    } catch (IOException e) {
      throw new IllegalStateException("cannot list /proc", e);
    }
    return out;
  }

  private static boolean holds(Path environ, String entry) {
    byte[] bytes;
    try {
      bytes = Files.readAllBytes(environ);
    } catch (IOException | SecurityException e) {
      return false;
    }
    for (String e : new String(bytes, StandardCharsets.UTF_8).split("\0")) {
      if (e.equals(entry)) {
        return true;
      }
    }
    return false;
  }

  /** {@code "<pid> <command line>"} of each process still alive, which is then SIGKILLed. */
  static List<String> describeAndKill(List<Long> pids) {
    List<String> out = new ArrayList<>();
    for (long pid : pids) {
      Optional<ProcessHandle> h = ProcessHandle.of(pid);
      if (h.isPresent() && h.get().isAlive()) {
        out.add(pid + " " + h.get().info().commandLine().orElse("?"));
        h.get().destroyForcibly();
      }
    }
    return out;
  }
}
