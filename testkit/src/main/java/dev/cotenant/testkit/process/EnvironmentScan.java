package dev.cotenant.testkit.process;

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
 * Finds processes by an entry of their environment: every {@code /proc/<pid>/environ} this user
 * can read is searched for the exact {@code NAME=value} entry. It finds a process that is no
 * longer anyone's descendant (double-forked, {@code setsid}, reparented when its parent exited),
 * which a check of the process tree cannot. Give the processes a test starts a marker entry, and
 * check for it afterwards. Written independently of any teardown it checks. Linux only: elsewhere
 * it finds nothing. Stateless and thread-safe.
 */
public final class EnvironmentScan {
  private static final Path PROC = Path.of("/proc");

  private EnvironmentScan() {}

  /**
   * The live processes whose environment holds {@code entry}, polling until there are none or
   * {@code waitMillis} passed. Zombies have an empty environ and are not counted.
   */
  public static List<Long> carriers(String entry, long waitMillis) throws InterruptedException {
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
  public static List<Long> carriers(String entry) {
    List<Long> out = new ArrayList<>();
    if (!Files.isDirectory(PROC.resolve("self"))) {
      return out;
    }
    byte[] needle = entry.getBytes(StandardCharsets.UTF_8);
    long self = ProcessHandle.current().pid();
    try (DirectoryStream<Path> dir = Files.newDirectoryStream(PROC)) {
      for (Path p : dir) {
        String name = p.getFileName().toString();
        if (name.isEmpty() || !name.chars().allMatch(Character::isDigit)) {
          continue;
        }
        long pid = Long.parseLong(name);
        if (pid != self && holds(p.resolve("environ"), needle)) {
          out.add(pid);
        }
      }
    } catch (IOException e) {
      return out;
    }
    return out;
  }

  private static boolean holds(Path environ, byte[] needle) {
    try {
      return Processes.containsEntry(Files.readAllBytes(environ), needle);
    } catch (IOException | SecurityException e) {
      return false; // gone, or not ours to read
    }
  }

  /** {@code "<pid> <command line>"} of each process still alive, which is then SIGKILLed. */
  public static List<String> describeAndKill(List<Long> pids) {
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
