package dev.cotenant.benchmarks;

import dev.cotenant.api.ServerDescription;
import dev.cotenant.gateway.config.ConfiguredServer;
import dev.cotenant.gateway.config.McpConfigReader;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import tools.jackson.databind.JsonNode;

/**
 * Harness main: how long a client waits from starting its server command to the answer of its
 * {@code initialize}, when that command is {@code cotenant connect NAME} and the daemon's shared
 * backend of NAME is already up (the client is a second client), against starting the server
 * itself. Servers: the {@code echo} sample (a JVM with the MCP Java SDK) and
 * {@code server-everything} (Node.js), both of {@code examples/mcp.json}.
 *
 * <p>One daemon ({@code cotenant serve --no-http --set cotenant.sharing.forced=echo,server-everything
 * examples/mcp.json}) in a home of its own; a first client holds one initialized shim of each
 * server open for the whole run, so each shared backend is up. Then {@code runs} rounds (10 by
 * default), each timing in turn: a shim of {@code echo}, {@code echo} started directly, a shim of
 * {@code server-everything}, {@code server-everything} started directly. Each is timed from just
 * before the process is started to the moment its {@code initialize} answer is read (the request
 * is written right after the start, as a client does), then its input is closed and it must exit.
 * One untimed round first warms the page cache. In the first timed round, {@code cotenant status}
 * must show the shim's session on the shared backend, next to the first client's.
 *
 * <p>Then, with only the two first clients' shims left, the footprint of one idle shim
 * ({@code Pss} and {@code Rss} of {@code /proc/<pid>/smaps_rollup}) is read.
 *
 * <p>Usage, from the repository root after {@code mvn -B -o -q -DskipTests package}:
 * {@code java -cp benchmarks/target/benchmarks.jar dev.cotenant.benchmarks.ShimStartup [runs]}.
 */
public final class ShimStartup {
  static final Duration BOUND = Duration.ofSeconds(90);
  static final List<String> SERVERS = List.of("echo", "server-everything");

  private ShimStartup() {}

