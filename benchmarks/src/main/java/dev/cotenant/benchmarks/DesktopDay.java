package dev.cotenant.benchmarks;

import dev.cotenant.api.Json;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
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
 * Harness main: a desktop day. Five client sessions opened as real clients open them — Claude
 * Desktop (protocol version 2025-11-25, declaring only the MCP Apps extension), Claude Code twice
 * (2025-06-18, {@code roots}), Cursor (2025-06-18, {@code roots} and {@code elicitation}) and VS
 * Code (2025-11-25, {@code roots}, {@code sampling} and {@code elicitation}), each with its own
 * client information and answering {@code roots/list} with its own workspace — each start every
 * server of one client configuration ({@code initialize}, {@code notifications/initialized},
 * {@code tools/list}) and call only two of them, as real sessions do. The configuration is
 * {@link RoutedFootprint}'s six npm servers pinned in {@code examples/npm}: {@code calc},
 * {@code time} and {@code sheet-music} hold no state between calls, {@code memory},
 * {@code sequential-thinking} and {@code knowledge-graph} do (examples/CORPUS.md).
 *
 * <ol>
 *   <li><b>direct</b>: each session starts each server as the configuration says;
 *   <li><b>routed as a user routes</b>: in a new Cotenant home, {@code cotenant measure CONFIG},
 *       {@code cotenant share NAME CONFIG} for every server, {@code cotenant route CONFIG --apply};
 *       then each session starts each entry exactly as the routed file says.
 * </ol>
 *
 * <p>3 s after the last call, {@code Pss} and {@code Rss} of every process involved are read from
 * {@code /proc/<pid>/smaps_rollup}, by part (the daemon, its watchdog, the backends with their
 * bubblewrap processes, the shims, the servers left direct). The run fails unless every call was
 * answered without an error, every session was answered the protocol version direct answers it,
 * and every routed server listed to each session exactly what it listed to that session direct.
 * Then the first call on a deferred backend is timed against a direct start: {@code runs} times,
 * a new session of {@code memory} directly (start, {@code initialize}, first call) and through the
 * daemon (its {@code initialize} and {@code tools/list} answered from the records, then the first
 * call, which starts its backend); medians printed. Everything started is checked gone at the end.
 *
 * <p>Usage, from the repository root after {@code mvn -B -o -q -DskipTests package}:
 * {@code java -cp benchmarks/target/benchmarks.jar dev.cotenant.benchmarks.DesktopDay [runs]}.
 */
public final class DesktopDay {
  private static final Duration BOUND = Duration.ofSeconds(90);

  /** The five sessions of the day, in the order they open. */
  static final List<ClientPeer.Kind> SESSIONS = List.of(
      new ClientPeer.Kind("claude-desktop", "claude-ai", "0.1.0", "2025-11-25",
          Map.of("extensions", Map.of("io.modelcontextprotocol/ui",
              Map.of("mimeTypes", List.of("text/html;profile=mcp-app"))))),
      new ClientPeer.Kind("claude-code-1", "claude-code", "2.0.14", "2025-06-18", Map.of("roots", Map.of())),
      new ClientPeer.Kind("claude-code-2", "claude-code", "2.0.14", "2025-06-18", Map.of("roots", Map.of())),
      new ClientPeer.Kind("cursor", "cursor-vscode", "1.0.0", "2025-06-18",
          Map.of("roots", Map.of(), "elicitation", Map.of())),
      new ClientPeer.Kind("vscode", "Visual Studio Code", "1.106.0", "2025-11-25",
          Map.of("roots", Map.of("listChanged", true), "sampling", Map.of(), "elicitation", Map.of())));

  /** The two servers each session calls; every server is called by some session. */
  static final Map<String, List<String>> CALLS = Map.of(
      "claude-desktop", List.of("memory", "time"),
      "claude-code-1", List.of("calc", "sequential-thinking"),
      "claude-code-2", List.of("calc", "knowledge-graph"),
      "cursor", List.of("time", "sheet-music"),
      "vscode", List.of("calc", "memory"));

