package dev.cotenant.benchmarks;

import dev.cotenant.api.ServerDescription;
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
import java.util.concurrent.TimeUnit;
import tools.jackson.databind.JsonNode;

/**
 * Harness main: what {@code clients} MCP clients (5 by default) of six real npm servers cost
 * directly and routed through Cotenant as a user routes them, counted in total (backends, shims,
 * the daemon and its watchdog, and the servers left direct).
 *
 * <p>The configuration (written to a scratch directory, absolute paths into
 * {@code examples/npm/node_modules}): {@code calc}, {@code time} and {@code sheet-music}, which
 * hold no state between calls, and {@code memory}, {@code sequential-thinking} and
 * {@code knowledge-graph}, which do (examples/CORPUS.md): half of them can share.
 *
 * <ol>
 *   <li><b>direct</b>: each client starts each server as the configuration says, and initializes it;
 *   <li><b>routed</b>: in a new Cotenant home, {@code cotenant share NAME CONFIG} for every server
 *       (measure, the whole-surface probe, register: one command each), then {@code cotenant
 *       route CONFIG --apply}, which routes the servers that now share and leaves the others
 *       direct; then each client starts each entry exactly as the routed file says (the native
 *       shim where the jar holds one, else the JVM shim; the first shim starts the daemon) and
 *       initializes it.
 * </ol>
 *
 * <p>3 s after the last client is initialized, {@code Pss} and {@code Rss} of every process
 * involved are read from {@code /proc/<pid>/smaps_rollup}. Then every client closes its input, the
 * daemon is stopped, and the run fails if anything it started is left.
 *
 * <p>Usage, from the repository root after {@code mvn -B -o -q -DskipTests package}:
 * {@code java -cp benchmarks/target/benchmarks.jar dev.cotenant.benchmarks.RoutedFootprint
 * [clients] [protocol-version]}.
 */
public final class RoutedFootprint {
  private RoutedFootprint() {}

  /** Entry point. */
  public static void main(String[] args) throws Exception {
    int clients = args.length > 0 ? Integer.parseInt(args[0]) : 5;
    String version = args.length > 1 ? args[1] : StdioPeer.PROTOCOL_VERSION;
    CotenantJar cotenant = CotenantJar.locate();
    Path root = cotenant.repositoryRoot();
    Path work = DaemonProcess.newHome("ctrf");
    try {
      Path config = writeConfig(work, npmServers(root));
      List<ServerDescription> servers = servers(config);
      System.out.printf(Locale.ROOT, "cores=%d java=%s clients=%d protocolVersion=%s servers=%s%n",
          Runtime.getRuntime().availableProcessors(), System.getProperty("java.version"), clients, version,
          servers.stream().map(ServerDescription::name).toList());
      System.out.println("\nload before direct: " + ProcStats.loadAverage());
      Map<String, String> skipped = new LinkedHashMap<>();
      DaemonFootprint.Footprint direct = DaemonFootprint.direct(servers, clients, version, config, skipped);
      if (!skipped.isEmpty()) {
        throw new IllegalStateException("servers that did not start: " + skipped);
      }
      Path home = Files.createDirectories(work.resolve("h"));
      System.out.println("\nload before share: " + ProcStats.loadAverage());
      Duration bound = Duration.ofMinutes(10);
      shareEach(cotenant, home, root, config, servers);
      DaemonProcess.Run route = DaemonProcess.run(cotenant, home, root, bound, "route", config.toString(), "--apply");
      System.out.println("route --apply: exit " + route.code());
      route.out().lines().forEach(l -> System.out.println("  " + l));
      if (route.code() != 0) {
        throw new IllegalStateException("route failed: " + route.err());
      }
      System.out.println("\nload before routed: " + ProcStats.loadAverage());
      Result routed = routed(config, home, root, clients, version);
      report(clients, servers.size(), direct, routed);
      System.out.println("load at end: " + ProcStats.loadAverage());
      DaemonProcess.Run stop = DaemonProcess.run(cotenant, home, root, bound, "stop");
      if (stop.code() != 0) {
        throw new IllegalStateException("stop: " + stop.err());
      }
    } finally {
      DaemonProcess.deleteTree(work);
    }
  }

