package dev.cotenant.cli.daemon.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.gateway.pool.DrainResult;
import dev.cotenant.gateway.pool.EntrySnapshot;
import dev.cotenant.gateway.pool.EntryState;
import dev.cotenant.gateway.pool.Placement;
import dev.cotenant.testkit.process.ChecksProcessLeaks;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * The API's view of the pool's accounting, without a daemon: the memory of a process read from
 * {@code /proc} (its {@code smaps_rollup}, or its {@code smaps} summed where there is none), the
 * memory of a process tree (two {@code sleep} processes, whose private memory does not move), the
 * uptime, what routing costs against running each client's servers directly (made-up processes)
 * and the drain's errors.
 */
@ChecksProcessLeaks(waitMillis = 20_000)
class BackendsTest {
  @TempDir Path dir;

  /** The {@code KEY:} line of {@code /proc/PID/smaps_rollup} in bytes, read here independently of {@link ProcessMemory}. */
  private static long rollup(long pid, String key) throws Exception {
    long total = 0;
    boolean found = false;
    for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "smaps_rollup"))) {
      for (String k : key.split("\\+")) {
        if (line.startsWith(k + ":")) {
          String[] parts = line.substring(k.length() + 1).trim().split("\\s+");
          assertEquals("kB", parts[1], line);
          total += Long.parseLong(parts[0]) * 1024;
          found = true;
        }
      }
    }
    assertTrue(found, "no " + key + " for " + pid);
    return total;
  }

  /** Waits until {@code pid} sleeps and its private memory and Rss read the same twice, 50 ms apart. */
  private static void awaitSettled(long pid, long deadline) throws Exception {
    String last = "";
    while (true) {
      String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
      char state = stat.charAt(stat.lastIndexOf(')') + 2);
      String now = rollup(pid, "Private_Clean+Private_Dirty") + " " + rollup(pid, "Rss");
      if (state == 'S' && now.equals(last)) {
        return;
      }
      last = now;
      assertTrue(System.nanoTime() < deadline, "process " + pid + " never settled");
      Thread.sleep(50);
    }
  }

  private static String cmdline(long pid) {
    try {
      return Files.readString(Path.of("/proc", Long.toString(pid), "cmdline"));
    } catch (java.io.IOException e) {
      return "";
    }
  }

  @Test
  void theMemoryOfAProcessTreeIsEachProcessesPssUssAndRss() throws Exception {
    // The shell execs into the parent sleep after starting the child.
    Process parent = new ProcessBuilder("sh", "-c", "sleep 301 & exec sleep 302").start();
    try {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
      // Both have become sleep (before its exec, the child is still a copy of the shell).
      while (parent.toHandle().children().count() != 1
          || !Files.readString(Path.of("/proc", Long.toString(parent.pid()), "cmdline")).startsWith("sleep")
          || !parent.toHandle().children().allMatch(c -> cmdline(c.pid()).startsWith("sleep"))) {
        assertTrue(System.nanoTime() < deadline, "the tree did not form");
        Thread.sleep(20);
      }
      long child = parent.toHandle().children().findFirst().orElseThrow().pid();
      // Each has loaded what it needs and sleeps: its own memory no longer moves. (Its Pss still
      // may, as other processes map and unmap the libraries it shares with them.)
      awaitSettled(parent.pid(), deadline);
      awaitSettled(child, deadline);
      ProcessMemory own = ProcessMemory.read(Path.of("/proc"), parent.pid()).orElseThrow();
      assertEquals(rollup(parent.pid(), "Rss"), own.rss());
      assertEquals(rollup(parent.pid(), "Private_Clean+Private_Dirty"), own.uss());
      assertTrue(own.uss() > 0 && own.uss() <= own.pss() && own.pss() <= own.rss(), "Uss <= Pss <= Rss: " + own);
      assertTrue(own.rss() > 64 * 1024, "a process takes more than 64 KiB: " + own);

      BackendTree tree = BackendTree.read(OptionalLong.of(parent.pid()), 0, ProcessReader.PROC.children(), ProcessReader.PROC);
      assertEquals(2, tree.processes(), tree.toString());
      assertEquals(0, tree.unread(), tree.toString());
      assertEquals(own.rss() + rollup(child, "Rss"), tree.all().rss());
      assertEquals(own.uss() + rollup(child, "Private_Clean+Private_Dirty"), tree.all().uss());
      BackendTree wrapped = BackendTree.read(OptionalLong.of(parent.pid()), 1, ProcessReader.PROC.children(), ProcessReader.PROC);
      assertEquals(1, wrapped.serverProcesses(), "below one level of wrapper, the child alone: " + wrapped);
      assertEquals(rollup(child, "Rss"), wrapped.server().rss());
      assertEquals(2, wrapped.processes(), "the wrapper is counted in the tree: " + wrapped);
    } finally {
      parent.toHandle().descendants().forEach(ProcessHandle::destroyForcibly);
      parent.destroyForcibly();
      parent.waitFor();
    }
    assertEquals(Optional.empty(), ProcessMemory.read(Path.of("/proc"), parent.pid()), "a process that is gone has none");
    BackendTree gone = BackendTree.read(OptionalLong.of(parent.pid()), 0, ProcessReader.PROC.children(), ProcessReader.PROC);
    assertEquals(1, gone.processes(), "the backend's process is still counted: " + gone);
    assertEquals(1, gone.unread(), "and said unread: " + gone);
  }

  /** A kernel without {@code smaps_rollup} (before 4.14): {@code smaps} summed over its mappings. */
  @Test
  void withoutSmapsRollupTheMemoryIsSmapsSummed() throws Exception {
    Path proc = dir.resolve("proc");
    Files.createDirectories(proc.resolve("7"));
    Files.writeString(proc.resolve("7/smaps"), String.join("\n",
        "55d0c0a00000-55d0c0a02000 r--p 00000000 08:01 1234   /usr/bin/sleep",
        "Size:                  8 kB",
        "Rss:                   8 kB",
        "Pss:                   2 kB",
        "Pss_Anon:              0 kB",
        "Shared_Clean:          8 kB",
        "Private_Clean:         0 kB",
        "Private_Dirty:         0 kB",
        "7ffd5c000000-7ffd5c021000 rw-p 00000000 00:00 0      [stack]",
        "Rss:                  12 kB",
        "Pss:                  12 kB",
        "Pss_Dirty:            12 kB",
        "Private_Clean:         4 kB",
        "Private_Dirty:         8 kB",
        ""));
    assertEquals(Optional.of(new ProcessMemory(20 * 1024, 14 * 1024, 12 * 1024)), ProcessMemory.read(proc, 7));
    // smaps_rollup, where there is one, is read instead.
    Files.writeString(proc.resolve("7/smaps_rollup"), "00400000-7ffd5c021000 ---p 00000000 00:00 0   [rollup]\n"
        + "Rss:                 100 kB\nPss:                  50 kB\nPss_Anon:             10 kB\n"
        + "Private_Clean:         5 kB\nPrivate_Dirty:        20 kB\n");
    assertEquals(Optional.of(new ProcessMemory(100 * 1024, 50 * 1024, 25 * 1024)), ProcessMemory.read(proc, 7));
    // A process that maps nothing (a zombie) takes nothing; one that is gone cannot be read.
    Files.createDirectories(proc.resolve("8"));
    Files.writeString(proc.resolve("8/smaps_rollup"), "");
    assertEquals(Optional.of(ProcessMemory.NONE), ProcessMemory.read(proc, 8));
    assertEquals(Optional.empty(), ProcessMemory.read(proc, 9));
  }

  @Test
  void uptimeIsMeasuredFromTheStartAndAbsentWithoutOne() {
    EntrySnapshot started = new EntrySnapshot("c0123456789abcdef0123", "echo", EntryState.ACTIVE, 1, 2,
        OptionalLong.empty(), 3, 0, OptionalLong.of(10_000), Placement.SHARED, false, "its verdict (declared) recommends sharing");
    EntrySnapshot spawning = new EntrySnapshot("d0123456789abcdef0123", "echo", EntryState.SPAWNING, 1, 1,
        OptionalLong.empty(), 0, 0, OptionalLong.empty(), Placement.DEDICATED, false);
    JsonNode json = Backends.json(List.of(started, spawning), 12_500);
    assertEquals(2_500, json.get("backends").get(0).get("uptimeMs").longValue());
    assertEquals(10_000, json.get("backends").get(0).get("startedAt").longValue(), "when it came up, on the pool's clock");
    assertEquals("its verdict (declared) recommends sharing", json.get("backends").get(0).get("reason").stringValue());
    assertTrue(json.get("backends").get(1).get("uptimeMs").isNull(), json.toString());
    assertTrue(json.get("backends").get(1).get("startedAt").isNull(), json.toString());
    assertEquals("c0123456789abcde", json.get("backends").get(0).get("key").stringValue());
    assertEquals(3, json.get("totals").get("unsharedProcesses").intValue(), "a process per session: " + json);
  }

  /** Made-up processes: each one's memory, its children, and those that live but cannot be read. */
  private static final class FakeProcesses implements ProcessReader {
    final Map<Long, ProcessMemory> memory = new HashMap<>();
    final Map<Long, List<Long>> children = new HashMap<>();
    final Set<Long> unreadable = new HashSet<>();

    /** Process {@code pid} with this {@code Rss}, {@code Pss} and {@code Uss}, and these children. */
    FakeProcesses process(long pid, long rss, long pss, long uss, Long... kids) {
      memory.put(pid, new ProcessMemory(rss, pss, uss));
      children.put(pid, List.of(kids));
      return this;
    }

    @Override
    public Optional<ProcessMemory> memory(long pid) {
      return Optional.ofNullable(memory.get(pid));
    }

    @Override
    public Map<Long, List<Long>> children() {
      return children;
    }

    @Override
    public boolean alive(long pid) {
      return memory.containsKey(pid) || unreadable.contains(pid);
    }
  }

  private static EntrySnapshot backend(String server, long pid, int sessions, Placement placement) {
    return new EntrySnapshot("c" + pid + "0123456789abcdef", server, EntryState.ACTIVE, 1, sessions,
        pid == 0 ? OptionalLong.empty() : OptionalLong.of(pid), 0, 0, OptionalLong.of(0), placement, false, "why");
  }

  private static DaemonProcesses.Client client(String server, boolean attached, long shimPid) {
    return new DaemonProcesses.Client(server, attached, true, shimPid == 0 ? OptionalLong.empty() : OptionalLong.of(shimPid));
  }

  private static DaemonProcesses processes(List<Long> daemon, List<DaemonProcesses.Client> clients, int wrappers) {
    return new DaemonProcesses() {
      @Override
      public List<Long> daemon() {
        return daemon;
      }

      @Override
      public List<Client> clients() {
        return clients;
      }

      @Override
      public int backendWrappers() {
        return wrappers;
      }
    };
  }

  /**
   * Each backend in its bubblewrap pair (two wrapper processes above the server): echo shared by
   * two attached sessions and one whose client has not sent anything yet, counter dedicated to
   * each of its two sessions, a shim per session and the daemon's two processes.
   */
  private static FakeProcesses machine() {
    return new FakeProcesses()
        // echo: bubblewrap, bubblewrap, the server and a child of it.
        .process(100, 2_000, 400, 100, 101L).process(101, 1_600, 300, 60, 102L)
        .process(102, 50_000, 30_000, 20_000, 103L).process(103, 10_000, 4_000, 3_000)
        // counter, twice.
        .process(200, 2_000, 400, 100, 201L).process(201, 1_600, 300, 60, 202L).process(202, 40_000, 25_000, 18_000)
        .process(300, 2_000, 400, 100, 301L).process(301, 1_600, 300, 60, 302L).process(302, 40_000, 27_000, 18_000)
        // the shims and the daemon's JVM and watchdog.
        .process(400, 20_000, 1_000, 800).process(401, 20_000, 1_000, 800).process(402, 20_000, 1_000, 800)
        .process(403, 20_000, 1_000, 800).process(404, 20_000, 1_000, 800)
        .process(500, 100_000, 60_000, 50_000).process(501, 1_000, 200, 100);
  }

  private static final List<DaemonProcesses.Client> CLIENTS = List.of(client("echo", true, 400), client("echo", true, 401),
      client("echo", false, 402), client("counter", true, 403), client("counter", true, 404));

  /**
   * The rule for what the sessions would take directly: per server, each session a copy of the
   * server's private memory (Uss, without the wrappers), and the pages the copies share with other
   * processes (Pss - Uss) once; from the backends up now, else from the last ones read, else not
   * known and said so.
   */
  @Test
  void directlyEachSessionTakesTheServersPrivateMemoryAndItsSharedPagesAreCountedOnce() {
    FakeProcesses machine = machine();
    ServerFigures figures = new ServerFigures();
    List<EntrySnapshot> pool = List.of(backend("echo", 100, 2, Placement.SHARED), backend("counter", 200, 1, Placement.DEDICATED),
        backend("counter", 300, 1, Placement.DEDICATED));
    JsonNode json = Backends.json(pool, 0, processes(List.of(500L, 501L), CLIENTS, 2), machine, figures);
    JsonNode echo = json.get("backends").get(0);
    assertEquals(readTree("{\"processes\":4,\"pssBytes\":34700,\"ussBytes\":23160,\"rssBytes\":63600}"),
        readTree("{\"processes\":" + echo.get("processes") + ",\"pssBytes\":" + echo.get("pssBytes") + ",\"ussBytes\":"
            + echo.get("ussBytes") + ",\"rssBytes\":" + echo.get("rssBytes") + "}"), "a backend is its whole tree: " + echo);
    assertEquals(readTree("{\"backends\":3,\"sessions\":4,\"pssBytes\":88100,\"rssBytes\":150800,"
        + "\"unsharedProcesses\":4,\"unsharedRssBytes\":214400}"), json.get("totals").toString());
    JsonNode cost = json.get("cost");
    assertEquals(readTree("{\"processes\":17,\"pssBytes\":153300,\"rssBytes\":351800,"
        + "\"backends\":{\"processes\":10,\"pssBytes\":88100,\"rssBytes\":150800,\"unread\":0},"
        + "\"shims\":{\"processes\":5,\"pssBytes\":5000,\"rssBytes\":100000,\"unread\":0},"
        + "\"daemon\":{\"processes\":2,\"pssBytes\":60200,\"rssBytes\":101000,\"unread\":0}}"), cost.get("now").toString(),
        "every process once: the bubblewrap pairs, every shim (the one not attached too), the daemon's: " + cost);
    // counter: 2 sessions x 18,000 private + (7,000 + 9,000) shared once = its two servers' Pss, as now.
    // echo: 3 sessions (one not attached yet) x 23,000 private + 11,000 shared once.
    assertEquals(readTree("{\"processes\":8,\"pssBytes\":132000,\"rssBytes\":260000,\"servers\":["
        + "{\"server\":\"counter\",\"sessions\":2,\"unattached\":0,\"figures\":\"now\",\"readAt\":0,\"copies\":2,\"processesEach\":1,"
        + "\"ussBytesEach\":18000,\"sharedPssBytes\":16000,\"processes\":2,\"pssBytes\":52000,\"rssBytes\":80000},"
        + "{\"server\":\"echo\",\"sessions\":3,\"unattached\":1,\"figures\":\"now\",\"readAt\":0,\"copies\":1,\"processesEach\":2,"
        + "\"ussBytesEach\":23000,\"sharedPssBytes\":11000,\"processes\":6,\"pssBytes\":80000,\"rssBytes\":180000}]}"),
        cost.get("direct").toString(), cost.toString());
    assertEquals(readTree("{\"processes\":-9,\"pssBytes\":-21300,\"rssBytes\":-91800}"), cost.get("saved").toString(),
        "routing costs more here, and says so");
    assertEquals(0, cost.get("missing").size(), cost.toString());

    // echo's backend is gone; its session not attached yet is estimated from the figures last read.
    JsonNode later = Backends.json(pool.subList(1, 3), 5_000, processes(List.of(500L, 501L), CLIENTS.subList(2, 5), 2), machine,
        figures).get("cost");
    JsonNode lastEcho = later.get("direct").get("servers").get(1);
    assertEquals("last", lastEcho.get("figures").stringValue(), later.toString());
    assertEquals(1, lastEcho.get("sessions").intValue());
    assertEquals(0, lastEcho.get("readAt").longValue(), "when they were read, not now: " + later);
    assertEquals(23_000 + 11_000, lastEcho.get("pssBytes").longValue(), "one copy's private memory and the shared part");
    assertEquals(52_000 + 34_000, later.get("direct").get("pssBytes").longValue(), later.toString());
    assertEquals(0, later.get("missing").size(), later.toString());

    // A daemon that never read a backend of echo does not know what it takes: named, and no total.
    JsonNode unknown = Backends.json(pool.subList(1, 3), 0, processes(List.of(500L, 501L), CLIENTS.subList(2, 5), 2), machine,
        new ServerFigures()).get("cost");
    JsonNode unknownEcho = unknown.get("direct").get("servers").get(1);
    assertEquals("unknown", unknownEcho.get("figures").stringValue(), unknown.toString());
    assertTrue(unknownEcho.get("pssBytes").isNull(), unknown.toString());
    assertEquals(1, unknownEcho.get("processes").intValue(), "at least a process per session: " + unknown);
    assertTrue(unknown.get("direct").get("pssBytes").isNull(), unknown.toString());
    assertTrue(unknown.get("saved").get("pssBytes").isNull(), unknown.toString());
    assertEquals(6 + 3 + 2, unknown.get("now").get("processes").intValue(), "counter's two trees, three shims, the daemon's two: " + unknown);
    assertEquals(2 + 1, unknown.get("direct").get("processes").intValue(), unknown.toString());
    assertTrue(unknown.get("now").get("pssBytes").isNumber(), "what runs now is still known: " + unknown);
    assertEquals(List.of("what 1 session of echo would take directly: no backend of echo has been read since the daemon started"),
        List.of(unknown.get("missing").get(0).stringValue()), unknown.toString());
  }

  /**
   * What cannot be read is counted and named, and leaves the totals it enters unknown: a shim that
   * named no process, a daemon process and a backend's child that live but cannot be read, a
   * backend whose process is not up. A child that ended while the tree was read counts nothing.
   */
  @Test
  void whatCannotBeReadIsCountedNamedAndLeavesTheTotalsUnknown() {
    FakeProcesses machine = machine();
    machine.children.put(102L, List.of(103L, 104L, 105L));
    machine.unreadable.add(104L);
    // 105 ended while the tree was read: neither readable nor alive.
    List<EntrySnapshot> pool = List.of(backend("echo", 100, 2, Placement.SHARED), backend("counter", 0, 1, Placement.DEDICATED));
    JsonNode json = Backends.json(pool, 0, processes(List.of(500L, 93_000_000L),
        List.of(client("echo", true, 400), client("echo", true, 0)), 2), machine, new ServerFigures());
    JsonNode echo = json.get("backends").get(0);
    assertEquals(5, echo.get("processes").intValue(), "four read, one unread, the one that ended not counted: " + echo);
    assertTrue(echo.get("pssBytes").isNull(), echo.toString());
    assertTrue(json.get("backends").get(1).get("pssBytes").isNull(), json.toString());
    JsonNode cost = json.get("cost");
    assertEquals(readTree("{\"processes\":6,\"pssBytes\":34700,\"rssBytes\":63600,\"unread\":2}"),
        cost.get("now").get("backends").toString(), "echo's five and counter's one to come: " + cost);
    assertEquals(readTree("{\"processes\":2,\"pssBytes\":1000,\"rssBytes\":20000,\"unread\":1}"), cost.get("now").get("shims").toString());
    assertEquals(readTree("{\"processes\":2,\"pssBytes\":60000,\"rssBytes\":100000,\"unread\":1}"), cost.get("now").get("daemon").toString());
    assertEquals(10, cost.get("now").get("processes").intValue(), cost.toString());
    assertTrue(cost.get("now").get("pssBytes").isNull(), "no total when a part is missing: " + cost);
    assertTrue(cost.get("now").get("rssBytes").isNull(), cost.toString());
    assertTrue(cost.get("direct").get("pssBytes").isNull(), "neither server was read in full: " + cost);
    assertTrue(cost.get("saved").get("pssBytes").isNull(), cost.toString());
    assertEquals(List.of(
        "the memory of 1 process of the backend of echo (pid 100) could not be read",
        "the memory of the backend of counter: its process is not up",
        "the memory of 1 shim: it named no live process of this user (a shim older than the daemon names none)",
        "the memory of 1 daemon process could not be read",
        "what 1 session of counter would take directly: no backend of counter has been read since the daemon started",
        "what 2 sessions of echo would take directly: no backend of echo has been read since the daemon started"),
        texts(cost.get("missing")), cost.toString());
  }

  private static List<String> texts(JsonNode array) {
    List<String> out = new java.util.ArrayList<>();
    array.forEach(n -> out.add(n.stringValue()));
    return out;
  }

  /** {@code json} as the API writes it: compared as text, so an int and a long of one value are equal. */
  private static String readTree(String json) {
    return tools.jackson.databind.json.JsonMapper.builder().build().readTree(json).toString();
  }

  @Test
  void aDrainListsItsErrors() {
    JsonNode json = Backends.drained(new DrainResult(2, 1, List.of("echo: closing failed")));
    assertEquals(2, json.get("drained").intValue());
    assertEquals(1, json.get("forced").intValue());
    assertEquals(1, json.get("errors").size(), json.toString());
    assertEquals("echo: closing failed", json.get("errors").get(0).stringValue());
  }
}
