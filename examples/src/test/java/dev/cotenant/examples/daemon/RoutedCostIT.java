package dev.cotenant.examples.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.cotenant.testkit.process.ChecksProcessLeaks;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpSchema;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * What {@code GET /api/backends} says routing takes, against {@code /proc} read here: a real
 * daemon ({@code cotenant serve} from the packaged jar), real clients through real JVM shims on
 * the sample servers (echo forced shared by two sessions, counter on a backend of its own for each
 * of its two sessions) and one shim whose client has sent nothing yet. The test walks
 * {@code /proc} itself, finds every process on the routed side (the daemon's process tree, which
 * holds its watchdog and every backend with its bubblewrap pair, and every shim of this home) and
 * sums their {@code Pss}; the API's routed total must agree within 5 %, and count the same
 * processes.
 */
@ChecksProcessLeaks(waitMillis = 60_000)
class RoutedCostIT {
  /** How far the API's routed total may be from the sum read here. */
  private static final double AGREEMENT = 0.05;
  /** How much the memory of the routed side may move while one sample is taken, for the sample to count. */
  private static final double STILL = 0.01;

  /** One process of {@code /proc}: its parent and its command line. */
  private record Proc(long pid, long ppid, String cmdline) {}

  /** Every process of {@code /proc} now, by pid. */
  private static Map<Long, Proc> readProcesses() throws IOException {
    Map<Long, Proc> out = new HashMap<>();
    try (DirectoryStream<Path> dirs = Files.newDirectoryStream(Path.of("/proc"), p -> p.getFileName().toString().matches("\\d+"))) {
      for (Path d : dirs) {
        try {
          String stat = Files.readString(d.resolve("stat"));
          // pid (comm) state ppid ...: comm may hold spaces and parentheses; the last ')' ends it.
          String[] after = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
          String cmdline = Files.readString(d.resolve("cmdline")).replace('\0', ' ');
          long pid = Long.parseLong(d.getFileName().toString());
          out.put(pid, new Proc(pid, Long.parseLong(after[1]), cmdline));
        } catch (IOException gone) {
          // It ended while /proc was read.
        }
      }
    }
    return out;
  }

  /** {@code root} and every descendant of it among {@code all}. */
  private static Set<Long> tree(long root, Map<Long, Proc> all) {
    Map<Long, List<Long>> children = new HashMap<>();
    all.values().forEach(p -> children.computeIfAbsent(p.ppid(), k -> new ArrayList<>()).add(p.pid()));
    Set<Long> out = new TreeSet<>();
    Deque<Long> next = new ArrayDeque<>(List.of(root));
    while (!next.isEmpty()) {
      long p = next.poll();
      if (out.add(p)) {
        next.addAll(children.getOrDefault(p, List.of()));
      }
    }
    return out;
  }

  /** The shims of {@code home}: {@code cotenant connect} processes whose environment names it. */
  private static Set<Long> shimsOf(Path home, Map<Long, Proc> all) {
    Set<Long> out = new TreeSet<>();
    byte[] mark = ("COTENANT_HOME=" + home + "\0").getBytes(StandardCharsets.UTF_8);
    for (Proc p : all.values()) {
      if (!p.cmdline().contains(DaemonFixture.JAR.toString()) || !p.cmdline().contains(" connect ")) {
        continue;
      }
      try {
        byte[] env = Files.readAllBytes(Path.of("/proc", Long.toString(p.pid()), "environ"));
        if (new String(env, StandardCharsets.ISO_8859_1).contains(new String(mark, StandardCharsets.ISO_8859_1))) {
          out.add(p.pid());
        }
      } catch (IOException gone) {
        // It ended.
      }
    }
    return out;
  }

  /** {@code Pss} of one process from its {@code smaps_rollup}, in bytes; -1 when it ended meanwhile. */
  private static long pssOf(long pid) throws IOException {
    List<String> lines;
    try {
      lines = Files.readAllLines(Path.of("/proc", Long.toString(pid), "smaps_rollup"));
    } catch (IOException e) {
      if (!Files.exists(Path.of("/proc", Long.toString(pid)))) {
        return -1;
      }
      throw e;
    }
    for (String line : lines) {
      if (line.startsWith("Pss:")) {
        String[] parts = line.substring(4).trim().split("\\s+");
        assertEquals("kB", parts[1], line);
        return Long.parseLong(parts[0]) * 1024;
      }
    }
    throw new AssertionError("no Pss line for " + pid);
  }

  /** The routed side as read here at one moment: the daemon's tree and the shims, each part's Pss. */
  private record Routed(Set<Long> daemonTree, Set<Long> shims, long daemonTreePss, long shimsPss, boolean whole) {
    long pss() {
      return daemonTreePss + shimsPss;
    }

