package dev.cotenant.benchmarks;

import dev.cotenant.api.ServerDescription;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import tools.jackson.databind.JsonNode;

/**
 * Harness main: what the daemon itself costs while it serves {@code clients} × 6 sessions (5 × 6 =
 * 30 by default), and where that memory goes.
 *
 * <p>The six npm servers of {@link RoutedFootprint}, in a new Cotenant home: {@code cotenant share
 * NAME CONFIG} for each (three end shared, three refuted), then {@code cotenant route CONFIG
 * --apply --all}, which routes every server, those that will not share too. Then each client
 * starts each entry exactly as the routed file says (the native shim where the jar holds one; the
 * first shim starts the daemon, as for a user), initializes it and asks for {@code tools/list}:
 * 30 sessions, on 3 shared backends (5 sessions each) and 15 dedicated ones.
 *
 * <p>3 s later it reads the daemon's {@code Pss} and {@code Rss} ({@code smaps_rollup}) and
 * breaks them down ({@link JvmMemoryMap}): file-backed memory by file, anonymous memory by what
 * the JVM reserved it for, the C library's {@code malloc}; its threads by name. It also reads the
 * backends' processes by program (bubblewrap, node). Then every client closes its input, the
 * daemon is stopped with {@code cotenant stop}, and the run fails if the daemon or anything below
 * it is left.
 *
 * <p>This runs twice unless told otherwise: {@code plain}, the daemon as a user gets it (the
 * figure that counts), and {@code nmt}, the same with {@code JAVA_TOOL_OPTIONS=
 * -XX:NativeMemoryTracking=detail} in the clients' environment (the shim's starter passes its
 * environment on to the daemon), whose anonymous memory is then split by NMT's ranges: the young
 * and the old generation, metaspace, the class space, the code cache, thread stacks. NMT costs
 * memory of its own (its category in the output), so the plain figure is the one to quote.
 *
 * <p>To compare JVM options without building again, a third argument gives the options of a
 * daemon the harness starts itself ({@code java OPTIONS -cp cotenant.jar dev.cotenant.cli.Main
 * serve}, in the home, before the first client), which the shims then find running; a word of
 * the form {@code NAME=VALUE} is put in its environment instead ({@code "MALLOC_ARENA_MAX=2
 * -Xmn4m"}).
 *
 * <p>Usage, from the repository root after {@code mvn -B -o -q -DskipTests package}:
 * {@code java -cp benchmarks/target/benchmarks.jar dev.cotenant.benchmarks.DaemonMemory
 * [clients] [plain|nmt|both] [daemon options]} (defaults 5, both, and none: the first shim starts
 * the daemon).
 */
public final class DaemonMemory {
  private DaemonMemory() {}

  /** The options that turn NMT on in the daemon a shim starts. */
  static final String NMT_OPTIONS = "-XX:NativeMemoryTracking=detail";

  /** Entry point. */
  public static void main(String[] args) throws Exception {
    int clients = args.length > 0 ? Integer.parseInt(args[0]) : 5;
    String which = args.length > 1 ? args[1] : "both";
    List<String> daemonOptions = args.length > 2 ? List.of(args[2].strip().split("\\s+")) : null;
    if (!List.of("plain", "nmt", "both").contains(which)) {
      throw new IllegalArgumentException("the second argument is plain, nmt or both, not " + which);
    }
    CotenantJar cotenant = CotenantJar.locate();
    Path root = cotenant.repositoryRoot();
    Path work = DaemonProcess.newHome("ctdm");
    try {
      Path config = RoutedFootprint.writeConfig(work, RoutedFootprint.npmServers(root));
      List<ServerDescription> servers = RoutedFootprint.servers(config);
      System.out.printf(Locale.ROOT, "cores=%d java=%s clients=%d servers=%s%n",
          Runtime.getRuntime().availableProcessors(), System.getProperty("java.version"), clients,
          servers.stream().map(ServerDescription::name).toList());
      Path home = Files.createDirectories(work.resolve("h"));
      RoutedFootprint.shareEach(cotenant, home, root, config, servers);
      DaemonProcess.Run route = DaemonProcess.run(cotenant, home, root, Duration.ofMinutes(1), "route",
          config.toString(), "--apply", "--all");
      System.out.println("route --apply --all: exit " + route.code());
      route.out().lines().forEach(l -> System.out.println("  " + l));
      if (route.code() != 0) {
        throw new IllegalStateException("route failed: " + route.err());
      }
      if (!which.equals("nmt")) {
        serve("plain", cotenant, config, home, root, clients, false, daemonOptions);
      }
      if (!which.equals("plain")) {
        serve("nmt", cotenant, config, home, root, clients, true, daemonOptions);
      }
    } finally {
      DaemonProcess.deleteTree(work);
    }
  }