  /** The call each server gets: a tool and valid arguments. */
  static final Map<String, Map<String, Object>> CALL = Map.of(
      "calc", Map.of("name", "math", "arguments", Map.of("expression", "6*7")),
      "time", Map.of("name", "current_time", "arguments", Map.of()),
      "sheet-music", Map.of("name", "play-sheet-music", "arguments", Map.of("abcNotation", "X:1\nK:C\nCDEF|GABc|")),
      "memory", Map.of("name", "read_graph", "arguments", Map.of()),
      "sequential-thinking", Map.of("name", "sequentialthinking", "arguments", Map.of("thought", "one step",
          "nextThoughtNeeded", false, "thoughtNumber", 1, "totalThoughts", 1)),
      "knowledge-graph", Map.of("name", "read_graph", "arguments", Map.of()));

  private DesktopDay() {}

  /** Entry point. */
  public static void main(String[] args) throws Exception {
    int runs = args.length > 0 ? Integer.parseInt(args[0]) : 10;
    CotenantJar cotenant = CotenantJar.locate();
    Path root = cotenant.repositoryRoot();
    Path npm = RoutedFootprint.npmServers(root);
    Path work = DaemonProcess.newHome("ctdd");
    try {
      Path config = RoutedFootprint.writeConfig(work, npm);
      Path original = Files.copy(config, work.resolve("client-direct.json"));
      Path workspace = Files.createDirectories(work.resolve("workspace"));
      System.out.printf(Locale.ROOT, "cores=%d java=%s sessions=%s%n", Runtime.getRuntime().availableProcessors(),
          System.getProperty("java.version"), SESSIONS.stream().map(ClientPeer.Kind::label).toList());
      System.out.println("calls: " + new TreeMap<>(CALLS));
      System.out.println("\nload before direct: " + ProcStats.loadAverage());
      Day direct = day("direct", original, Map.of("COTENANT_HOME", "", "COTENANT_DAEMON_ID", ""), workspace, null);

      Path home = Files.createDirectories(work.resolve("h"));
      System.out.println("\nload before routing: " + ProcStats.loadAverage());
      show(DaemonProcess.run(cotenant, home, root, Duration.ofMinutes(10), "measure", config.toString()), "measure");
      RoutedFootprint.shareEach(cotenant, home, root, config, RoutedFootprint.servers(config));
      DaemonProcess.Run route = DaemonProcess.run(cotenant, home, root, Duration.ofMinutes(2), "route", config.toString(),
          "--apply");
      System.out.println("route --apply: exit " + route.code());
      route.out().lines().forEach(l -> System.out.println("  " + l));
      if (route.code() != 0) {
        throw new IllegalStateException("route failed: " + route.err());
      }
      System.out.println("\nload before routed: " + ProcStats.loadAverage());
      Day routed = day("routed", config, DaemonProcess.env(home), workspace, home);
      check(direct, routed);
      report(direct, routed);
      latency(runs, original, config, home, workspace);
      System.out.println("load at end: " + ProcStats.loadAverage());
      DaemonProcess.Run stop = DaemonProcess.run(cotenant, home, root, Duration.ofMinutes(1), "stop");
      if (stop.code() != 0) {
        throw new IllegalStateException("stop: " + stop.err());
      }
    } finally {
      DaemonProcess.deleteTree(work);
    }
  }

  private static void show(DaemonProcess.Run r, String what) {
    List<String> lines = r.out().strip().lines().toList();
    System.out.printf(Locale.ROOT, "  %-28s exit %d in %6d ms: %s%n", what, r.code(), r.millis(),
        lines.isEmpty() ? r.err().strip() : lines.get(lines.size() - 1));
  }

  /** One session's view of one server: what it was answered, and how long its first call took. */
  record Seen(Map<String, Object> initialize, Object tools, Map<String, Object> call, long callMicros) {}

