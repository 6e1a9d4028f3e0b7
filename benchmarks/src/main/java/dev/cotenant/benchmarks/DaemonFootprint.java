package dev.cotenant.benchmarks;

import dev.cotenant.api.ServerDescription;
import dev.cotenant.api.Transport;
import dev.cotenant.gateway.config.ConfiguredServer;
import dev.cotenant.gateway.config.McpConfigReader;
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
 * Harness main: how many processes and how much memory {@code clients} MCP clients (5 by default)
 * of every stdio server of {@code examples/mcp.json} take, three ways:
 *
 * <ol>
 *   <li><b>direct</b>: each client starts each server itself, as without Cotenant, and
 *       initializes it;
 *   <li><b>daemon, fresh records</b>: one {@code cotenant serve} in a new home, and per server one
 *       {@code cotenant connect} shim per client, each initialized. Nothing is measured yet, so
 *       every session gets a dedicated backend and the shims and the daemon only add;
 *   <li><b>daemon, after registering</b>: a second new home in which, as a user would,
 *       {@code cotenant measure examples/mcp.json} ran, then {@code cotenant probe-stateless NAME
 *       examples/mcp.json} for every server, and for each that passed (exit 0) {@code cotenant
 *       register NAME examples/mcp.json --model shared --max-concurrent 8}; then the same daemon
 *       and shims as in 2.
 * </ol>
 *
 * <p>A server that cannot start, i.e. whose first direct start exits before answering
 * {@code initialize} ({@code needs-credential} without {@code SAMPLE_API_TOKEN}), is skipped in
 * all three and named; {@code remote-http} is not stdio and not counted. A client whose server
 * refuses {@code initialize} with an error (the {@code discover} sample, of the stateless era)
 * sends {@code server/discover} instead.
 *
 * <p>Once every client is initialized and 3 s have passed, every process involved is counted
 * (each directly started server with its descendants; the daemon, its watchdog, its backends
 * with their descendants, and the shims) and its {@code Pss} and {@code Rss} read from
 * {@code /proc/<pid>/smaps_rollup}. Then every client closes its input, the daemon gets SIGTERM,
 * and the run fails if any process it started is still alive (each is killed on the way out).
 *
 * <p>The daemon's spawn budget ({@code cotenant.pool.spawn-budget}, default 32 live backends) is
 * raised to {@code clients × servers + servers}, since the fresh-records case needs a backend per
 * session; give a third argument to set it yourself.
 *
 * <p>Every client asks for protocol version {@value StdioPeer#PROTOCOL_VERSION} unless a second
 * argument names another. It matters: a client may join a shared backend only when it asks for the
 * version that backend negotiated with the daemon (which asks for the same), else it gets a
 * dedicated backend.
 *
 * <p>Usage, from the repository root after {@code mvn -B -o -q -DskipTests package}:
 * {@code java -cp benchmarks/target/benchmarks.jar dev.cotenant.benchmarks.DaemonFootprint
 * [clients] [protocol-version] [spawn-budget]} (defaults 5, {@value StdioPeer#PROTOCOL_VERSION}
 * and clients × servers + servers).
 */
public final class DaemonFootprint {
  static final Duration BOUND = Duration.ofSeconds(90);
  static final long SETTLE_MS = 3_000;

  private DaemonFootprint() {}

  /** The processes and memory of one way, by role. */
  record Footprint(String way, Map<String, ProcStats.Memory> roles, Map<String, String> placements) {
    ProcStats.Memory total() {
      ProcStats.Memory m = ProcStats.Memory.NONE;
      for (ProcStats.Memory r : roles.values()) {
        m = m.plus(r);
      }
      return m;
    }

    ProcStats.Memory role(String r) {
      return roles.getOrDefault(r, ProcStats.Memory.NONE);
    }
  }

  /** Entry point. */
  public static void main(String[] args) throws Exception {
    int clients = args.length > 0 ? Integer.parseInt(args[0]) : 5;
    String version = args.length > 1 ? args[1] : StdioPeer.PROTOCOL_VERSION;
    CotenantJar cotenant = CotenantJar.locate();
    Path root = cotenant.repositoryRoot();
    Path config = root.resolve("examples/mcp.json");
    Path samples = root.resolve("examples/target/cotenant-sample-servers.jar");
    if (!Files.isRegularFile(samples)) {
      throw new IllegalStateException(samples + " is missing: build the reactor (mvn -B -o -q -DskipTests package)");
    }
    List<ServerDescription> stdio = new ArrayList<>();
    List<String> notStdio = new ArrayList<>();
    for (ConfiguredServer s : new McpConfigReader().readFile(config)) {
      if (s.description().transport() == Transport.STDIO && s.description().enabled()) {
        stdio.add(s.description());
      } else {
        notStdio.add(s.description().name());
      }
    }
    System.out.printf(Locale.ROOT, "cores=%d java=%s clients=%d protocolVersion=%s config=%s%n",
        Runtime.getRuntime().availableProcessors(), System.getProperty("java.version"), clients, version, config);
    System.out.println("not stdio, not counted: " + notStdio);

    Map<String, String> skipped = new LinkedHashMap<>();
    System.out.println("\nload before direct: " + ProcStats.loadAverage());
    Footprint direct = direct(stdio, clients, version, config, skipped);
    List<ServerDescription> servers = stdio.stream().filter(s -> !skipped.containsKey(s.name())).toList();
    skipped.forEach((n, why) -> System.out.println("skipped " + n + ": " + why));
    int budget = args.length > 2 ? Integer.parseInt(args[2]) : clients * servers.size() + servers.size();

    Path fresh = DaemonProcess.newHome("ctfp");
    Footprint a;
    try {
      System.out.println("\nload before daemon, fresh records: " + ProcStats.loadAverage());
      a = throughDaemon("daemon, fresh records", cotenant, fresh, root, config, servers, clients, version, budget);
    } finally {
      DaemonProcess.deleteTree(fresh);
    }

    Path registered = DaemonProcess.newHome("ctfr");
    Footprint b;
    try {
      System.out.println("\nload before measure, probe-stateless, register: " + ProcStats.loadAverage());
      register(cotenant, registered, root, config, servers);
      System.out.println("\nload before daemon, after registering: " + ProcStats.loadAverage());
      b = throughDaemon("daemon, after registering", cotenant, registered, root, config, servers, clients, version,
          budget);
    } finally {
      DaemonProcess.deleteTree(registered);
    }

    System.out.printf(Locale.ROOT, "%n%d clients × %d stdio servers (%s); spawn budget %d; MiB%n", clients, servers.size(),
        String.join(", ", servers.stream().map(ServerDescription::name).toList()), budget);
    System.out.printf(Locale.ROOT, "  %-27s %6s %8s %8s %6s %9s %10s %10s %12s %12s %11s %11s%n", "way", "daemon",
        "watchdog", "backends", "shims", "processes", "Pss total", "Rss total", "backends Pss", "backends Rss", "shims Pss",
        "shims Rss");
    for (Footprint f : List.of(direct, a, b)) {
      ProcStats.Memory t = f.total();
      System.out.printf(Locale.ROOT, "  %-27s %6d %8d %8d %6d %9d %10.1f %10.1f %12.1f %12.1f %11.1f %11.1f%n", f.way(),
          f.role("daemon").processes(), f.role("watchdog").processes(), f.role("backends").processes(),
          f.role("shims").processes(), t.processes(), t.pssMib(), t.rssMib(), f.role("backends").pssMib(),
          f.role("backends").rssMib(), f.role("shims").pssMib(), f.role("shims").rssMib());
    }
    for (Footprint f : List.of(a, b)) {
      ProcStats.Memory d = f.role("daemon");
      ProcStats.Memory w = f.role("watchdog");
      ProcStats.Memory s = f.role("shims");
      System.out.printf(Locale.ROOT, "  %s: daemon Pss %.1f Rss %.1f; watchdog Pss %.1f Rss %.1f; per shim Pss %.1f"
          + " Rss %.1f%n", f.way(), d.pssMib(), d.rssMib(), w.pssMib(), w.rssMib(), s.pssMib() / Math.max(1, s.processes()),
          s.rssMib() / Math.max(1, s.processes()));
      System.out.println("  " + f.way() + ", backends by server: " + f.placements());
    }
    System.out.println("load at end: " + ProcStats.loadAverage());
  }

  // ---- direct ----

  static Footprint direct(List<ServerDescription> servers, int clients, String version, Path config,
      Map<String, String> skipped) throws Exception {
    long t0 = System.nanoTime();
    List<StdioPeer> peers = new ArrayList<>();
    Set<Long> all = new LinkedHashSet<>();
    Map<String, String> handshakes = new TreeMap<>();
    try {
      for (ServerDescription s : servers) {
        for (int k = 1; k <= clients; k++) {
          StdioPeer p = startDirect(s, config);
          peers.add(p);
          try {
            handshakes.put(s.name(), p.initialize("client-" + k, version, BOUND));
          } catch (java.io.IOException e) {
            boolean exitedByItself = !String.valueOf(e.getMessage()).contains("did not answer")
                && p.process.waitFor(5, TimeUnit.SECONDS);
            if (k == 1 && exitedByItself) {
              skipped.put(s.name(), "exits with " + p.process.exitValue() + " before answering initialize: "
                  + firstLine(s.name()));
              peers.remove(p);
              Files.deleteIfExists(errFile(s.name()));
              break;
            }
            throw e;
          }
        }
      }
      System.out.printf(Locale.ROOT, "direct: %d servers started and initialized in %d ms%n", peers.size(),
          TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0));
      System.out.println("handshakes: " + handshakes);
      TimeUnit.MILLISECONDS.sleep(SETTLE_MS);
      for (StdioPeer p : peers) {
        all.addAll(ProcStats.tree(p.pid()));
      }
      ProcStats.Memory m = ProcStats.memory(all);
      Map<String, Set<Long>> byServer = new LinkedHashMap<>();
      for (StdioPeer p : peers) {
        byServer.computeIfAbsent(p.label, k -> new LinkedHashSet<>()).addAll(ProcStats.tree(p.pid()));
      }
      System.out.println("direct, by server (MiB):");
      byServer.forEach((server, pids) -> {
        ProcStats.Memory sm = ProcStats.memory(pids);
        System.out.printf(Locale.ROOT, "  %-22s %2d processes, Pss %7.1f (anonymous %7.1f), Rss %7.1f%n", server,
            sm.processes(), sm.pssMib(), ProcStats.pssAnonKb(pids) / 1024.0, sm.rssMib());
      });
      Map<String, ProcStats.Memory> roles = new LinkedHashMap<>();
      roles.put("backends", m);
      return new Footprint("direct", roles, Map.of());
    } finally {
      closeAll(peers, all, "direct");
    }
  }

  private static String firstLine(String server) throws Exception {
    Path err = errFile(server);
    if (!Files.isRegularFile(err)) {
      return "(no standard error)";
    }
    List<String> lines = Files.readAllLines(err);
    return lines.isEmpty() ? "(no standard error)" : lines.get(0);
  }

  /** Where the standard error of a server started directly goes (removed once it is closed). */
  static Path errFile(String server) {
    return Path.of(System.getProperty("java.io.tmpdir"), "cotenant-footprint-" + ProcessHandle.current().pid() + "-"
        + server + ".err");
  }

  /** Starts {@code s} as an MCP host would: its command, args, env and cwd (relative ones against the config's directory). */
  static StdioPeer startDirect(ServerDescription s, Path config) throws Exception {
    List<String> cmd = new ArrayList<>(List.of(s.command()));
    cmd.addAll(s.args());
    Path cwd = s.cwd().map(c -> config.getParent().resolve(c)).orElse(config.getParent());
    Map<String, String> env = new LinkedHashMap<>(s.env());
    env.put("COTENANT_HOME", null);
    env.put("COTENANT_DAEMON_ID", null);
    Path err = errFile(s.name());
    Files.deleteIfExists(err);
    return StdioPeer.start(s.name(), cmd, cwd, env, ProcessBuilder.Redirect.to(err.toFile()));
  }

  /**
   * The daemon of {@code home} ({@code daemon.json}) by part: {@code daemon}, {@code watchdog} and
   * {@code backends} (everything below the daemon but its watchdog) into {@code parts}; returns the
   * backends' pids.
   */
  static Set<Long> daemonParts(Path home, Map<String, ProcStats.Memory> parts) {
    JsonNode state = DaemonProcess.JSON.readTree(home.resolve("daemon.json").toFile());
    long daemonPid = state.path("pid").asLong();
    long watchdog = state.path("watchdog_pid").asLong(-1);
    Set<Long> below = ProcStats.tree(daemonPid);
    below.remove(daemonPid);
    below.remove(watchdog);
    parts.put("daemon", ProcStats.memory(daemonPid));
    parts.put("watchdog", ProcStats.alive(watchdog) ? ProcStats.memory(watchdog) : ProcStats.Memory.NONE);
    parts.put("backends", ProcStats.memory(below));
    return below;
  }

  /** Closes every client's input and checks that every process counted (and every peer) is gone. */
  static void closeAll(List<StdioPeer> peers, Set<Long> counted, String way) throws Exception {
    for (StdioPeer p : peers) {
      p.closeInput();
    }
    try {
      closeAndCheck(peers, counted, way);
    } finally {
      for (StdioPeer p : peers) {
        Files.deleteIfExists(errFile(p.label));
      }
    }
  }

  /**
   * Closes each peer's input and waits for it, then for every process of {@code counted}; kills
   * what is left and fails naming it.
   */
  static void closeAndCheck(List<? extends ClosingPeer> peers, Set<Long> counted, String way) throws Exception {
    List<String> unclean = new ArrayList<>();
    for (ClosingPeer p : peers) {
      if (!p.closeAndAwait(Duration.ofSeconds(30))) {
        unclean.add(p.label() + " (pid " + p.pid() + ") did not exit when its input closed: killed");
      }
    }
    List<Long> left = ProcStats.awaitGone(counted, Duration.ofSeconds(10));
    left.forEach(ProcStats::killTree);
    if (!left.isEmpty()) {
      unclean.add("still alive after the clients closed: " + left + " (killed)");
    }
    if (!unclean.isEmpty()) {
      throw new IllegalStateException(way + ": " + unclean);
    }
  }

  // ---- through the daemon ----

  private static Footprint throughDaemon(String way, CotenantJar cotenant, Path home, Path root, Path config,
      List<ServerDescription> servers, int clients, String version, int budget) throws Exception {
    long t0 = System.nanoTime();
    DaemonProcess daemon = DaemonProcess.start(cotenant, home, root,
        List.of("--port", "0", "--set", "cotenant.pool.spawn-budget=" + budget, config.toString()));
    List<StdioPeer> shims = new ArrayList<>();
    Set<Long> counted = new LinkedHashSet<>();
    try {
      long t1 = System.nanoTime();
      for (ServerDescription s : servers) {
        for (int k = 1; k <= clients; k++) {
          StdioPeer p = StdioPeer.start("connect " + s.name(), cotenant.shim(s.name(), config), root,
              DaemonProcess.env(home), ProcessBuilder.Redirect.appendTo(home.resolve("shims.err").toFile()));
          shims.add(p);
          p.initialize("client-" + k, version, BOUND);
        }
      }
      System.out.printf(Locale.ROOT, "%s: daemon ready in %d ms, %d shims started and initialized in %d ms%n", way,
          TimeUnit.NANOSECONDS.toMillis(t1 - t0), shims.size(), TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t1));
      TimeUnit.MILLISECONDS.sleep(SETTLE_MS);
      JsonNode status = daemon.status();
      Map<String, String> placements = placements(status);
      Set<Long> below = daemon.descendants();
      Set<Long> backends = new LinkedHashSet<>(below);
      backends.remove(daemon.watchdogPid);
      Set<Long> shimPids = new LinkedHashSet<>();
      for (StdioPeer p : shims) {
        shimPids.addAll(ProcStats.tree(p.pid()));
      }
      Map<String, ProcStats.Memory> roles = new LinkedHashMap<>();
      roles.put("daemon", ProcStats.memory(daemon.pid()));
      roles.put("watchdog", below.contains(daemon.watchdogPid) ? ProcStats.memory(daemon.watchdogPid) : ProcStats.Memory.NONE);
      roles.put("backends", ProcStats.memory(backends));
      roles.put("shims", ProcStats.memory(shimPids));
      counted.addAll(shimPids);
      int sessions = status.path("socket_sessions").asInt();
      if (sessions != shims.size()) {
        throw new IllegalStateException(way + ": the daemon counts " + sessions + " socket sessions, not " + shims.size());
      }
      return new Footprint(way, roles, placements);
    } finally {
      try {
        closeAll(shims, counted, way);
        for (StdioPeer p : shims) {
          if (p.process.exitValue() != 0) {
            throw new IllegalStateException(way + ": shim " + p.label + " exited with " + p.process.exitValue());
          }
        }
      } finally {
        int code = daemon.stop(BOUND);
        if (code != 0) {
          throw new IllegalStateException(way + ": the daemon exited with " + code + " after SIGTERM");
        }
      }
    }
  }

  /** Per server: how many backends of which placement, with how many sessions each. */
  static Map<String, String> placements(JsonNode status) {
    Map<String, Map<String, List<Integer>>> by = new TreeMap<>();
    for (JsonNode b : status.path("backends")) {
      by.computeIfAbsent(b.path("server").asString(), k -> new TreeMap<>())
          .computeIfAbsent(b.path("placement").asString(), k -> new ArrayList<>()).add(b.path("sessions").asInt());
    }
    Map<String, String> out = new TreeMap<>();
    by.forEach((server, placements) -> {
      List<String> parts = new ArrayList<>();
      placements.forEach((placement, sessions) -> parts.add(sessions.size() + " " + placement + " " + sessions));
      out.put(server, String.join(" + ", parts));
    });
    return out;
  }

  // ---- registering ----

  /** measure, then probe-stateless for every server, then register shared each that passed. */
  private static void register(CotenantJar cotenant, Path home, Path root, Path config, List<ServerDescription> servers)
      throws Exception {
    Duration bound = Duration.ofMinutes(10);
    DaemonProcess.Run m = DaemonProcess.run(cotenant, home, root, bound, "measure", config.toString());
    System.out.printf(Locale.ROOT, "cotenant measure examples/mcp.json: exit %d in %d ms%n", m.code(), m.millis());
    m.out().lines().forEach(l -> System.out.println("  " + l));
    List<String> shared = new ArrayList<>();
    for (ServerDescription s : servers) {
      DaemonProcess.Run p = DaemonProcess.run(cotenant, home, root, bound, "probe-stateless", s.name(), config.toString());
      String outcome = "probe-stateless exit " + p.code() + " in " + p.millis() + " ms";
      if (p.code() == 0) {
        DaemonProcess.Run r = DaemonProcess.run(cotenant, home, root, bound, "register", s.name(), config.toString(),
            "--model", "shared", "--max-concurrent", "8");
        outcome += "; register --model shared exit " + r.code();
        if (r.code() == 0) {
          shared.add(s.name());
        } else {
          outcome += " (" + r.err().strip() + ")";
        }
      }
      System.out.printf(Locale.ROOT, "  %-18s %s%n", s.name(), outcome);
    }
    System.out.println("registered shared: " + shared);
  }
}
