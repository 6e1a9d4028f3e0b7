package dev.cotenant.cli.daemon.api;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * The memory of one process, or of several summed, in bytes, as Linux's {@code /proc/<pid>/smaps}
 * accounts it.
 *
 * @param rss the resident set ({@code Rss}): every page mapped, a page several processes share
 *     counted in full in each of them
 * @param pss the proportional set ({@code Pss}): each page divided by the number of processes
 *     mapping it, so that the Pss of all processes adds up to the memory they take together
 * @param uss the unique set, {@code Private_Clean + Private_Dirty}: the pages no other process
 *     maps, what the process alone takes
 */
record ProcessMemory(long rss, long pss, long uss) {
  /** Nothing: the sum of no process. */
  static final ProcessMemory NONE = new ProcessMemory(0, 0, 0);

  /** The sum of this and {@code other}. */
  ProcessMemory plus(ProcessMemory other) {
    return new ProcessMemory(rss + other.rss, pss + other.pss, uss + other.uss);
  }

  /** This memory {@code n} times over. */
  ProcessMemory times(long n) {
    return new ProcessMemory(rss * n, pss * n, uss * n);
  }

  /**
   * {@code Pss - Uss}: the share of the pages this process maps together with others, each page
   * counted once among all the processes that map it.
   */
  long sharedPss() {
    return pss - uss;
  }

  /**
   * The memory of process {@code pid} under {@code proc} (Linux's {@code /proc}): the
   * {@code Rss}, {@code Pss}, {@code Private_Clean} and {@code Private_Dirty} lines of
   * {@code smaps_rollup}, or, on a kernel without it (before 4.14), the same lines of
   * {@code smaps} summed over every mapping. Empty when neither can be read: the process is gone,
   * or belongs to another user. A process that maps nothing (a zombie) takes nothing.
   */
  static Optional<ProcessMemory> read(Path proc, long pid) {
    Path dir = proc.resolve(Long.toString(pid));
    List<String> lines;
    try {
      lines = Files.readAllLines(dir.resolve("smaps_rollup"));
    } catch (NoSuchFileException e) {
      try {
        lines = Files.readAllLines(dir.resolve("smaps"));
      } catch (IOException | SecurityException e2) {
        return Optional.empty();
      }
    } catch (IOException | SecurityException e) {
      return Optional.empty();
    }
    long rss = 0;
    long pss = 0;
    long uss = 0;
    try {
      for (String line : lines) {
        if (line.startsWith("Rss:")) {
          rss += kib(line);
        } else if (line.startsWith("Pss:")) {
          pss += kib(line);
        } else if (line.startsWith("Private_Clean:") || line.startsWith("Private_Dirty:")) {
          uss += kib(line);
        }
      }
    } catch (NumberFormatException e) {
      return Optional.empty();
    }
    return Optional.of(new ProcessMemory(rss * 1024, pss * 1024, uss * 1024));
  }

  /** The number of a {@code Key:   N kB} line (always kB in {@code smaps}). */
  private static long kib(String line) {
    String[] parts = line.substring(line.indexOf(':') + 1).trim().split("\\s+");
    return Long.parseLong(parts[0]);
  }
}
