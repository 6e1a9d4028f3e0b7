package dev.cotenant.providers.preflight;

import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The environment cookie of one spawn: {@value #NAME}{@code =<32 random hex digits>} is added to
 * the server's environment, and everything the server starts inherits it, including a process
 * that double-forked, called {@code setsid} or was reparented when its parent exited, none of
 * which is a descendant any more. {@link #carriers()} finds them by reading
 * {@code /proc/<pid>/environ} (Linux; elsewhere it finds nothing).
 *
 * <p>The value only tells spawns apart: it is not a secret (any process of the same user can read
 * it), and it is never part of the server's description, so it cannot change a launch identity. A
 * process that clears or rewrites its environment is not found.
 *
 * <p>Cost of one scan: at most {@value #MAX_PIDS} entries of {@code /proc}; for each, one read of
 * its short {@code stat}; for those started no earlier than the spawned server (a process that
 * inherited the cookie cannot be older) and not zombies, one read of at most
 * {@value #MAX_ENVIRON_BYTES} bytes of its environment, stopping at the first match. Processes of
 * other users are unreadable and skipped. Thread-safe.
 */
final class SpawnCookie {
  /** The environment variable that marks every process a spawn created. */
  static final String NAME = "COTENANT_SPAWN_ID";
  /** The most {@code /proc} entries one scan looks at. */
  static final int MAX_PIDS = 65_536;
  /** The most bytes of one process's environment one scan reads. */
  static final int MAX_ENVIRON_BYTES = 1024 * 1024;

  private static final SecureRandom RANDOM = new SecureRandom();

  private final String value;
  private final byte[] entry;
  /** Start time (clock ticks since boot) below which no process can carry the cookie; 0 when unknown. */
  private volatile long notBefore;

  private SpawnCookie(String value) {
    this.value = value;
    this.entry = (NAME + "=" + value).getBytes(StandardCharsets.UTF_8);
  }

  /** A cookie with a fresh random value. */
  static SpawnCookie create() {
    byte[] bytes = new byte[16];
    RANDOM.nextBytes(bytes);
    return new SpawnCookie(HexFormat.of().formatHex(bytes));
  }

  /** The random value. */
  String value() {
    return value;
  }

  /** {@value #NAME}{@code =<value>}. */
  String entry() {
    return NAME + "=" + value;
  }

  /** Adds the cookie to the environment a process is about to be started with, replacing any value there. */
  void addTo(Map<String, String> environment) {
    environment.put(NAME, value);
  }

  /**
   * Records when the spawned process {@code pid} started, so that older processes are not read:
   * its start time, or this JVM's when it is already gone.
   */
  void spawned(long pid) {
    Optional<ProcTable.Stat> stat = ProcTable.stat(pid);
    if (stat.isEmpty()) {
      stat = ProcTable.stat(ProcessHandle.current().pid());
    }
    notBefore = stat.map(ProcTable.Stat::startTicks).orElse(0L);
  }

  /**
   * Finds the live processes (zombies excluded) whose environment holds the cookie, this JVM
   * excluded, handing each to {@code found} as soon as it is recognised, so that a caller that
   * kills it does so before it can replace itself while the rest of the table is read.
   *
   * @return how many were found
   */
  int carriers(Consumer<ProcessHandle> found) {
    if (!ProcTable.SUPPORTED) {
      return 0;
    }
    int count = 0;
    long self = ProcessHandle.current().pid();
    long since = notBefore;
    for (long pid : ProcTable.pids(MAX_PIDS)) {
      if (pid == self) {
        continue;
      }
      Optional<ProcTable.Stat> stat = ProcTable.stat(pid);
      if (stat.isEmpty() || stat.get().gone() || stat.get().startTicks() < since) {
        continue;
      }
      // The handle is taken before the environment is read: it pins the start time, so a pid
      // reused after the read is never signalled.
      Optional<ProcessHandle> handle = ProcessHandle.of(pid);
      if (handle.isPresent() && ProcTable.environHolds(pid, entry, MAX_ENVIRON_BYTES)) {
        count++;
        found.accept(handle.get());
      }
    }
    return count;
  }

  /** The live processes whose environment holds the cookie (see {@link #carriers(Consumer)}). */
  List<ProcessHandle> carriers() {
    List<ProcessHandle> out = new ArrayList<>();
    carriers(out::add);
    return out;
  }

  @Override
  public String toString() {
    return entry();
  }
}
