package dev.cotenant.providers.session;

import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * The few reads of Linux's {@code /proc} that teardown needs: the pids, a process's state and
 * start time ({@code /proc/<pid>/stat}), and whether its environment holds an entry
 * ({@code /proc/<pid>/environ}). Every read is bounded, and a process that vanished or cannot be
 * read is simply absent. Where there is no {@code /proc} ({@link #SUPPORTED} false) every method
 * finds nothing. Stateless and thread-safe.
 */
final class ProcTable {
  private static final Path PROC = Path.of("/proc");
  /** True where {@code /proc/self/stat} and {@code /proc/self/environ} can be read (Linux). */
  static final boolean SUPPORTED = probe();
  /** A {@code stat} line is far shorter (the command name is at most 64 bytes). */
  private static final int MAX_STAT_BYTES = 4096;

  private ProcTable() {}

  /**
   * A process's state letter ({@code R}, {@code S}, {@code Z}, ...), its parent's pid, and its
   * start time in clock ticks since boot.
   */
  record Stat(char state, long ppid, long startTicks) {
    /** A zombie (or a dead task) is gone for teardown: it runs nothing and is only waiting to be reaped. */
    boolean gone() {
      return state == 'Z' || state == 'X' || state == 'x';
    }
  }

  private static boolean probe() {
    try {
      return Files.isReadable(PROC.resolve("self").resolve("environ"))
          && stat(ProcessHandle.current().pid()).isPresent();
    } catch (RuntimeException e) {
      return false;
    }
  }

  /**
   * Up to {@code max} pids from {@code /proc}, newest first as far as pids tell: the kernel hands
   * them out in increasing order and wraps around, so they are ordered downwards from the last pid
   * it handed out ({@code /proc/loadavg}), wrapping to the highest. Empty when {@code /proc} cannot
   * be listed.
   */
  static List<Long> pids(int max) {
    List<Long> out = new ArrayList<>();
    try (DirectoryStream<Path> dir = Files.newDirectoryStream(PROC)) {
      for (Path p : dir) {
        if (out.size() >= max) {
          break;
        }
        String name = p.getFileName().toString();
        if (isPid(name)) {
          out.add(Long.parseLong(name));
        }
      }
    } catch (IOException | RuntimeException e) {
      // No process table to read: nothing found.
    }
    newestFirst(out, lastPid().orElse(Long.MAX_VALUE));
    return out;
  }

  /**
   * Sorts {@code pids} newest first for a kernel whose last handed-out pid is {@code last}: those
   * up to {@code last} downwards, then those above it (handed out before the counter wrapped)
   * downwards.
   */
  static void newestFirst(List<Long> pids, long last) {
    pids.sort(Comparator.<Long, Boolean>comparing(pid -> pid > last).thenComparing(Comparator.reverseOrder()));
  }

  /** The last pid the kernel handed out: the last field of {@code /proc/loadavg}. */
  static Optional<Long> lastPid() {
    try (InputStream in = new FileInputStream("/proc/loadavg")) {
      return parseLastPid(new String(in.readNBytes(256), StandardCharsets.ISO_8859_1));
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
  }

  /** The last field of a {@code /proc/loadavg} line ({@code 0.50 0.40 0.30 2/345 6789}). */
  static Optional<Long> parseLastPid(String loadavg) {
    String[] fields = loadavg.trim().split(" +");
    try {
      return fields.length == 5 ? Optional.of(Long.parseLong(fields[4])) : Optional.empty();
    } catch (NumberFormatException e) {
      return Optional.empty();
    }
  }

  /** Whether a {@code /proc} entry names a process: 1 to 18 decimal digits. */
  static boolean isPid(String name) {
    if (name.isEmpty() || name.length() > 18) {
      return false;
    }
    for (int i = 0; i < name.length(); i++) {
      if (name.charAt(i) < '0' || name.charAt(i) > '9') {
        return false;
      }
    }
    return true;
  }

  /** The state and start time of {@code pid}; empty when it is gone or unreadable. */
  static Optional<Stat> stat(long pid) {
    byte[] bytes;
    try (InputStream in = new FileInputStream("/proc/" + pid + "/stat")) {
      bytes = in.readNBytes(MAX_STAT_BYTES);
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
    return parseStat(new String(bytes, StandardCharsets.ISO_8859_1));
  }

  /**
   * Parses a {@code stat} line: {@code pid (comm) state ppid ...}, where the command name may hold
   * spaces and parentheses, so fields are counted from the last {@code ')'}. The state is field 3,
   * the parent's pid field 4 and the start time field 22.
   */
  static Optional<Stat> parseStat(String line) {
    int close = line.lastIndexOf(')');
    if (close < 0) {
      return Optional.empty();
    }
    String[] fields = line.substring(close + 1).trim().split(" +");
    if (fields.length < 20 || fields[0].length() != 1) {
      return Optional.empty();
    }
    try {
      return Optional.of(new Stat(fields[0].charAt(0), Long.parseLong(fields[1]), Long.parseLong(fields[19])));
    } catch (NumberFormatException e) {
      return Optional.empty();
    }
  }

  /**
   * Whether the environment of {@code pid} holds {@code entry} ({@code NAME=value}) as a whole
   * entry, reading at most {@code maxBytes} of it; false when it cannot be read (another user's
   * process, a process that vanished, a zombie's empty environment).
   */
  static boolean environHolds(long pid, byte[] entry, int maxBytes) {
    try (InputStream in = new FileInputStream("/proc/" + pid + "/environ")) {
      return holds(in, entry, maxBytes);
    } catch (IOException | RuntimeException e) {
      return false;
    }
  }

  /**
   * Whether the NUL-separated entries read from {@code in} hold {@code entry} as a whole entry,
   * reading at most {@code maxBytes}, 16 KiB at a time, and stopping at the first match.
   */
  static boolean holds(InputStream in, byte[] entry, int maxBytes) throws IOException {
    // Entries are NUL-terminated: look for NUL entry NUL, with a NUL assumed before the first one.
    byte[] pattern = new byte[entry.length + 2];
    System.arraycopy(entry, 0, pattern, 1, entry.length);
    int chunk = 16 * 1024;
    byte[] buf = new byte[chunk + pattern.length];
    int have = 1;
    int total = 0;
    while (total < maxBytes) {
      int n = in.read(buf, have, Math.min(chunk, maxBytes - total));
      if (n < 0) {
        return false;
      }
      total += n;
      have += n;
      if (indexOf(buf, have, pattern) >= 0) {
        return true;
      }
      int keep = Math.min(have, pattern.length - 1);
      System.arraycopy(buf, have - keep, buf, 0, keep);
      have = keep;
    }
    return false;
  }

  private static int indexOf(byte[] buf, int length, byte[] pattern) {
    outer:
    for (int i = 0; i + pattern.length <= length; i++) {
      for (int j = 0; j < pattern.length; j++) {
        if (buf[i + j] != pattern[j]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }
}
