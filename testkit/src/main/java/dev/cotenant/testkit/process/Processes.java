package dev.cotenant.testkit.process;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * What the kit knows about processes: which ones this JVM started (directly or not), whether one
 * still runs, how to wait for them and how to kill a tree.
 *
 * <p><b>Two ways to find a process.</b> {@link #descendants()} walks this JVM's process tree. A
 * process whose parent exited has left that tree (it was re-parented), so the kit also marks what
 * it starts: every {@link dev.cotenant.testkit.server.FakeServer} description carries the
 * environment entry {@value #COOKIE_ENV}{@code =}{@link #cookie()}, inherited by everything the
 * server starts in turn, and {@link #marked()} finds those processes wherever they are (Linux
 * only: it reads {@code /proc/<pid>/environ}; elsewhere it finds nothing).
 *
 * <p><b>Zombies.</b> A process that exited but was not reaped (in a container whose first process
 * does not reap orphans) still has a process handle that reports {@link ProcessHandle#isAlive()}.
 * {@link #running} reads its state on Linux and counts a zombie as gone: it runs no code and
 * holds no resource but its table entry.
 *
 * <p>Stateless apart from the cookie, which is fixed for the life of the JVM. Thread-safe.
 */
public final class Processes {
  /** The environment entry marking the processes the kit starts. */
  public static final String COOKIE_ENV = "COTENANT_TESTKIT_RUN";

  private static final String COOKIE = ProcessHandle.current().pid() + "-" + UUID.randomUUID();
  private static final Path PROC = Path.of("/proc");
  private static final int MAX_DESCRIBED_CHARS = 400;

  private Processes() {}

  /** The value of {@value #COOKIE_ENV} for processes started by this JVM. */
  public static String cookie() {
    return COOKIE;
  }

  /** True when {@code process} still runs: alive and, where that can be read, not a zombie. */
  public static boolean running(ProcessHandle process) {
    if (!process.isAlive()) {
      return false;
    }
    Optional<Character> state = linuxState(process.pid());
    return state.map(s -> s != 'Z' && s != 'X' && s != 'x').orElse(true);
  }

  /** Every running descendant of this JVM, in the order the operating system lists them. */
  public static List<ProcessHandle> descendants() {
    List<ProcessHandle> out = new ArrayList<>();
    ProcessHandle.current().descendants().filter(Processes::running).forEach(out::add);
    return out;
  }

  /**
   * Every running process carrying this JVM's {@link #cookie()} in its environment, wherever it is
   * in the process tree. Empty where {@code /proc} cannot be read.
   */
  public static List<ProcessHandle> marked() {
    List<ProcessHandle> out = new ArrayList<>();
    for (long pid : EnvironmentScan.carriers(COOKIE_ENV + "=" + COOKIE)) {
      ProcessHandle.of(pid).filter(Processes::running).ifPresent(out::add);
    }
    return out;
  }

  /** The running descendants and marked processes, each once. */
  public static List<ProcessHandle> ours() {
    Map<String, ProcessHandle> byKey = new LinkedHashMap<>();
    for (ProcessHandle h : descendants()) {
      byKey.put(key(h), h);
    }
    for (ProcessHandle h : marked()) {
      byKey.putIfAbsent(key(h), h);
    }
    return new ArrayList<>(byKey.values());
  }

  /**
   * Waits up to {@code timeout} for every process in {@code processes} to stop running.
   *
   * @return those still running when the time was up, empty when all stopped
   */
  public static List<ProcessHandle> awaitExit(Collection<ProcessHandle> processes, Duration timeout)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      List<ProcessHandle> left = new ArrayList<>();
      for (ProcessHandle h : processes) {
        if (running(h)) {
          left.add(h);
        }
      }
      if (left.isEmpty() || System.nanoTime() - deadline >= 0) {
        return left;
      }
      Thread.sleep(20);
    }
  }

  /** Kills every process in {@code processes} forcibly, each one's descendants first. */
  public static void killTrees(Collection<ProcessHandle> processes) {
    for (ProcessHandle h : processes) {
      h.descendants().forEach(ProcessHandle::destroyForcibly);
      h.destroyForcibly();
    }
  }

  /** {@code pid <n>: <command line>}, the command line bounded in length. */
  public static String describe(ProcessHandle process) {
    ProcessHandle.Info info = process.info();
    String command = info.commandLine()
        .or(() -> info.command().map(c -> c + info.arguments().map(a -> " " + String.join(" ", a)).orElse("")))
        .orElse("<command line unavailable>");
    if (command.length() > MAX_DESCRIBED_CHARS) {
      command = command.substring(0, MAX_DESCRIBED_CHARS) + "...";
    }
    return "pid " + process.pid() + ": " + command;
  }

  /** A key naming one process even after its pid is reused: the pid and its start time. */
  static String key(ProcessHandle process) {
    return process.pid() + "@" + process.info().startInstant().map(Object::toString).orElse("?");
  }

  private static Optional<Character> linuxState(long pid) {
    Path stat = PROC.resolve(Long.toString(pid)).resolve("stat");
    try {
      String s = Files.readString(stat, StandardCharsets.UTF_8);
      int close = s.lastIndexOf(')');
      if (close < 0 || close + 2 >= s.length()) {
        return Optional.empty();
      }
      return Optional.of(s.charAt(close + 2));
    } catch (IOException | SecurityException e) {
      return Optional.empty();
    }
  }

  static boolean containsEntry(byte[] env, byte[] entry) {
    outer:
    for (int start = 0; start + entry.length <= env.length; start++) {
      if (start > 0 && env[start - 1] != 0) {
        continue;
      }
      for (int i = 0; i < entry.length; i++) {
        if (env[start + i] != entry[i]) {
          continue outer;
        }
      }
      int end = start + entry.length;
      if (end == env.length || env[end] == 0) {
        return true;
      }
    }
    return false;
  }
}
