package dev.cotenant.benchmarks;

import dev.cotenant.api.ServerDescription;
import dev.cotenant.gateway.Cotenant;
import dev.cotenant.gateway.pool.EntrySnapshot;
import dev.cotenant.gateway.pool.Placement;
import dev.cotenant.gateway.pool.PoolSettings;
import dev.cotenant.gateway.sharing.ClientSession;
import dev.cotenant.gateway.sharing.Sharing;
import dev.cotenant.gateway.sharing.SharingSettings;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;

/**
 * Harness benchmark of what sharing backends saves: {@code sessions} client sessions on each of
 * {@code servers} servers (4 names, each running the same {@link EchoServer} JVM), connected
 * through {@link Sharing#connect}, each sending {@code initialize},
 * {@code notifications/initialized} and one {@code tools/call} (whose answer must echo the
 * session's own id). Run twice, each with a {@link Sharing} of its own:
 *
 * <ul>
 *   <li><b>pooled</b>: every server forced shared ({@value SharingSettings#FORCED}), so one backend
 *       per server;
 *   <li><b>dedicated</b>: nothing forced and sharing off, so one backend per session.
 * </ul>
 *
 * <p>Then the backend processes are counted (every pid in {@link Sharing#accounting()} and their
 * descendants) and their memory summed: resident set ({@code VmRSS} of {@code /proc/<pid>/status},
 * which counts pages shared between the JVMs, such as the JDK's libraries and class-data archive,
 * once per process) and proportional set ({@code Pss} of {@code /proc/<pid>/smaps_rollup}, which
 * splits each shared page between the processes mapping it). Finally everything is torn down
 * ({@link Sharing#close()}) and the run fails if any backend, or any other process this JVM
 * started, is still alive.
 *
 * <p>The spawn budget ({@value PoolSettings#SPAWN_BUDGET}, default 32 live backends) is raised to
 * {@code sessions × servers + servers} so that the dedicated run fits.
 *
 * <p>Usage: {@code java -cp benchmarks/target/benchmarks.jar
 * dev.cotenant.benchmarks.PooledMemoryBenchmark [sessions] [servers]} (defaults 10 and 4).
 */
public final class PooledMemoryBenchmark {
  private static final long ANSWER_TIMEOUT_S = 30;

  private PooledMemoryBenchmark() {}

  /** What one run found. */
  private record Measured(String label, int entries, int processes, long rssKb, long pssKb, double connectMs,
      double teardownMs) {}

  /** One client session: its sink completes the future registered under each request id. */
  private static final class Client {
    final ConcurrentHashMap<Object, CompletableFuture<Map<String, Object>>> waiting = new ConcurrentHashMap<>();

    void receive(Map<String, Object> message) {
      CompletableFuture<Map<String, Object>> f = message.containsKey("method") ? null : waiting.remove(message.get("id"));
      if (f != null) {
        f.complete(message);
      }
    }

    Map<String, Object> call(ClientSession c, int id, String method, Map<String, Object> params) throws Exception {
      CompletableFuture<Map<String, Object>> f = new CompletableFuture<>();
      waiting.put(id, f);
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("jsonrpc", "2.0");
      m.put("id", id);
      m.put("method", method);
      m.put("params", params);
      c.fromClient(m);
      try {
        return f.get(ANSWER_TIMEOUT_S, TimeUnit.SECONDS);
      } catch (TimeoutException e) {
        throw new IllegalStateException(method + " got no answer in " + ANSWER_TIMEOUT_S + " s", e);
      }
    }
  }