    int processes() {
      return daemonTree.size() + shims.size();
    }

    static Routed read(long daemonPid, Path home) throws IOException {
      Map<Long, Proc> all = readProcesses();
      Set<Long> daemonTree = tree(daemonPid, all);
      Set<Long> shims = shimsOf(home, all);
      boolean whole = true;
      long d = 0;
      for (long pid : daemonTree) {
        long p = pssOf(pid);
        whole &= p >= 0;
        d += Math.max(0, p);
      }
      long s = 0;
      for (long pid : shims) {
        long p = pssOf(pid);
        whole &= p >= 0;
        s += Math.max(0, p);
      }
      return new Routed(daemonTree, shims, d, s, whole);
    }
  }

  private static JsonNode backends(DaemonFixture f) throws Exception {
    int port = f.state().orElseThrow().path("port").asInt();
    HttpResponse<String> r = HttpClient.newHttpClient().send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/api/backends")).timeout(DaemonFixture.BOUND)
            .header("Authorization", "Bearer " + f.token()).build(),
        HttpResponse.BodyHandlers.ofString());
    assertEquals(200, r.statusCode(), r.body());
    return DaemonFixture.JSON.readTree(r.body());
  }

  private static String mib(double bytes) {
    return String.format(Locale.ROOT, "%.1f MiB", bytes / (1024 * 1024));
  }

  private static String call(McpSyncClient c, String tool, Map<String, Object> args) {
    return DaemonFixture.text(c.callTool(new McpSchema.CallToolRequest(tool, args)));
  }

  @Test
  void theApisRoutedTotalIsThePssOfEveryProcessOfTheDaemonItsBackendsAndEveryShim(@TempDir Path dir) throws Exception {
    Path config = DaemonFixture.configCopy(dir);
    try (DaemonFixture f = new DaemonFixture(config)) {
      f.serve("--set", "cotenant.sharing.forced=echo");
      long daemonPid = f.state().orElseThrow().path("pid").asLong();
      long watchdogPid = f.state().orElseThrow().path("watchdog_pid").asLong();
      List<McpSyncClient> echo = List.of(f.stdioClient("echo", "cost-echo-1"), f.stdioClient("echo", "cost-echo-2"));
      List<McpSyncClient> counter = List.of(f.stdioClient("counter", "cost-counter-1"), f.stdioClient("counter", "cost-counter-2"));
      for (McpSyncClient c : echo) {
        assertTrue(call(c, "echo", Map.of("text", "hello")).contains("hello"));
      }
      for (McpSyncClient c : counter) {
        assertTrue(call(c, "next", Map.of()).contains("calls="));
      }
      // A client whose shim said hello but which has sent nothing yet: no backend holds its session.
      RawShim waiting = new RawShim(f, DaemonFixture.shimCommand("echo", config));

      // Every session is where it should be: echo shared by two, counter on one backend each, five shims.
      long deadline = System.nanoTime() + DaemonFixture.BOUND.toNanos();
      JsonNode answer = backends(f);
      while (answer.path("cost").path("now").path("shims").path("processes").asInt() != 5
          || answer.path("totals").path("backends").asInt() != 3 || answer.path("totals").path("sessions").asInt() != 4) {
        if (System.nanoTime() > deadline) {
          fail("the daemon did not come to 3 backends, 4 attached sessions and 5 shims: " + answer);
        }
        Thread.sleep(100);
        answer = backends(f);
      }

      // Samples until one is taken while the routed side's memory holds still (within 1 % from the
      // read before the API's answer to the read after it); then the API must agree within 5 %.
      Routed before;
      Routed after;
      int samples = 0;
      deadline = System.nanoTime() + DaemonFixture.BOUND.toNanos();
      while (true) {
        samples++;
        before = Routed.read(daemonPid, f.home());
        answer = backends(f);
        after = Routed.read(daemonPid, f.home());
        boolean still = before.whole() && after.whole() && before.daemonTree().equals(after.daemonTree()) && before.shims().equals(after.shims())
            && Math.abs(before.pss() - after.pss()) <= STILL * before.pss();
        if (still) {
          break;
        }
        if (System.nanoTime() > deadline) {
          fail("the routed side's memory never held still for one sample in " + samples + ": " + mib(before.pss())
              + " then " + mib(after.pss()));
        }
        Thread.sleep(100);
      }
      JsonNode cost = answer.path("cost");
      JsonNode now = cost.path("now");
      assertTrue(before.daemonTree().contains(watchdogPid), "the watchdog is the daemon's child: " + before);
      assertEquals(5, before.shims().size(), "five shims of this home: " + before);
      assertEquals(0, cost.path("missing").size(), "every process was read: " + cost);

      // The same processes: the daemon's tree is its JVM, its watchdog and every backend's tree.
      assertEquals(before.processes(), now.path("processes").asInt(), "the processes /proc holds: " + before + " vs " + cost);
      assertEquals(before.daemonTree().size(), now.path("backends").path("processes").asInt()
          + now.path("daemon").path("processes").asInt(), cost.toString());
      assertEquals(2, now.path("daemon").path("processes").asInt(), "the JVM and its watchdog: " + cost);
      assertEquals(before.shims().size(), now.path("shims").path("processes").asInt(), cost.toString());
      long backendTrees = 0;
      for (JsonNode b : answer.path("backends")) {
        backendTrees += b.path("processes").asLong();
        Set<Long> own = tree(b.path("pid").asLong(), readProcesses());
        assertEquals(own.size(), b.path("processes").asInt(), "every process of " + b.path("server") + "'s tree: " + own);
      }
      assertEquals(now.path("backends").path("processes").asLong(), backendTrees, cost.toString());

      // The same memory, within 5 %.
      double proc = (before.pss() + after.pss()) / 2.0;
      long api = now.path("pssBytes").asLong();
      double off = (api - proc) / proc;
      System.out.printf(Locale.ROOT, "routed side: the API says %s (%d processes), /proc read here %s (%s before, %s after"
          + " the API's answer; %d processes): %+.2f %%, after %d sample(s)%n", mib(api), now.path("processes").asInt(),
          mib(proc), mib(before.pss()), mib(after.pss()), before.processes(), off * 100, samples);
      assertTrue(Math.abs(off) <= AGREEMENT, "the API's routed total " + mib(api) + " is within 5 % of /proc's " + mib(proc)
          + ": " + String.format(Locale.ROOT, "%+.2f %%", off * 100) + "; " + cost);
      double shimsProc = (before.shimsPss() + after.shimsPss()) / 2.0;
      assertTrue(Math.abs(now.path("shims").path("pssBytes").asLong() - shimsProc) <= AGREEMENT * shimsProc,
          "the shims: " + mib(now.path("shims").path("pssBytes").asLong()) + " vs " + mib(shimsProc));
      double treeProc = (before.daemonTreePss() + after.daemonTreePss()) / 2.0;
      long treeApi = now.path("backends").path("pssBytes").asLong() + now.path("daemon").path("pssBytes").asLong();
      assertTrue(Math.abs(treeApi - treeProc) <= AGREEMENT * treeProc, "the daemon and its backends: " + mib(treeApi) + " vs "
          + mib(treeProc));

      // Directly: echo's three sessions (one not attached yet) and counter's two, each a copy of its server.
      Map<String, JsonNode> direct = new HashMap<>();
      cost.path("direct").path("servers").forEach(s -> direct.put(s.path("server").asString(), s));
      assertEquals(3, direct.get("echo").path("sessions").asInt(), cost.toString());
      assertEquals(1, direct.get("echo").path("unattached").asInt(), cost.toString());
      assertEquals("now", direct.get("echo").path("figures").asString(), cost.toString());
      assertEquals(2, direct.get("counter").path("copies").asInt(), "counter's two dedicated backends: " + cost);
      for (JsonNode s : direct.values()) {
        assertEquals(s.path("sessions").asLong() * s.path("ussBytesEach").asLong() + s.path("sharedPssBytes").asLong(),
            s.path("pssBytes").asLong(), "sessions x Uss + the shared part once: " + s);
      }
      assertEquals(direct.get("echo").path("pssBytes").asLong() + direct.get("counter").path("pssBytes").asLong(),
          cost.path("direct").path("pssBytes").asLong(), cost.toString());
      assertEquals(cost.path("direct").path("pssBytes").asLong() - api, cost.path("saved").path("pssBytes").asLong());
      for (String name : List.of("echo", "counter")) {
        JsonNode s = direct.get(name);
        System.out.printf(Locale.ROOT, "directly, %s: %d sessions x %s of its own + %s shared once = %s (in Rss, %s)%n", name,
            s.path("sessions").asInt(), mib(s.path("ussBytesEach").asLong()), mib(s.path("sharedPssBytes").asLong()),
            mib(s.path("pssBytes").asLong()), mib(s.path("rssBytes").asLong()));
      }
      System.out.printf(Locale.ROOT, "directly: %s in all; routing saves %s (in Rss: %s now, %s directly, saves %s)%n",
          mib(cost.path("direct").path("pssBytes").asLong()), mib(cost.path("saved").path("pssBytes").asLong()),
          mib(now.path("rssBytes").asLong()), mib(cost.path("direct").path("rssBytes").asLong()),
          mib(cost.path("saved").path("rssBytes").asLong()));
      waiting.in.close();
    }
  }
}