  /** {@code examples/npm/node_modules} under {@code root}, or fails saying how to install it. */
  static Path npmServers(Path root) {
    Path npm = root.resolve("examples/npm/node_modules");
    if (!Files.isDirectory(npm.resolve("@modelcontextprotocol/server-memory"))) {
      throw new IllegalStateException(npm + " lacks the npm servers: build the reactor (mvn -B -o -q -DskipTests package)");
    }
    return npm;
  }

  /** The servers of {@code config}, in its order. */
  static List<ServerDescription> servers(Path config) throws Exception {
    List<ServerDescription> servers = new ArrayList<>();
    for (ConfiguredServer s : new McpConfigReader().readFile(config)) {
      servers.add(s.description());
    }
    return servers;
  }

  /** {@code cotenant share NAME CONFIG} in {@code home} for each of {@code servers}, each printed in one line. */
  static void shareEach(CotenantJar cotenant, Path home, Path root, Path config, List<ServerDescription> servers)
      throws Exception {
    for (ServerDescription s : servers) {
      DaemonProcess.Run r = DaemonProcess.run(cotenant, home, root, Duration.ofMinutes(10), "share", s.name(),
          config.toString());
      List<String> lines = r.out().strip().lines().toList();
      System.out.printf(Locale.ROOT, "  share %-20s exit %d in %5d ms: %s%n", s.name(), r.code(), r.millis(),
          lines.isEmpty() ? r.err().strip() : lines.get(lines.size() - 1));
    }
  }

  /** The six servers, with absolute paths and their state files in {@code work}. */
  static Path writeConfig(Path work, Path npm) throws Exception {
    Path state = Files.createDirectories(work.resolve("state"));
    Files.writeString(state.resolve("memory.jsonl"), "");
    Files.writeString(state.resolve("graph.jsonl"), "");
    String node = "node";
    String json = "{\"mcpServers\": {\n"
        + entry("calc", node, List.of(npm.resolve("@coo-quack/calc-mcp/dist/index.js").toString()), "") + ",\n"
        + entry("time", node, List.of(npm.resolve("time-mcp/dist/index.js").toString()), "") + ",\n"
        + entry("sheet-music", node, List.of(npm.resolve("@modelcontextprotocol/server-sheet-music/dist/index.js")
            .toString(), "--stdio"), "") + ",\n"
        + entry("memory", node, List.of(npm.resolve("@modelcontextprotocol/server-memory/dist/index.js").toString()),
            "\"env\": {\"MEMORY_FILE_PATH\": \"" + state.resolve("memory.jsonl") + "\"}") + ",\n"
        + entry("sequential-thinking", node, List.of(npm.resolve(
            "@modelcontextprotocol/server-sequential-thinking/dist/index.js").toString()), "") + ",\n"
        + entry("knowledge-graph", node, List.of(npm.resolve("@itseasy21/mcp-knowledge-graph/dist/index.js").toString(),
            "--memory-path", state.resolve("graph.jsonl").toString()), "") + "\n}}\n";
    return Files.writeString(work.resolve("client.json"), json);
  }

  private static String entry(String name, String command, List<String> args, String more) {
    StringBuilder b = new StringBuilder("  \"" + name + "\": {\"command\": \"" + command + "\", \"args\": [");
    for (int i = 0; i < args.size(); i++) {
      b.append(i == 0 ? "" : ", ").append('"').append(args.get(i)).append('"');
    }
    b.append(']');
    if (!more.isEmpty()) {
      b.append(", ").append(more);
    }
    return b.append('}').toString();
  }

  /** What the routed way cost, by part. */
  record Result(Map<String, ProcStats.Memory> parts, Map<String, String> placements, List<String> routed) {}