  /** One daemon serving {@code clients} clients of every routed entry, measured, then stopped. */
  private static void serve(String label, CotenantJar cotenant, Path config, Path home, Path root, int clients,
      boolean nmt, List<String> daemonOptions) throws Exception {
    System.out.printf(Locale.ROOT, "%n== %s (load %s)%s%n", label, ProcStats.loadAverage(),
        daemonOptions == null ? "" : "; the daemon started by the harness with " + daemonOptions);
    JsonNode entries = DaemonProcess.JSON.readTree(config.toFile()).path("mcpServers");
    List<StdioPeer> peers = new ArrayList<>();
    Set<Long> counted = new LinkedHashSet<>();
    Set<Long> daemonTree = new LinkedHashSet<>();
    long daemonPid = -1;
    try {
      if (daemonOptions != null) {
        startDaemon(cotenant, home, daemonOptions, nmt);
      }
      long t0 = System.nanoTime();
      for (Map.Entry<String, JsonNode> e : entries.properties()) {
        List<String> command = new ArrayList<>(List.of(e.getValue().path("command").asString()));
        e.getValue().path("args").forEach(a -> command.add(a.asString()));
        if (!command.contains("connect")) {
          throw new IllegalStateException(e.getKey() + " is not routed: " + command);
        }
        Map<String, String> env = DaemonProcess.env(home);
        e.getValue().path("env").properties().forEach(v -> env.put(v.getKey(), v.getValue().asString()));
        if (nmt) {
          env.put("JAVA_TOOL_OPTIONS", NMT_OPTIONS);
        }
        for (int k = 1; k <= clients; k++) {
          StdioPeer p = StdioPeer.start(e.getKey(), command, config.getParent(), env,
              ProcessBuilder.Redirect.appendTo(home.resolve("clients.err").toFile()));
          peers.add(p);
          p.initialize("client-" + k, StdioPeer.PROTOCOL_VERSION, DaemonFootprint.BOUND);
          String tools = p.request("tools/list", "{}", DaemonFootprint.BOUND);
          if (!tools.contains("\"tools\"")) {
            throw new IllegalStateException(e.getKey() + " answered tools/list with " + tools);
          }
        }
      }
      System.out.printf(Locale.ROOT, "%d clients started, initialized and listed tools in %d ms%n", peers.size(),
          TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0));
      for (StdioPeer p : peers) {
        counted.addAll(ProcStats.tree(p.pid()));
      }
      TimeUnit.MILLISECONDS.sleep(DaemonFootprint.SETTLE_MS);
      JsonNode state = DaemonProcess.JSON.readTree(home.resolve("daemon.json").toFile());
      daemonPid = state.path("pid").asLong();
      long watchdog = state.path("watchdog_pid").asLong(-1);
      JvmMemoryMap.Snapshot snapshot = JvmMemoryMap.snapshot(daemonPid);
      daemonTree.addAll(ProcStats.tree(daemonPid));
      Set<Long> below = new LinkedHashSet<>(daemonTree);
      below.remove(daemonPid);
      below.remove(watchdog);
      JsonNode status = DaemonProcess.JSON.readTree(DaemonProcess.run(cotenant, home, root, Duration.ofMinutes(1),
          "status", "--json").out());
      int sessions = 0;
      for (JsonNode b : status.path("backends")) {
        sessions += b.path("sessions").asInt();
      }
      System.out.println("sessions on backends: " + sessions + "; backends by server: "
          + DaemonFootprint.placements(status));
      snapshot.attribute(nmt).print("the daemon (" + label + ")");
      printByProgram("below the daemon (its watchdog excepted), by program:", below);
      if (nmt) {
        System.out.print("  " + JvmMemoryMap.liveHeap(daemonPid, Integer.getInteger("cotenant.heapTop", 12)));
      }
    } finally {
      DaemonFootprint.closeAll(peers, counted, label);
      if (daemonPid > 0) {
        DaemonProcess.Run stop = DaemonProcess.run(cotenant, home, root, Duration.ofMinutes(1), "stop");
        List<Long> left = ProcStats.awaitGone(daemonTree, Duration.ofSeconds(30));
        left.forEach(ProcStats::killTree);
        if (stop.code() != 0 || !left.isEmpty()) {
          throw new IllegalStateException(label + ": stop exited " + stop.code() + " (" + stop.err().strip()
              + "); left alive and killed: " + left);
        }
      }
    }
  }

  /**
   * {@code java OPTIONS -cp cotenant.jar dev.cotenant.cli.Main serve} in {@code home}, as a shim's
   * starter would run it but with {@code options} ({@code NAME=VALUE} words go to its environment);
   * returns once its {@code daemon.json} names it. It is stopped like the other, with {@code cotenant stop}.
   */
  private static void startDaemon(CotenantJar cotenant, Path home, List<String> options, boolean nmt) throws Exception {
    List<String> cmd = new ArrayList<>(List.of(CotenantJar.java()));
    Map<String, String> env = DaemonProcess.env(home);
    env.put("COTENANT_DAEMON_ID", "bench-" + ProcessHandle.current().pid() + "-" + System.nanoTime());
    for (String o : options) {
      if (!o.startsWith("-") && o.contains("=")) {
        env.put(o.substring(0, o.indexOf('=')), o.substring(o.indexOf('=') + 1));
      } else if (!o.isEmpty()) {
        cmd.add(o);
      }
    }
    if (nmt) {
      cmd.add(NMT_OPTIONS);
    }
    cmd.addAll(List.of("-cp", cotenant.jar.toString(), "dev.cotenant.cli.Main", "serve"));
    ProcessBuilder pb = new ProcessBuilder(cmd).directory(home.toFile())
        .redirectOutput(ProcessBuilder.Redirect.appendTo(home.resolve("daemon.log").toFile())).redirectErrorStream(true);
    env.forEach((k, v) -> {
      if (v == null) {
        pb.environment().remove(k);
      } else {
        pb.environment().put(k, v);
      }
    });
    Process p = ProcStats.killOnExit(pb.start());
    p.getOutputStream().close();
    Path state = home.resolve("daemon.json");
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (true) {
      try {
        if (Files.isRegularFile(state) && DaemonProcess.JSON.readTree(state.toFile()).path("pid").asLong() == p.pid()) {
          return;
        }
      } catch (RuntimeException e) {
        // Being written: read it again.
      }
      if (!p.isAlive() || System.nanoTime() > deadline) {
        ProcStats.killTree(p.pid());
        throw new IllegalStateException("the daemon " + cmd + " did not start: see " + home.resolve("daemon.log"));
      }
      TimeUnit.MILLISECONDS.sleep(20);
    }
  }

  /** The process's program ({@code comm}), with the npm package it runs when its command line names one. */
  static String program(long pid) throws Exception {
    String comm = Files.readString(Path.of("/proc", Long.toString(pid), "comm")).strip();
    for (String arg : Files.readString(Path.of("/proc", Long.toString(pid), "cmdline")).split("\0")) {
      int at = arg.lastIndexOf("node_modules/");
      if (at >= 0) {
        String[] rest = arg.substring(at + "node_modules/".length()).split("/");
        return comm + " " + (rest[0].startsWith("@") && rest.length > 1 ? rest[0] + "/" + rest[1] : rest[0]);
      }
    }
    return comm;
  }

  /** {@code pids} by program ({@link #program}): how many, their Pss and Rss, and each one's Pss by kind. */
  static void printByProgram(String title, Set<Long> pids) throws Exception {
    Map<String, List<Long>> byProgram = new TreeMap<>();
    for (long pid : pids) {
      byProgram.computeIfAbsent(program(pid), k -> new ArrayList<>()).add(pid);
    }
    System.out.println(title);
    for (Map.Entry<String, List<Long>> e : byProgram.entrySet()) {
      ProcStats.Memory m = ProcStats.memory(e.getValue());
      Map<String, Long> rollup = new LinkedHashMap<>();
      for (long pid : e.getValue()) {
        for (String l : Files.readAllLines(Path.of("/proc", Long.toString(pid), "smaps_rollup"))) {
          String[] f = l.trim().split("\\s+");
          if (f.length == 3 && f[0].startsWith("Pss_")) {
            rollup.merge(f[0].substring(0, f[0].length() - 1), Long.parseLong(f[1]), Long::sum);
          }
        }
      }
      StringBuilder parts = new StringBuilder();
      rollup.forEach((k, v) -> parts.append(String.format(Locale.ROOT, " %s %.1f", k, v / 1024.0 / e.getValue().size())));
      System.out.printf(Locale.ROOT, "  %-52s %3d processes, Pss %.1f MiB (%.2f each), Rss %.1f MiB (%.2f each);"
          + " each:%s%n", e.getKey(), e.getValue().size(), m.pssMib(), m.pssMib() / e.getValue().size(), m.rssMib(),
          m.rssMib() / e.getValue().size(), parts);
    }
  }
}