  /** What a day cost and what each session saw. */
  record Day(String way, Map<String, ProcStats.Memory> parts, Map<String, Seen> seen, Map<String, String> placements,
      List<String> servers) {
    ProcStats.Memory total() {
      ProcStats.Memory t = ProcStats.Memory.NONE;
      for (ProcStats.Memory m : parts.values()) {
        t = t.plus(m);
      }
      return t;
    }
  }

  /** Opens the day's sessions on the entries of {@code config}, calls, measures, and closes everything. */
  private static Day day(String way, Path config, Map<String, String> env, Path workspace, Path home)
      throws Exception {
    JsonNode entries = DaemonProcess.JSON.readTree(config.toFile()).path("mcpServers");
    List<ClientPeer> peers = new ArrayList<>();
    Map<String, ClientPeer> byKey = new LinkedHashMap<>();
    Set<String> routedNames = new LinkedHashSet<>();
    List<String> servers = new ArrayList<>();
    Map<String, Map<String, Object>> inits = new LinkedHashMap<>();
    Map<String, Object> tools = new LinkedHashMap<>();
    Set<Long> counted = new LinkedHashSet<>();
    Path err = config.getParent().resolve(way + ".err");
    try {
      long t0 = System.nanoTime();
      for (ClientPeer.Kind kind : SESSIONS) {
        for (Map.Entry<String, JsonNode> e : entries.properties()) {
          JsonNode entry = e.getValue();
          List<String> command = new ArrayList<>(List.of(entry.path("command").asString()));
          entry.path("args").forEach(a -> command.add(a.asString()));
          if (command.contains("connect")) {
            routedNames.add(e.getKey());
          }
          if (!servers.contains(e.getKey())) {
            servers.add(e.getKey());
          }
          Map<String, String> penv = new LinkedHashMap<>(env);
          penv.replaceAll((k, v) -> v == null || v.isEmpty() ? null : v);
          entry.path("env").properties().forEach(v -> penv.put(v.getKey(), v.getValue().asString()));
          String key = kind.label() + "/" + e.getKey();
          ClientPeer p = ClientPeer.start(key, kind, command, config.getParent(), penv, workspace,
              ProcessBuilder.Redirect.appendTo(err.toFile()));
          peers.add(p);
          byKey.put(key, p);
          inits.put(key, p.initialize(BOUND));
          tools.put(key, p.request("tools/list", Map.of(), BOUND).get("result"));
        }
      }
      System.out.printf(Locale.ROOT, "%s: %d sessions of %d servers started, initialized and listed in %d ms%n", way,
          peers.size(), servers.size(), TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0));
      Map<String, Seen> seen = new LinkedHashMap<>();
      for (ClientPeer.Kind kind : SESSIONS) {
        for (String server : CALLS.get(kind.label())) {
          String key = kind.label() + "/" + server;
          long c0 = System.nanoTime();
          Map<String, Object> answer = byKey.get(key).request("tools/call", CALL.get(server), BOUND);
          long micros = TimeUnit.NANOSECONDS.toMicros(System.nanoTime() - c0);
          seen.put(key, new Seen(inits.get(key), tools.get(key), answer, micros));
        }
      }
      for (String key : byKey.keySet()) {
        seen.putIfAbsent(key, new Seen(inits.get(key), tools.get(key), Map.of(), -1));
      }
      TimeUnit.MILLISECONDS.sleep(DaemonFootprint.SETTLE_MS);
      Map<String, ProcStats.Memory> parts = new LinkedHashMap<>();
      Map<String, String> placements = Map.of();
      if (home != null && !routedNames.isEmpty()) {
        DaemonFootprint.daemonParts(home, parts);
        DaemonProcess.Run status = DaemonProcess.run(CotenantJar.locate(), home, config.getParent(), Duration.ofMinutes(1),
            "status", "--json");
        JsonNode s = DaemonProcess.JSON.readTree(status.out());
        placements = DaemonFootprint.placements(s);
        System.out.println("status:");
        status(s).forEach(l -> System.out.println("  " + l));
      }
      Set<Long> shims = new LinkedHashSet<>();
      Set<Long> direct = new LinkedHashSet<>();
      for (ClientPeer p : peers) {
        boolean shim = routedNames.contains(p.label.substring(p.label.indexOf('/') + 1));
        (shim ? shims : direct).addAll(ProcStats.tree(p.pid()));
      }
      if (home != null) {
        parts.put("shims", ProcStats.memory(shims));
        parts.put("servers left direct", ProcStats.memory(direct));
      } else {
        parts.put("servers", ProcStats.memory(direct));
      }
      counted.addAll(shims);
      counted.addAll(direct);
      return new Day(way, parts, seen, placements, servers);
    } finally {
      DaemonFootprint.closeAndCheck(peers, counted, way);
    }
  }

  /** The status lines that say what waits, what runs and why. */
  private static List<String> status(JsonNode s) {
    List<String> out = new ArrayList<>();
    s.path("servers").forEach(n -> out.add(String.format(Locale.ROOT, "%-20s sessions %d, waiting %d, attached %d%s",
        n.path("server").asString(), n.path("sessions").asInt(), n.path("waiting").asInt(), n.path("attached").asInt(),
        n.path("not_deferred").asString().isEmpty() ? "" : "; not deferred: " + n.path("not_deferred").asString())));
    s.path("backends").forEach(n -> out.add(String.format(Locale.ROOT, "backend %-20s %-9s %d sessions: %s",
        n.path("server").asString(), n.path("placement").asString(), n.path("sessions").asInt(),
        n.path("reason").asString())));
    return out;
  }


  /** Fails unless every call was answered and every routed session saw what its direct twin saw. */
  private static void check(Day direct, Day routed) {
    List<String> wrong = new ArrayList<>();
    for (Map.Entry<String, Seen> e : routed.seen().entrySet()) {
      Seen r = e.getValue();
      Seen d = direct.seen().get(e.getKey());
      if (r.callMicros() >= 0 && (r.call().containsKey("error") || d.call().containsKey("error"))) {
        wrong.add(e.getKey() + ": a call answered with an error (routed " + r.call() + ", direct " + d.call() + ")");
      }
      if (!Json.same(r.initialize().get("protocolVersion"), d.initialize().get("protocolVersion"))) {
        wrong.add(e.getKey() + ": answered protocol version " + r.initialize().get("protocolVersion") + ", direct "
            + d.initialize().get("protocolVersion"));
      }
      if (!Json.same(r.tools(), d.tools())) {
        wrong.add(e.getKey() + ": listed tools differently than direct");
      }
    }
    System.out.printf(Locale.ROOT, "%nchecked %d sessions × servers: %d calls answered, versions and listings as direct%s%n",
        routed.seen().size(), routed.seen().values().stream().filter(s -> s.callMicros() >= 0).count(),
        wrong.isEmpty() ? "" : ": NOT SO");
    if (!wrong.isEmpty()) {
      wrong.forEach(w -> System.out.println("  " + w));
      throw new IllegalStateException(wrong.size() + " differences from direct");
    }
  }

  private static void report(Day direct, Day routed) {
    ProcStats.Memory d = direct.total();
    ProcStats.Memory r = routed.total();
    System.out.printf(Locale.ROOT, "%n5 sessions × %d npm servers, 2 calls each; MiB%n", direct.servers().size());
    System.out.printf(Locale.ROOT, "  %-26s %9s %10s %10s%n", "part", "processes", "Pss", "Rss");
    direct.parts().forEach((part, m) -> System.out.printf(Locale.ROOT, "  %-26s %9d %10.1f %10.1f%n", "direct: " + part,
        m.processes(), m.pssMib(), m.rssMib()));
    routed.parts().forEach((part, m) -> System.out.printf(Locale.ROOT, "  %-26s %9d %10.1f %10.1f%n", "routed: " + part,
        m.processes(), m.pssMib(), m.rssMib()));
    System.out.printf(Locale.ROOT, "  %-26s %9d %10.1f %10.1f%n", "routed (all)", r.processes(), r.pssMib(), r.rssMib());
    System.out.printf(Locale.ROOT, "  routed / direct: Pss %.2f×, Rss %.2f×, processes %d vs %d%n",
        r.pssMib() / d.pssMib(), r.rssMib() / d.rssMib(), r.processes(), d.processes());
    System.out.println("  backends by server: " + routed.placements());
  }

  /**
   * Times {@code runs} first calls of {@code memory}: directly (start, initialize, first call) and
   * through the daemon on a deferred backend (initialize and tools/list answered from the records,
   * then the first call, which starts its backend).
   */
  private static void latency(int runs, Path original, Path routedConfig, Path home, Path workspace) throws Exception {
    JsonNode direct = DaemonProcess.JSON.readTree(original.toFile()).path("mcpServers").path("memory");
    JsonNode routed = DaemonProcess.JSON.readTree(routedConfig.toFile()).path("mcpServers").path("memory");
    ClientPeer.Kind kind = SESSIONS.get(1);
    List<Long> startInit = new ArrayList<>();
    List<Long> directFirst = new ArrayList<>();
    List<Long> deferredFirst = new ArrayList<>();
    for (int i = 0; i < runs; i++) {
      for (boolean viaDaemon : List.of(false, true)) {
        JsonNode entry = viaDaemon ? routed : direct;
        List<String> command = new ArrayList<>(List.of(entry.path("command").asString()));
        entry.path("args").forEach(a -> command.add(a.asString()));
        Map<String, String> env = viaDaemon ? new LinkedHashMap<>(DaemonProcess.env(home)) : new LinkedHashMap<>();
        if (!viaDaemon) {
          env.put("COTENANT_HOME", null);
          env.put("COTENANT_DAEMON_ID", null);
        }
        entry.path("env").properties().forEach(v -> env.put(v.getKey(), v.getValue().asString()));
        long t0 = System.nanoTime();
        ClientPeer p = ClientPeer.start("latency-" + i, kind, command, original.getParent(), env, workspace,
            ProcessBuilder.Redirect.DISCARD);
        try {
          p.initialize(BOUND);
          long initialized = System.nanoTime();
          p.request("tools/list", Map.of(), BOUND);
          long c0 = System.nanoTime();
          Map<String, Object> a = p.request("tools/call", CALL.get("memory"), BOUND);
          long c1 = System.nanoTime();
          if (a.containsKey("error")) {
            throw new IllegalStateException("the latency call failed: " + a);
          }
          if (viaDaemon) {
            deferredFirst.add(TimeUnit.NANOSECONDS.toMicros(c1 - c0));
          } else {
            startInit.add(TimeUnit.NANOSECONDS.toMicros(initialized - t0));
            directFirst.add(TimeUnit.NANOSECONDS.toMicros(c1 - c0));
          }
        } finally {
          p.closeAndAwait(Duration.ofSeconds(30));
        }
      }
    }
    long base = median(startInit);
    long deferred = median(deferredFirst);
    System.out.printf(Locale.ROOT, "%nfirst call of a new memory session, %d runs (median, min-max, ms):%n", runs);
    System.out.printf(Locale.ROOT, "  direct: start + initialize %.1f (%s), then its first call %.1f (%s)%n",
        base / 1000.0, range(startInit), median(directFirst) / 1000.0, range(directFirst));
    System.out.printf(Locale.ROOT, "  routed, deferred: first call %.1f (%s), starting its backend%n", deferred / 1000.0,
        range(deferredFirst));
    System.out.printf(Locale.ROOT, "  deferred first call − (direct start + initialize) = %+.1f ms (goal: ≤ +50)%n",
        (deferred - base) / 1000.0);
  }

  private static long median(List<Long> xs) {
    List<Long> s = new ArrayList<>(xs);
    Collections.sort(s);
    return s.isEmpty() ? 0 : s.get(s.size() / 2);
  }

  private static String range(List<Long> xs) {
    return String.format(Locale.ROOT, "%.1f–%.1f", Collections.min(xs) / 1000.0, Collections.max(xs) / 1000.0);
  }
}
