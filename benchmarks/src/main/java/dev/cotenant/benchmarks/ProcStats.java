package dev.cotenant.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * Linux {@code /proc} readings for the harness mains: the memory of a process, its descendants,
 * the load average; and ending process trees for good.
 */
final class ProcStats {
  private ProcStats() {}

  /** {@code Pss} and {@code Rss} of a set of processes, in KiB, and how many were read. */
  record Memory(long pssKb, long rssKb, int processes) {
    static final Memory NONE = new Memory(0, 0, 0);

    Memory plus(Memory o) {
      return new Memory(pssKb + o.pssKb, rssKb + o.rssKb, processes + o.processes);
    }

    double pssMib() {
      return pssKb / 1024.0;
    }

    double rssMib() {
      return rssKb / 1024.0;
    }
  }

  /**
   * {@code Pss} and {@code Rss} of one process from {@code /proc/<pid>/smaps_rollup}; a process
   * that is gone (or not readable) fails the run, since a missing process would make the sum lie.
   */
  static Memory memory(long pid) {
    List<String> lines;
    try {
      lines = Files.readAllLines(Path.of("/proc", Long.toString(pid), "smaps_rollup"));
    } catch (IOException e) {
      throw new IllegalStateException("cannot read the memory of process " + pid + " (gone?): " + e, e);
    }
    long pss = -1;
    long rss = -1;
    for (String l : lines) {
      if (l.startsWith("Pss:")) {
        pss = kb(l);
      } else if (l.startsWith("Rss:")) {
        rss = kb(l);
      }
    }
    if (pss < 0 || rss < 0) {
      throw new IllegalStateException("/proc/" + pid + "/smaps_rollup has no Pss or Rss line");
    }
    return new Memory(pss, rss, 1);
  }

  /** The sum over {@code pids}. */
  static Memory memory(Collection<Long> pids) {
    Memory m = Memory.NONE;
    for (long pid : pids) {
      m = m.plus(memory(pid));
    }
    return m;
  }

  /** The anonymous part of {@code Pss} ({@code Pss_Anon}) of {@code pids}, in KiB; a process gone counts 0. */
  static long pssAnonKb(Collection<Long> pids) {
    long kb = 0;
    for (long pid : pids) {
      try {
        for (String l : Files.readAllLines(Path.of("/proc", Long.toString(pid), "smaps_rollup"))) {
          if (l.startsWith("Pss_Anon:")) {
            kb += kb(l);
          }
        }
      } catch (IOException e) {
        // Gone.
      }
    }
    return kb;
  }

  private static long kb(String line) {
    String[] parts = line.trim().split("\\s+");
    return Long.parseLong(parts[1]);
  }

  /** {@code pid} and every live descendant of it, {@code pid} first. */
  static Set<Long> tree(long pid) {
    Set<Long> out = new LinkedHashSet<>();
    ProcessHandle.of(pid).ifPresent(h -> {
      out.add(h.pid());
      h.descendants().forEach(d -> out.add(d.pid()));
    });
    return out;
  }

  /** The 1-, 5- and 15-minute load averages as {@code /proc/loadavg} gives them. */
  static String loadAverage() {
    try {
      String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
      return f[0] + " " + f[1] + " " + f[2];
    } catch (IOException e) {
      return "n/a";
    }
  }

  /** The 1-minute load average. */
  static double load1() {
    try {
      return Double.parseDouble(Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+")[0]);
    } catch (IOException | RuntimeException e) {
      return Double.NaN;
    }
  }

  /** Waits up to {@code bound} for every one of {@code pids} to exit; returns those still alive. */
  static List<Long> awaitGone(Collection<Long> pids, Duration bound) throws InterruptedException {
    long deadline = System.nanoTime() + bound.toNanos();
    while (true) {
      List<Long> alive = pids.stream().filter(ProcStats::alive).collect(Collectors.toList());
      if (alive.isEmpty() || System.nanoTime() > deadline) {
        return alive;
      }
      TimeUnit.MILLISECONDS.sleep(20);
    }
  }

  static boolean alive(long pid) {
    return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
  }

  private static final Set<Process> STARTED = java.util.concurrent.ConcurrentHashMap.newKeySet();

  static {
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      for (Process p : STARTED) {
        if (p.isAlive()) {
          killTree(p.pid());
        }
      }
    }, "kill-started-processes"));
  }

  /**
   * Remembers {@code p}, so that its tree is killed if it is still alive when this JVM exits (a
   * failed benchmark iteration, an exception before the teardown). Returns {@code p}.
   */
  static Process killOnExit(Process p) {
    STARTED.removeIf(q -> !q.isAlive());
    STARTED.add(p);
    return p;
  }

  /** SIGKILL to {@code pid} and everything below it (children first seen, then the root). */
  static void killTree(long pid) {
    ProcessHandle.of(pid).ifPresent(h -> {
      List<ProcessHandle> all = new ArrayList<>(h.descendants().collect(Collectors.toList()));
      all.forEach(ProcessHandle::destroyForcibly);
      h.destroyForcibly();
    });
  }
}
