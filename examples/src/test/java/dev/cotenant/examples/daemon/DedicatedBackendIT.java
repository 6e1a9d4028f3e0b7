package dev.cotenant.examples.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.testkit.process.ChecksProcessLeaks;
import dev.cotenant.testkit.process.Processes;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * A dedicated backend ends with its session: nothing else can use it (its pool key holds the
 * session), so it does not wait for the shared backends' idle grace. The real daemon, real shims,
 * the SDK sample echo server (dedicated: no records say it may share). The time each took is
 * printed for docs/performance.md; the test asserts the processes are gone, not how fast. A
 * process counts as gone once it has exited ({@link Processes#running}): bubblewrap's inner
 * process outlives its parent by a moment and is left a zombie for the machine's init to
 * collect, which in a container may take a second; a zombie runs nothing and holds no memory.
 */
@ChecksProcessLeaks(waitMillis = 60_000)
class DedicatedBackendIT {
  @Test
  void eachDedicatedBackendIsGoneOnceItsSessionEndsWhileTheDaemonRuns() throws Exception {
    try (DaemonFixture f = new DaemonFixture()) {
      Process daemon = f.serve();
      List<RawShim> shims = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        RawShim s = new RawShim(f, "echo");
        s.initialize();
        shims.add(s);
      }
      List<Long> pids = new ArrayList<>();
      for (JsonNode b : DaemonFixture.JSON.readTree(f.run("status", "--json").out()).path("backends")) {
        assertEquals("dedicated", b.path("placement").asString(), b.toString());
        pids.add(b.path("pid").asLong());
      }
      assertEquals(3, pids.size(), pids.toString());
      // Each backend's process and everything under it (bubblewrap's pid namespace, the server).
      java.util.Map<Long, List<ProcessHandle>> trees = new java.util.HashMap<>();
      for (long pid : pids) {
        ProcessHandle root = ProcessHandle.of(pid).orElseThrow();
        List<ProcessHandle> tree = new ArrayList<>(root.descendants().toList());
        tree.add(root);
        trees.put(pid, tree);
      }
      List<Long> tookMillis = new ArrayList<>();
      for (int i = 0; i < shims.size(); i++) {
        RawShim s = shims.get(i);
        long t0 = System.nanoTime();
        s.in.close();
        // Which backend was this session's is not known here: the one whose processes end.
        long deadline = t0 + TimeUnit.SECONDS.toNanos(30);
        Long gone = null;
        while (gone == null && System.nanoTime() < deadline) {
          for (java.util.Map.Entry<Long, List<ProcessHandle>> e : trees.entrySet()) {
            if (e.getValue().stream().noneMatch(Processes::running)) {
              gone = e.getKey();
            }
          }
          Thread.sleep(10);
        }
        tookMillis.add(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0));
        assertTrue(gone != null, "a backend ended with session " + i);
        trees.remove(gone);
        assertTrue(s.process.waitFor(30, TimeUnit.SECONDS));
        assertEquals(0, s.process.exitValue(), s.err.getNow(""));
        int left = DaemonFixture.JSON.readTree(f.run("status", "--json").out()).path("backends").size();
        assertEquals(shims.size() - i - 1, left, "one backend fewer after each session");
        for (List<ProcessHandle> other : trees.values()) {
          assertTrue(other.stream().anyMatch(Processes::running), "the other sessions' backends still run");
        }
      }
      assertTrue(daemon.isAlive());
      System.out.println("dedicated backends gone " + tookMillis + " ms after their client closed its input");
    }
  }
}
