package dev.cotenant.providers.session;

import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The environment cookie of one spawn: {@value #NAME}{@code =<32 random hex digits>} is added to
 * the server's environment, and everything the server starts inherits it, including a process
 * that double-forked, called {@code setsid} or was reparented when its parent exited, none of
 * which is a descendant any more. {@link #sweep} finds and signals them by reading
 * {@code /proc/<pid>/environ} (Linux; elsewhere it finds nothing).
 *
 * <p>The value only tells spawns apart: it is not a secret (any process of the same user can read
 * it), and it is never part of the server's description, so it cannot change a launch identity. A
 * process that clears or rewrites its environment is not found by it (only as the descendant of
 * one that is).
 *
 * <p>Cost of one scan: at most {@value #MAX_PIDS} entries of {@code /proc}, newest first
 * ({@link ProcTable#pids}); for each, one read of its short {@code stat}; for those started no
 * earlier than the spawned server (nothing older can have inherited the cookie) and not zombies,
 * one read of at most {@value #MAX_ENVIRON_BYTES} bytes of its environment, stopping at the first
 * match; for each carrier, the same two reads of at most {@value #MAX_CLIMB} ancestors. Processes
 * of other users are unreadable and skipped. Thread-safe.
 */
final class SpawnCookie {
  /** The environment variable that marks every process a spawn created. */
  static final String NAME = "COTENANT_SPAWN_ID";
  /** The most {@code /proc} entries one scan looks at. */
  static final int MAX_PIDS = 65_536;
  /** The most bytes of one process's environment one scan reads. */
  static final int MAX_ENVIRON_BYTES = 1024 * 1024;
  /** How many carrier ancestors of one carrier a sweep climbs. */
  static final int MAX_CLIMB = 64;

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

  /** The live processes (zombies excluded) whose environment holds the cookie now, this JVM excluded. */
  List<ProcessHandle> carriers() {
    List<ProcessHandle> out = new ArrayList<>();
    if (!ProcTable.SUPPORTED) {
      return out;
    }
    long self = ProcessHandle.current().pid();
    for (long pid : ProcTable.pids(MAX_PIDS)) {
      if (pid != self) {
        ProcTable.stat(pid).flatMap(s -> carrier(pid, s)).ifPresent(out::add);
      }
    }
    return out;
  }

  /**
   * One scan of the process table that hands every carrier of the cookie, and every descendant of
   * one, to {@code signal}, each once. A carrier is signalled the moment it is recognised, before
   * the scan reads on, so a process that keeps replacing itself is caught before it has moved on;
   * and not alone: its ancestors that carry the cookie too are signalled first, from the highest
   * down, because a parent would notice its child's death and could act on it (start a
   * successor). Processes below a signalled one in the scan's table that do not carry the cookie
   * (they cleared it) are signalled last.
   *
   * @return every process signalled, in order
   */
  List<ProcessHandle> sweep(Consumer<ProcessHandle> signal) {
    Map<Long, ProcessHandle> signalled = new LinkedHashMap<>();
    if (!ProcTable.SUPPORTED) {
      return List.of();
    }
    long self = ProcessHandle.current().pid();
    Map<Long, ProcTable.Stat> table = new HashMap<>();
    for (long pid : ProcTable.pids(MAX_PIDS)) {
      if (pid == self) {
        continue;
      }
      Optional<ProcTable.Stat> stat = ProcTable.stat(pid);
      if (stat.isEmpty() || stat.get().gone()) {
        continue;
      }
      table.put(pid, stat.get());
      if (signalled.containsKey(pid)) {
        continue;
      }
      Optional<ProcessHandle> found = carrier(pid, stat.get());
      if (found.isEmpty()) {
        continue;
      }
      Deque<ProcessHandle> chain = new ArrayDeque<>();
      chain.push(found.get());
      long up = stat.get().ppid();
      for (int i = 0; i < MAX_CLIMB && up > 1 && up != self && !signalled.containsKey(up); i++) {
        long parent = up;
        Optional<ProcTable.Stat> parentStat = ProcTable.stat(parent);
        Optional<ProcessHandle> carrier = parentStat.flatMap(s -> carrier(parent, s));
        if (carrier.isEmpty()) {
          break;
        }
        chain.push(carrier.get());
        table.put(parent, parentStat.get());
        up = parentStat.get().ppid();
      }
      for (ProcessHandle h : chain) {
        signal.accept(h);
        signalled.put(h.pid(), h);
      }
    }
    Map<Long, List<Long>> children = new HashMap<>();
    table.forEach((child, stat) -> children.computeIfAbsent(stat.ppid(), p -> new ArrayList<>()).add(child));
    Deque<Long> below = new ArrayDeque<>(signalled.keySet());
    while (!below.isEmpty()) {
      for (long child : children.getOrDefault(below.pop(), List.of())) {
        if (!signalled.containsKey(child) && sameProcess(child, table.get(child))) {
          Optional<ProcessHandle> h = ProcessHandle.of(child);
          if (h.isPresent()) {
            signal.accept(h.get());
            signalled.put(child, h.get());
            below.add(child);
          }
        }
      }
    }
    return List.copyOf(signalled.values());
  }

  /** True when {@code pid} is still the process the scan read as {@code seen} (its pid was not reused since). */
  private static boolean sameProcess(long pid, ProcTable.Stat seen) {
    return ProcTable.stat(pid).map(now -> now.startTicks() == seen.startTicks() && !now.gone()).orElse(false);
  }

  /** {@code pid}, when it is alive, not older than the spawn, and its environment holds the cookie. */
  private Optional<ProcessHandle> carrier(long pid, ProcTable.Stat stat) {
    if (stat.gone() || stat.startTicks() < notBefore) {
      return Optional.empty();
    }
    // The handle is taken before the environment is read: it pins the start time, so a pid
    // reused after the read is never signalled.
    Optional<ProcessHandle> handle = ProcessHandle.of(pid);
    return handle.isPresent() && ProcTable.environHolds(pid, entry, MAX_ENVIRON_BYTES) ? handle : Optional.empty();
  }

  @Override
  public String toString() {
    return entry();
  }
}
