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
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * The API's view of the pool's accounting, without a daemon: the memory of a process tree read
 * from {@code /proc} (two {@code sleep} processes, whose resident memory does not move), the
 * uptime and the drain's errors. Mutants of {@link Backends}: {@code rssBytes}' unit conversion
 * (its condition negated or at another bound, the multiplication as a division),
 * {@code treeRssBytes} adding nothing for the descendants, {@code json}'s uptime condition
 * negated or computed with an addition, and {@code drained} without its errors.
 */
@ChecksProcessLeaks(waitMillis = 20_000)
class BackendsTest {
  /** VmRSS of {@code pid} in bytes, read here independently of {@link Backends}. */
  private static long vmRss(long pid) throws Exception {
    for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
      if (line.startsWith("VmRSS:")) {
        String[] parts = line.substring(6).trim().split("\\s+");
        assertEquals("kB", parts[1], line);
        return Long.parseLong(parts[0]) * 1024;
      }
    }
    throw new AssertionError("no VmRSS for " + pid);
  }

  /** Waits until {@code pid} sleeps and its VmRSS reads the same twice, 50 ms apart. */
  private static void awaitSettled(long pid, long deadline) throws Exception {
    long last = -1;
    while (true) {
      String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
      char state = stat.charAt(stat.lastIndexOf(')') + 2);
      long now = vmRss(pid);
      if (state == 'S' && now == last) {
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
  void theMemoryOfAProcessTreeIsEachProcessesVmRssInBytes() throws Exception {
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
      // Each has loaded what it needs and sleeps: its memory no longer moves.
      awaitSettled(parent.pid(), deadline);
      awaitSettled(child, deadline);
      long own = vmRss(parent.pid());
      assertTrue(own > 64 * 1024, "a process takes more than 64 KiB: " + own);
      assertEquals(OptionalLong.of(own), Backends.rssBytes(parent.pid()));
      assertEquals(OptionalLong.of(own + vmRss(child)), Backends.treeRssBytes(parent.pid()));
    } finally {
      parent.toHandle().descendants().forEach(ProcessHandle::destroyForcibly);
      parent.destroyForcibly();
      parent.waitFor();
    }
    assertEquals(OptionalLong.empty(), Backends.treeRssBytes(parent.pid()), "a process that is gone has none");
  }

  @Test
  void uptimeIsMeasuredFromTheStartAndAbsentWithoutOne() {
    EntrySnapshot started = new EntrySnapshot("c0123456789abcdef0123", "echo", EntryState.ACTIVE, 1, 2,
        OptionalLong.empty(), 3, 0, OptionalLong.of(10_000), Placement.SHARED, false, "its verdict (declared) recommends sharing");
    EntrySnapshot spawning = new EntrySnapshot("d0123456789abcdef0123", "echo", EntryState.SPAWNING, 1, 1,
        OptionalLong.empty(), 0, 0, OptionalLong.empty(), Placement.DEDICATED, false);
    JsonNode json = Backends.json(List.of(started, spawning), 12_500);
    assertEquals(2_500, json.get("backends").get(0).get("uptimeMs").longValue());
    assertEquals("its verdict (declared) recommends sharing", json.get("backends").get(0).get("reason").stringValue());
    assertTrue(json.get("backends").get(1).get("uptimeMs").isNull(), json.toString());
    assertEquals("c0123456789abcde", json.get("backends").get(0).get("key").stringValue());
    assertEquals(3, json.get("totals").get("unsharedProcesses").intValue(), "a process per session: " + json);
  }

  /** Process ids no process has (above Linux's largest pid), whose memory the test makes up. */
  private static final long SHARED = 90_000_001;
  private static final long DEDICATED = 90_000_002;

  private static EntrySnapshot backend(long pid, int sessions, Placement placement) {
    return new EntrySnapshot("c" + pid + "0123456789abcdef", "echo", EntryState.ACTIVE, 1, sessions, OptionalLong.of(pid), 0, 0,
        OptionalLong.of(0), placement, false, "why");
  }

  private static DaemonProcesses processes(List<Long> daemon, List<OptionalLong> shims) {
    return new DaemonProcesses() {
      @Override
      public List<Long> daemon() {
        return daemon;
      }

      @Override
      public List<OptionalLong> shims() {
        return shims;
      }
    };
  }

  @Test
  void theCostCountsTheBackendsTheShimsAndTheDaemonAgainstAProcessPerSessionRunDirectly() {
    java.util.Map<Long, Long> memory = java.util.Map.of(SHARED, 100L, DEDICATED, 50L, 91_000_001L, 30L, 91_000_002L, 30L,
        91_000_003L, 30L, 92_000_001L, 200L, 92_000_002L, 5L);
    java.util.function.LongFunction<OptionalLong> rss =
        pid -> memory.containsKey(pid) ? OptionalLong.of(memory.get(pid)) : OptionalLong.empty();
    JsonNode json = Backends.json(List.of(backend(SHARED, 2, Placement.SHARED), backend(DEDICATED, 1, Placement.DEDICATED)),
        0, processes(List.of(92_000_001L, 92_000_002L),
            List.of(OptionalLong.of(91_000_001L), OptionalLong.of(91_000_002L), OptionalLong.of(91_000_003L))), rss);
    JsonNode cost = json.get("cost");
    assertEquals(readTree("{\"processes\":7,\"rssBytes\":445,"
        + "\"backends\":{\"processes\":2,\"rssBytes\":150,\"unread\":0},"
        + "\"shims\":{\"processes\":3,\"rssBytes\":90,\"unread\":0},"
        + "\"daemon\":{\"processes\":2,\"rssBytes\":205,\"unread\":0}}"), cost.get("now").toString(), cost.toString());
    assertEquals(readTree("{\"processes\":3,\"rssBytes\":250}"), cost.get("direct").toString(), "a process per session, each the size of its backend");
    assertEquals(readTree("{\"processes\":-4,\"rssBytes\":-195}"), cost.get("saved").toString(), "sharing costs more here, and says so");
    assertEquals(0, cost.get("missing").size(), cost.toString());
    assertEquals(3, json.get("totals").get("unsharedProcesses").intValue(), "the backends' totals are unchanged");

    // A shim that named no process, a daemon process whose memory cannot be read: counted, named, and no total.
    JsonNode partial = Backends.json(List.of(backend(SHARED, 2, Placement.SHARED)), 0,
        processes(List.of(92_000_001L, 93_000_000L), List.of(OptionalLong.of(91_000_001L), OptionalLong.empty())), rss).get("cost");
    assertEquals(5, partial.get("now").get("processes").intValue(), partial.toString());
    assertTrue(partial.get("now").get("rssBytes").isNull(), "no total when a part is missing: " + partial);
    assertEquals(readTree("{\"processes\":2,\"rssBytes\":30,\"unread\":1}"), partial.get("now").get("shims").toString());
    assertEquals(readTree("{\"processes\":2,\"rssBytes\":200,\"unread\":1}"), partial.get("now").get("daemon").toString());
    assertEquals(200, partial.get("direct").get("rssBytes").intValue(), "what is known directly is still said");
    assertTrue(partial.get("saved").get("rssBytes").isNull(), partial.toString());
    assertEquals(-3, partial.get("saved").get("processes").intValue());
    assertEquals(2, partial.get("missing").size(), partial.toString());
    assertTrue(partial.get("missing").get(0).stringValue().startsWith("the memory of 1 shim: it named no live process"),
        partial.toString());
    assertEquals("the memory of 1 daemon process could not be read", partial.get("missing").get(1).stringValue());
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
