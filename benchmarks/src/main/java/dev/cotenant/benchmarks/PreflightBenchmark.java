package dev.cotenant.benchmarks;

import dev.cotenant.api.ServerDescription;
import dev.cotenant.providers.preflight.PreflightSettings;
import dev.cotenant.providers.preflight.StdioPreflightTransport;
import dev.cotenant.spi.PreflightResult;
import dev.cotenant.spi.ProviderConfig;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Harness benchmark of the stdio pre-flight (a plain main: each sample spawns processes, which is
 * not what JMH's harness is built for). In the same run and interleaved, it measures:
 *
 * <ol>
 *   <li>one raw handshake of a server: spawn, {@code initialize}, {@code notifications/initialized},
 *       {@code tools/list}, close stdin, wait for the exit — what any client pays once;
 *   <li>a whole pre-flight of the same server in the default {@code auto} era (two concurrent
 *       callers, each asking {@code server/discover} first, then the fallback, then teardown);
 *   <li>the same pre-flight forced to the {@code initialize} era;
 * </ol>
 *
 * <p>for a JVM echo server ({@link PreflightEchoServer}) and for a {@code sh} echo server (whose
 * near-zero start-up exposes the pre-flight's own overhead); then a pass of 20 pre-flights
 * submitted at once to one transport under its default process ceiling, sampling how many server
 * processes were alive at once.
 *
 * <p>Usage: {@code java -cp <benchmarks classpath> dev.cotenant.benchmarks.PreflightBenchmark
 * [iterations] [warmup]} (defaults 15 and 3).
 */
public final class PreflightBenchmark {
  private static final String JAVA = Paths.get(System.getProperty("java.home"), "bin", "java").toString();

  private static final String SH_ECHO = String.join("\n",
      "while IFS= read -r line; do",
      "  id=${line#*\\\"id\\\":}; id=${id%%,*}",
      "  case \"$line\" in",
      "    *'\"method\":\"notifications/'*) ;;",
      "    *'\"method\":\"initialize\"'*) printf '%s\\n' \"{\\\"jsonrpc\\\":\\\"2.0\\\",\\\"id\\\":$id,"
          + "\\\"result\\\":{\\\"protocolVersion\\\":\\\"2025-06-18\\\",\\\"capabilities\\\":{\\\"tools\\\":{}},"
          + "\\\"serverInfo\\\":{\\\"name\\\":\\\"echo\\\",\\\"version\\\":\\\"1\\\"}}}\" ;;",
      "    *'\"method\":\"tools/list\"'*) printf '%s\\n' \"{\\\"jsonrpc\\\":\\\"2.0\\\",\\\"id\\\":$id,"
          + "\\\"result\\\":{\\\"tools\\\":[{\\\"name\\\":\\\"echo\\\",\\\"inputSchema\\\":{}}]}}\" ;;",
      "    *) printf '%s\\n' \"{\\\"jsonrpc\\\":\\\"2.0\\\",\\\"id\\\":$id,"
          + "\\\"error\\\":{\\\"code\\\":-32601,\\\"message\\\":\\\"Method not found\\\"}}\" ;;",
      "  esac",
      "done");

  private PreflightBenchmark() {}

  /** Entry point. */
  public static void main(String[] args) throws Exception {
    int iterations = args.length > 0 ? Integer.parseInt(args[0]) : 15;
    int warmup = args.length > 1 ? Integer.parseInt(args[1]) : 3;
    System.out.printf(Locale.ROOT, "cores=%d java=%s iterations=%d warmup=%d%n",
        Runtime.getRuntime().availableProcessors(), System.getProperty("java.version"), iterations, warmup);

    StdioPreflightTransport auto = StdioPreflightTransport.stdio(PreflightSettings.defaults());
    StdioPreflightTransport initialize = StdioPreflightTransport.stdio(
        PreflightSettings.from(ProviderConfig.of(Map.of(PreflightSettings.ERA, "initialize"))));

    ServerDescription jvmEcho = ServerDescription.stdio("echo-jvm", JAVA, "-XX:TieredStopAtLevel=1",
        "-XX:+UseSerialGC", "-XX:-UsePerfData", "-Xshare:auto", "-cp", System.getProperty("java.class.path"),
        PreflightEchoServer.class.getName());
    ServerDescription shEcho = ServerDescription.stdio("echo-sh", "sh", "-c", SH_ECHO);

    compare("JVM echo server", jvmEcho, auto, initialize, iterations, warmup);
    compare("sh echo server", shEcho, auto, initialize, iterations, warmup);
    pass(jvmEcho, 20);
  }

  private static void compare(String label, ServerDescription server, StdioPreflightTransport auto,
      StdioPreflightTransport initialize, int iterations, int warmup) throws Exception {
    List<Double> raw = new ArrayList<>();
    List<Double> pfAuto = new ArrayList<>();
    List<Double> pfInit = new ArrayList<>();
    List<Double> twoRaw = new ArrayList<>();
    for (int i = 0; i < warmup + iterations; i++) {
      // The order rotates so that no variant always follows the same one.
      double r = 0;
      double a = 0;
      double n = 0;
      double t = 0;
      for (int k = 0; k < 4; k++) {
        switch ((i + k) % 4) {
          case 0:
            r = rawHandshake(server);
            break;
          case 1:
            a = timed(auto, server);
            break;
          case 2:
            t = twoRawHandshakesAtOnce(server);
            break;
          default:
            n = timed(initialize, server);
        }
      }
      if (i >= warmup) {
        raw.add(r);
        pfAuto.add(a);
        pfInit.add(n);
        twoRaw.add(t);
      }
    }
    double rawMedian = median(raw);
    System.out.printf(Locale.ROOT, "%n%s (median / p90 over %d, ms)%n", label, iterations);
    System.out.printf(Locale.ROOT, "  raw handshake            %8.1f / %8.1f%n", rawMedian, p90(raw));
    System.out.printf(Locale.ROOT, "  two raw handshakes at once %6.1f / %8.1f   ratio %.2f (the floor for two concurrent spawns)%n",
        median(twoRaw), p90(twoRaw), median(twoRaw) / rawMedian);
    System.out.printf(Locale.ROOT, "  pre-flight, auto era     %8.1f / %8.1f   ratio %.2f%n", median(pfAuto), p90(pfAuto),
        median(pfAuto) / rawMedian);
    System.out.printf(Locale.ROOT, "  pre-flight, initialize   %8.1f / %8.1f   ratio %.2f%n", median(pfInit), p90(pfInit),
        median(pfInit) / rawMedian);
  }

  private static double timed(StdioPreflightTransport transport, ServerDescription server) throws InterruptedException {
    long start = System.nanoTime();
    PreflightResult r = transport.preflight(server);
    double ms = (System.nanoTime() - start) / 1e6;
    if (!r.ran() || r.callerSensitive()) {
      throw new IllegalStateException("the benchmark server did not pre-flight cleanly: " + r);
    }
    return ms;
  }

  /**
   * Two raw handshakes of the same server started together, timed until both end: what any
   * pre-flight that spawns its two callers concurrently costs at the least on this machine.
   */
  static double twoRawHandshakesAtOnce(ServerDescription server) throws Exception {
    long start = System.nanoTime();
    java.util.concurrent.ExecutorService two = java.util.concurrent.Executors.newFixedThreadPool(2);
    try {
      java.util.concurrent.Future<Double> first = two.submit(() -> rawHandshake(server));
      java.util.concurrent.Future<Double> second = two.submit(() -> rawHandshake(server));
      first.get();
      second.get();
    } finally {
      two.shutdownNow();
    }
    return (System.nanoTime() - start) / 1e6;
  }

  /** One client's handshake, written by hand: spawn, initialize, initialized, tools/list, close, exit. */
  static double rawHandshake(ServerDescription server) throws IOException, InterruptedException {
    long start = System.nanoTime();
    List<String> cmd = new ArrayList<>();
    cmd.add(server.command());
    cmd.addAll(server.args());
    Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD).start();
    try (OutputStream out = p.getOutputStream();
        BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
      send(out, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\","
          + "\"capabilities\":{},\"clientInfo\":{\"name\":\"raw\",\"version\":\"1\"}}}");
      expect(in, "\"id\":1");
      send(out, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
      send(out, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\",\"params\":{}}");
      expect(in, "\"id\":2");
      out.close();
      if (!p.waitFor(10, TimeUnit.SECONDS)) {
        throw new IllegalStateException("the server did not exit after stdin closed");
      }
    } finally {
      p.destroyForcibly();
    }
    return (System.nanoTime() - start) / 1e6;
  }

  private static void send(OutputStream out, String json) throws IOException {
    out.write((json + "\n").getBytes(StandardCharsets.UTF_8));
    out.flush();
  }

  private static void expect(BufferedReader in, String marker) throws IOException {
    String line;
    while ((line = in.readLine()) != null) {
      if (line.contains(marker)) {
        return;
      }
    }
    throw new IOException("the server closed stdout before answering " + marker);
  }

  /** Pre-flights {@code count} servers submitted at once to one transport with the default ceiling. */
  private static void pass(ServerDescription template, int count) throws Exception {
    StdioPreflightTransport transport = StdioPreflightTransport.stdio(PreflightSettings.defaults());
    AtomicBoolean sampling = new AtomicBoolean(true);
    AtomicInteger peak = new AtomicInteger();
    Thread sampler = new Thread(() -> {
      while (sampling.get()) {
        int alive = (int) ProcessHandle.current().children().filter(ProcessHandle::isAlive).count();
        peak.accumulateAndGet(alive, Math::max);
        java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
      }
    });
    sampler.setDaemon(true);
    sampler.start();
    ExecutorService pool = Executors.newFixedThreadPool(count);
    long start = System.nanoTime();
    List<Future<PreflightResult>> futures = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      ServerDescription s = new ServerDescription(String.format(Locale.ROOT, "%s-%02d", template.name(), i),
          template.transport(), template.command(), template.args(), template.cwd(), template.env(), template.url(), true);
      futures.add(pool.submit(() -> transport.preflight(s)));
    }
    int ran = 0;
    for (Future<PreflightResult> f : futures) {
      if (f.get().ran()) {
        ran++;
      }
    }
    double ms = (System.nanoTime() - start) / 1e6;
    sampling.set(false);
    sampler.join();
    pool.shutdown();
    System.out.printf(Locale.ROOT, "%npass over %d servers (JVM echo), ceiling %d processes%n", count,
        transport.settings().maxProcesses());
    System.out.printf(Locale.ROOT, "  wall time %.0f ms, %d ran, peak server processes alive at once: %d%n", ms, ran, peak.get());
  }

  private static double median(List<Double> values) {
    List<Double> sorted = new ArrayList<>(values);
    Collections.sort(sorted);
    int n = sorted.size();
    return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
  }

  private static double p90(List<Double> values) {
    List<Double> sorted = new ArrayList<>(values);
    Collections.sort(sorted);
    return sorted.get(Math.min(sorted.size() - 1, (int) Math.ceil(sorted.size() * 0.9) - 1));
  }
}