  /** Entry point. */
  public static void main(String[] args) throws Exception {
    int sessions = args.length > 0 ? Integer.parseInt(args[0]) : 10;
    int servers = args.length > 1 ? Integer.parseInt(args[1]) : 4;
    System.out.printf(Locale.ROOT, "cores=%d java=%s sessions=%d per server, servers=%d%n",
        Runtime.getRuntime().availableProcessors(), System.getProperty("java.version"), sessions, servers);
    System.out.println("load at start: " + MultiplexerBenchmark.loadAverage());
    List<ServerDescription> echo = new ArrayList<>();
    for (int s = 0; s < servers; s++) {
      echo.add(EchoServer.description("echo-" + (char) ('a' + s)));
    }
    String names = echo.stream().map(ServerDescription::name).collect(Collectors.joining(","));

    Measured pooled = run("pooled", echo, sessions, names, servers);
    Measured dedicated = run("dedicated", echo, sessions, null, servers * sessions);

    System.out.printf(Locale.ROOT, "%n%-34s %12s %12s %8s%n", "", pooled.label(), dedicated.label(), "ratio");
    line("backends in the accounting", pooled.entries(), dedicated.entries());
    line("backend processes", pooled.processes(), dedicated.processes());
    System.out.printf(Locale.ROOT, "%-34s %12.1f %12.1f %8.2f%n", "resident memory, VmRSS sum (MiB)", mb(pooled.rssKb()),
        mb(dedicated.rssKb()), dedicated.rssKb() / (double) pooled.rssKb());
    System.out.printf(Locale.ROOT, "%-34s %12.1f %12.1f %8.2f%n", "proportional memory, Pss sum (MiB)", mb(pooled.pssKb()),
        mb(dedicated.pssKb()), dedicated.pssKb() / (double) pooled.pssKb());
    System.out.printf(Locale.ROOT, "%-34s %12.1f %12.1f%n", "VmRSS per process (MiB)", mb(pooled.rssKb()) / pooled.processes(),
        mb(dedicated.rssKb()) / dedicated.processes());
    System.out.printf(Locale.ROOT, "%-34s %12.0f %12.0f%n", "connect + calls, wall (ms)", pooled.connectMs(),
        dedicated.connectMs());
    System.out.printf(Locale.ROOT, "%-34s %12.0f %12.0f%n", "teardown, wall (ms)", pooled.teardownMs(), dedicated.teardownMs());
    System.out.println("load at end: " + MultiplexerBenchmark.loadAverage());
  }