  /** Entry point. */
  public static void main(String[] args) throws Exception {
    int runs = args.length > 0 ? Integer.parseInt(args[0]) : 10;
    CotenantJar cotenant = CotenantJar.locate();
    Path root = cotenant.repositoryRoot();
    Path config = root.resolve("examples/mcp.json");
    Map<String, ServerDescription> servers = new LinkedHashMap<>();
    for (ConfiguredServer s : new McpConfigReader().readFile(config)) {
      if (SERVERS.contains(s.description().name())) {
        servers.put(s.description().name(), s.description());
      }
    }
    System.out.printf(Locale.ROOT, "cores=%d java=%s runs=%d protocolVersion=%s%n",
        Runtime.getRuntime().availableProcessors(), System.getProperty("java.version"), runs, StdioPeer.PROTOCOL_VERSION);
    System.out.println("load at start: " + ProcStats.loadAverage());

    Path home = DaemonProcess.newHome("ctss");
    List<StdioPeer> firsts = new ArrayList<>();
    try (DaemonProcess daemon = DaemonProcess.start(cotenant, home, root, List.of("--no-http", "--set",
        "cotenant.sharing.forced=" + String.join(",", SERVERS), config.toString()))) {
      for (String name : SERVERS) {
        StdioPeer first = shim(cotenant, home, root, config, name);
        firsts.add(first);
        first.initialize("first-client", StdioPeer.PROTOCOL_VERSION, BOUND);
      }
      Map<String, long[]> times = new LinkedHashMap<>();
      for (String name : SERVERS) {
        times.put("connect " + name, new long[runs]);
        times.put(name + " directly", new long[runs]);
      }
      for (int run = -1; run < runs; run++) {
        for (String name : SERVERS) {
          long shimNs = timed(shim(cotenant, home, root, config, name), run == 0 ? daemon : null, name);
          long directNs = timed(DaemonFootprint.startDirect(servers.get(name), config), null, name);
          if (run >= 0) {
            times.get("connect " + name)[run] = shimNs;
            times.get(name + " directly")[run] = directNs;
          }
        }
        System.out.println((run < 0 ? "warm-up round" : "round " + (run + 1)) + " done, load " + ProcStats.loadAverage());
      }

      System.out.printf(Locale.ROOT, "%nfrom process start to the initialize answer, %d runs each (ms)%n", runs);
      System.out.printf(Locale.ROOT, "  %-28s %8s %8s %8s   %s%n", "", "median", "min", "max", "all");
      times.forEach((label, ns) -> {
        long[] sorted = ns.clone();
        Arrays.sort(sorted);
        StringBuilder all = new StringBuilder();
        for (long t : ns) {
          all.append(all.length() == 0 ? "" : " ").append(String.format(Locale.ROOT, "%.0f", t / 1e6));
        }
        System.out.printf(Locale.ROOT, "  %-28s %8.0f %8.0f %8.0f   %s%n", label, median(sorted) / 1e6, sorted[0] / 1e6,
            sorted[sorted.length - 1] / 1e6, all);
      });

      TimeUnit.SECONDS.sleep(3);
      System.out.println("\none idle shim (a first client, initialized, no call since), MiB:");
      for (StdioPeer f : firsts) {
        ProcStats.Memory m = ProcStats.memory(ProcStats.tree(f.pid()));
        System.out.printf(Locale.ROOT, "  %-28s Pss %.1f  Rss %.1f  (%d process)%n", f.label, m.pssMib(), m.rssMib(),
            m.processes());
      }
      ProcStats.Memory d = ProcStats.memory(daemon.pid());
      System.out.printf(Locale.ROOT, "  %-28s Pss %.1f  Rss %.1f%n", "the daemon", d.pssMib(), d.rssMib());
      daemon.stopAfterPeersExitZero(firsts, BOUND);
      System.out.println("daemon stopped (exit 0), every process it started gone; load at end: " + ProcStats.loadAverage());
    } finally {
      StdioPeer.closeAll(firsts, Duration.ofSeconds(5));
      DaemonProcess.deleteTree(home);
      for (String name : SERVERS) {
        java.nio.file.Files.deleteIfExists(DaemonFootprint.errFile(name));
      }
    }
  }

  private static StdioPeer shim(CotenantJar cotenant, Path home, Path root, Path config, String name) throws Exception {
    return StdioPeer.start("connect " + name, cotenant.shim(name, config), root, DaemonProcess.env(home),
        ProcessBuilder.Redirect.appendTo(home.resolve("shims.err").toFile()));
  }

  /**
   * The time from just before {@code peer}'s process was started to its {@code initialize} answer;
   * then, when {@code checkShared} is given, checks that its session is on the shared backend of
   * {@code name}, and finally closes its input and waits for it to exit.
   */
  private static long timed(StdioPeer peer, DaemonProcess checkShared, String name) throws Exception {
    peer.initialize("second-client", StdioPeer.PROTOCOL_VERSION, BOUND);
    long ns = System.nanoTime() - peer.startedNanos;
    if (checkShared != null) {
      JsonNode status = checkShared.status();
      boolean shared = false;
      for (JsonNode b : status.path("backends")) {
        if (name.equals(b.path("server").asString()) && "shared".equals(b.path("placement").asString())
            && b.path("sessions").asInt() == 2) {
          shared = true;
        }
      }
      if (!shared || status.path("backends").size() != SERVERS.size()) {
        throw new IllegalStateException("the second client of " + name + " is not on the shared backend: "
            + status.path("backends"));
      }
    }
    if (!peer.closeAndAwait(Duration.ofSeconds(30))) {
      throw new IllegalStateException(peer.label + " did not exit when its input closed: killed");
    }
    return ns;
  }

  private static long median(long[] sorted) {
    int n = sorted.length;
    return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  }
}