  private static Result routed(Path config, Path home, Path root, int clients, String version) throws Exception {
    JsonNode entries = DaemonProcess.JSON.readTree(config.toFile()).path("mcpServers");
    List<String> routedNames = new ArrayList<>();
    List<StdioPeer> peers = new ArrayList<>();
    Map<StdioPeer, Boolean> isShim = new LinkedHashMap<>();
    Set<Long> counted = new LinkedHashSet<>();
    long daemonPid = -1;
    try {
      long t0 = System.nanoTime();
      for (Map.Entry<String, JsonNode> e : entries.properties()) {
        JsonNode entry = e.getValue();
        List<String> command = new ArrayList<>(List.of(entry.path("command").asString()));
        entry.path("args").forEach(a -> command.add(a.asString()));
        boolean shim = command.contains("connect");
        if (shim) {
          routedNames.add(e.getKey());
        }
        Map<String, String> env = DaemonProcess.env(home);
        entry.path("env").properties().forEach(v -> env.put(v.getKey(), v.getValue().asString()));
        for (int k = 1; k <= clients; k++) {
          StdioPeer p = StdioPeer.start(e.getKey(), command, config.getParent(), env,
              ProcessBuilder.Redirect.appendTo(home.resolve("clients.err").toFile()));
          peers.add(p);
          isShim.put(p, shim);
          p.initialize("client-" + k, version, DaemonFootprint.BOUND);
        }
      }
      System.out.printf(Locale.ROOT, "routed: %d clients started and initialized in %d ms%n", peers.size(),
          TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0));
      TimeUnit.MILLISECONDS.sleep(DaemonFootprint.SETTLE_MS);
      Map<String, ProcStats.Memory> parts = new LinkedHashMap<>();
      Map<String, String> placements = Map.of();
      if (!routedNames.isEmpty()) {
        Set<Long> below = DaemonFootprint.daemonParts(home, parts);
        daemonPid = DaemonProcess.JSON.readTree(home.resolve("daemon.json").toFile()).path("pid").asLong();
        DaemonMemory.printByProgram("backends by program:", below);
        DaemonProcess.Run status = DaemonProcess.run(CotenantJar.locate(), home, root, Duration.ofMinutes(1), "status",
            "--json");
        placements = DaemonFootprint.placements(DaemonProcess.JSON.readTree(status.out()));
      }
      Set<Long> shims = new LinkedHashSet<>();
      Set<Long> direct = new LinkedHashSet<>();
      for (StdioPeer p : peers) {
        (isShim.get(p) ? shims : direct).addAll(ProcStats.tree(p.pid()));
      }
      parts.put("shims", ProcStats.memory(shims));
      parts.put("servers left direct", ProcStats.memory(direct));
      DaemonMemory.printByProgram("servers left direct, by program:", direct);
      counted.addAll(shims);
      counted.addAll(direct);
      return new Result(parts, placements, routedNames);
    } finally {
      DaemonFootprint.closeAll(peers, counted, "routed");
    }
  }

  private static void report(int clients, int servers, DaemonFootprint.Footprint direct, Result routed) {
    ProcStats.Memory d = direct.total();
    ProcStats.Memory r = ProcStats.Memory.NONE;
    for (ProcStats.Memory m : routed.parts().values()) {
      r = r.plus(m);
    }
    System.out.printf(Locale.ROOT, "%n%d clients × %d npm servers; routed: %s; MiB%n", clients, servers, routed.routed());
    System.out.printf(Locale.ROOT, "  %-22s %9s %10s %10s%n", "part", "processes", "Pss", "Rss");
    System.out.printf(Locale.ROOT, "  %-22s %9d %10.1f %10.1f%n", "direct (all)", d.processes(), d.pssMib(), d.rssMib());
    routed.parts().forEach((part, m) -> System.out.printf(Locale.ROOT, "  %-22s %9d %10.1f %10.1f%n", "routed: " + part,
        m.processes(), m.pssMib(), m.rssMib()));
    System.out.printf(Locale.ROOT, "  %-22s %9d %10.1f %10.1f%n", "routed (all)", r.processes(), r.pssMib(), r.rssMib());
    System.out.printf(Locale.ROOT, "  routed vs direct: Pss %+.1f %%, Rss %+.1f %%, processes %+d%n",
        100.0 * (r.pssMib() - d.pssMib()) / d.pssMib(), 100.0 * (r.rssMib() - d.rssMib()) / d.rssMib(),
        r.processes() - d.processes());
    ProcStats.Memory shims = routed.parts().getOrDefault("shims", ProcStats.Memory.NONE);
    if (shims.processes() > 0) {
      System.out.printf(Locale.ROOT, "  per shim: Pss %.2f Rss %.2f MiB%n", shims.pssMib() / shims.processes(),
          shims.rssMib() / shims.processes());
    }
    System.out.println("  backends by server: " + routed.placements());
  }
}