  private static Measured run(String label, List<ServerDescription> echo, int sessions, String forced, int expected)
      throws Exception {
    Path records = Files.createTempDirectory("cotenant-pool-bench");
    Map<String, String> config = new HashMap<>();
    config.put(PoolSettings.SPAWN_BUDGET, String.valueOf(echo.size() * sessions + echo.size()));
    if (forced != null) {
      config.put(SharingSettings.FORCED, forced);
    }
    Sharing sharing = Cotenant.builder().recordsDirectory(records).config(config).build().sharing();
    List<ClientSession> connections = new ArrayList<>();
    Map<String, Set<Long>> pidsByServer = new LinkedHashMap<>();
    Set<Long> pids = new LinkedHashSet<>();
    Measured m;
    try {
      long start = System.nanoTime();
      for (ServerDescription server : echo) {
        for (int k = 0; k < sessions; k++) {
          String sessionId = server.name() + "-session-" + k;
          Map<String, Object> initialize = new LinkedHashMap<>();
          initialize.put("protocolVersion", "2025-06-18");
          initialize.put("capabilities", Map.of());
          initialize.put("clientInfo", Map.of("name", "bench-client", "version", "1"));
          Client client = new Client();
          ClientSession c = sharing.connect(server, sessionId, initialize, client::receive);
          connections.add(c);
          Map<String, Object> init = client.call(c, 1, "initialize", initialize);
          if (!(init.get("result") instanceof Map<?, ?>)) {
            throw new IllegalStateException(sessionId + ": initialize answered " + init);
          }
          Map<String, Object> initialized = new LinkedHashMap<>();
          initialized.put("jsonrpc", "2.0");
          initialized.put("method", "notifications/initialized");
          c.fromClient(initialized);
          Map<String, Object> call = client.call(c, 2, "tools/call",
              Map.of("name", "echo", "arguments", Map.of("session", sessionId)));
          String expectedText = "{\"session\":\"" + sessionId + "\"}";
          if (!expectedText.equals(text(call))) {
            throw new IllegalStateException(sessionId + ": tools/call answered " + call);
          }
          Placement wanted = forced != null ? Placement.SHARED : Placement.DEDICATED;
          if (c.placement().placement() != wanted) {
            throw new IllegalStateException(sessionId + " was placed " + c.placement());
          }
          pidsByServer.computeIfAbsent(server.name(), n -> new LinkedHashSet<>()).add(c.backendPid().orElseThrow());
        }
      }
      double connectMs = (System.nanoTime() - start) / 1e6;

      List<EntrySnapshot> accounting = sharing.accounting();
      for (EntrySnapshot e : accounting) {
        e.pid().ifPresent(pids::add);
      }
      Set<Long> processes = new LinkedHashSet<>(pids);
      for (long pid : pids) {
        ProcessHandle.of(pid).ifPresent(h -> h.descendants().forEach(d -> processes.add(d.pid())));
      }
      long rss = 0;
      long pss = 0;
      for (long pid : processes) {
        rss += kb(Path.of("/proc", String.valueOf(pid), "status"), "VmRSS:");
        pss += kb(Path.of("/proc", String.valueOf(pid), "smaps_rollup"), "Pss:");
      }
      long started = ProcessHandle.current().descendants().filter(ProcessHandle::isAlive).count();
      System.out.printf(Locale.ROOT, "%n%s: %d sessions connected in %.0f ms; %d backends in the accounting, %d backend"
          + " processes (%d descendants of this JVM), VmRSS %.1f MiB, Pss %.1f MiB; load %s%n", label, connections.size(),
          connectMs, accounting.size(), processes.size(), started, mb(rss), mb(pss), MultiplexerBenchmark.loadAverage());
      pidsByServer.forEach((name, p) -> System.out.printf(Locale.ROOT, "  %s: %d sessions on %d backend process(es)%n",
          name, sessions, p.size()));
      if (accounting.size() != expected || processes.size() != expected || started != expected) {
        throw new IllegalStateException(label + ": expected " + expected + " backends, the accounting lists "
            + accounting.size() + ", " + processes.size() + " processes, " + started + " descendants");
      }

      long down = System.nanoTime();
      connections.forEach(ClientSession::close);
      sharing.close();
      int alive = 0;
      for (long pid : pids) {
        java.util.Optional<ProcessHandle> h = ProcessHandle.of(pid);
        if (h.isPresent()) {
          try {
            h.get().onExit().get(10, TimeUnit.SECONDS);
          } catch (TimeoutException e) {
            alive++;
          }
        }
      }
      double teardownMs = (System.nanoTime() - down) / 1e6;
      long left = ProcessHandle.current().descendants().filter(ProcessHandle::isAlive).count();
      System.out.printf(Locale.ROOT, "  torn down in %.0f ms: %d backend processes and %d descendants of this JVM left"
          + " alive%n", teardownMs, alive, left);
      if (alive != 0 || left != 0) {
        throw new IllegalStateException(label + ": processes left alive after teardown");
      }
      m = new Measured(label, accounting.size(), processes.size(), rss, pss, connectMs, teardownMs);
    } finally {
      connections.forEach(ClientSession::close);
      sharing.close();
      MultiplexerBenchmark.deleteTree(records);
    }
    return m;
  }

  /** The text of the one content item of a tools/call answer; null when it has no such item. */
  private static String text(Map<String, Object> answer) {
    Object result = answer.get("result");
    Object content = result instanceof Map<?, ?> ? ((Map<?, ?>) result).get("content") : null;
    if (content instanceof List<?> && ((List<?>) content).size() == 1 && ((List<?>) content).get(0) instanceof Map<?, ?>) {
      Object text = ((Map<?, ?>) ((List<?>) content).get(0)).get("text");
      return text instanceof String ? (String) text : null;
    }
    return null;
  }

  /** The kB value of the line starting with {@code key} in a /proc file; 0 when the process is gone. */
  private static long kb(Path file, String key) {
    try {
      for (String line : Files.readAllLines(file)) {
        if (line.startsWith(key)) {
          return Long.parseLong(line.substring(key.length()).trim().split("\\s+")[0]);
        }
      }
    } catch (IOException | RuntimeException e) {
      // A process that is gone holds no memory.
    }
    return 0;
  }

  private static void line(String label, int pooled, int dedicated) {
    System.out.printf(Locale.ROOT, "%-34s %12d %12d %8.2f%n", label, pooled, dedicated, dedicated / (double) pooled);
  }

  private static double mb(long kb) {
    return kb / 1024.0;
  }
}
