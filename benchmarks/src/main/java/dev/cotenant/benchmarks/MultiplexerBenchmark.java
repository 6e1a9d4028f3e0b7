package dev.cotenant.benchmarks;

import dev.cotenant.api.ServerDescription;
import dev.cotenant.gateway.Cotenant;
import dev.cotenant.gateway.mux.Attach;
import dev.cotenant.gateway.mux.ClientChannel;
import dev.cotenant.gateway.mux.ClientSink;
import dev.cotenant.gateway.mux.HazardSink;
import dev.cotenant.gateway.mux.Multiplexer;
import dev.cotenant.gateway.mux.MuxSettings;
import dev.cotenant.spi.HandshakeEra;
import dev.cotenant.spi.ServerSession;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Harness benchmark of the {@link Multiplexer} over one real backend process ({@link EchoServer},
 * a JVM spoken to over stdio by the default session transport). A plain main rather than JMH, so
 * that the direct and the multiplexed call can be interleaved call by call on the same backend:
 * background load on a shared machine then weighs on both alike.
 *
 * <ol>
 *   <li><b>Latency.</b> One {@code tools/call} at a time, alternately (the order flips every
 *       iteration) on the backend session directly ({@code session.request(...).get()}) and
 *       through the multiplexer ({@code channel.fromClient(...)}, then waiting for the answer to
 *       reach the client's sink under the client's id). Both go to the same backend process,
 *       which the multiplexer is bound to; a direct request bypasses the multiplexer entirely.
 *       Reports median, p90, p99, p99.9 and the added latency.
 *   <li><b>Throughput.</b> 1, 4 and 16 clients, each one thread keeping one call in flight at a
 *       time (closed loop), for a fixed duration after a warm-up: each client attached to the
 *       multiplexer with a channel of its own, and, for reference, the same number of threads
 *       calling the backend session directly.
 * </ol>
 *
 * <p>Every answer is checked (its text must be the call's arguments); the run fails on any wrong
 * or missing answer. The session transport bounds no backend's message count or bytes over its
 * life ({@code cotenant.session.*}), so the run's one backend serves every call.
 *
 * <p>Usage: {@code java -cp benchmarks/target/benchmarks.jar dev.cotenant.benchmarks.MultiplexerBenchmark
 * [latencyCalls] [warmupCalls] [throughputSeconds] [throughputWarmupSeconds]} (defaults 50000,
 * 20000, 10 and 2; latency and warm-up calls are per path).
 */
public final class MultiplexerBenchmark {
  private static final Map<String, Object> ARGUMENTS = Map.of("text", "hello");
  private static final String EXPECTED = "{\"text\":\"hello\"}";
  private static final long ANSWER_TIMEOUT_S = 10;

  private MultiplexerBenchmark() {}

  /** One way of making one call and waiting for its checked answer. */
  private interface Caller {
    void call() throws Exception;
  }

  /** A client attached to the multiplexer: its sink completes the future registered under each id. */
  private static final class Client implements ClientSink {
    final ConcurrentHashMap<Object, CompletableFuture<Map<String, Object>>> waiting = new ConcurrentHashMap<>();
    final AtomicLong unexpected = new AtomicLong();
    ClientChannel channel;
    long nextId;

    @Override
    public void send(Map<String, Object> message) {
      CompletableFuture<Map<String, Object>> f = message.containsKey("method") ? null : waiting.remove(message.get("id"));
      if (f == null) {
        unexpected.incrementAndGet();
      } else {
        f.complete(message);
      }
    }

    /** One call, waited for; the answer is checked outside the timed part by the caller. */
    long timedCall(Map<String, Object>[] answer) throws Exception {
      Long id = ++nextId;
      CompletableFuture<Map<String, Object>> f = new CompletableFuture<>();
      waiting.put(id, f);
      Map<String, Object> message = request(id);
      long start = System.nanoTime();
      channel.fromClient(message);
      Map<String, Object> a = f.get(ANSWER_TIMEOUT_S, TimeUnit.SECONDS);
      long ns = System.nanoTime() - start;
      answer[0] = a;
      return ns;
    }
  }

  /** Entry point. */
  public static void main(String[] args) throws Exception {
    int latencyCalls = args.length > 0 ? Integer.parseInt(args[0]) : 50_000;
    int warmupCalls = args.length > 1 ? Integer.parseInt(args[1]) : 20_000;
    int seconds = args.length > 2 ? Integer.parseInt(args[2]) : 10;
    int warmSeconds = args.length > 3 ? Integer.parseInt(args[3]) : 2;
    System.out.printf(Locale.ROOT, "cores=%d java=%s latencyCalls=%d warmupCalls=%d throughput=%ds after %ds%n",
        Runtime.getRuntime().availableProcessors(), System.getProperty("java.version"), latencyCalls, warmupCalls,
        seconds, warmSeconds);
    System.out.println("load at start: " + loadAverage());

    Path records = Files.createTempDirectory("cotenant-mux-bench");
    Cotenant runtime = Cotenant.builder()
        .recordsDirectory(records)
        .build();
    ServerDescription echo = EchoServer.description("echo");
    Multiplexer mux = new Multiplexer("echo", HazardSink.ignoring(), MuxSettings.defaults());
    ServerSession session = runtime.sessionTransport().open(echo, "mux-benchmark", mux);
    long pid = session.pid().orElseThrow();
    try {
      Map<String, Object> answer = session.handshake(HandshakeEra.INITIALIZE, Map.of("name", "bench", "version", "1"),
          Map.of(), Duration.ofSeconds(30));
      mux.bind(session, answer, HandshakeEra.INITIALIZE);
      Map<String, Object> initializeParams = new LinkedHashMap<>();
      initializeParams.put("protocolVersion", answer.get("protocolVersion"));
      initializeParams.put("capabilities", Map.of());
      initializeParams.put("clientInfo", Map.of("name", "bench-client", "version", "1"));

      latency(session, mux, initializeParams, latencyCalls, warmupCalls);
      throughput(session, mux, initializeParams, seconds, warmSeconds);

      System.out.printf(Locale.ROOT, "%nmultiplexer: %d calls forwarded, %d hazards observed%n", mux.calls(), mux.hazards());
      System.out.println("load at end: " + loadAverage());
    } finally {
      mux.close();
      session.close();
      deleteTree(records);
    }
    boolean gone = ProcessHandle.of(pid).map(h -> !h.isAlive()).orElse(true);
    System.out.println("backend process " + pid + (gone ? " gone" : " STILL ALIVE"));
    if (!gone) {
      System.exit(1);
    }
  }

  // ---- latency ----

  private static void latency(ServerSession session, Multiplexer mux, Map<String, Object> initializeParams, int calls,
      int warmup) throws Exception {
    Client client = attach(mux, "latency", initializeParams);
    Map<String, Object> params = params();
    @SuppressWarnings("unchecked")
    Map<String, Object>[] answer = new Map[1];
    long[] direct = new long[calls];
    long[] muxed = new long[calls];
    for (int i = -warmup; i < calls; i++) {
      long d;
      long m;
      if ((i & 1) == 0) {
        d = directCall(session, params, answer);
        check(answer[0]);
        m = client.timedCall(answer);
        check(answer[0]);
      } else {
        m = client.timedCall(answer);
        check(answer[0]);
        d = directCall(session, params, answer);
        check(answer[0]);
      }
      if (i >= 0) {
        direct[i] = d;
        muxed[i] = m;
      }
    }
    client.channel.close();
    if (client.unexpected.get() != 0) {
      throw new IllegalStateException(client.unexpected.get() + " unexpected messages reached the client");
    }
    double directMean = Arrays.stream(direct).average().orElse(0);
    double muxedMean = Arrays.stream(muxed).average().orElse(0);
    Arrays.sort(direct);
    Arrays.sort(muxed);
    System.out.printf(Locale.ROOT, "%nlatency of one tools/call, %d calls per path after %d warm-up calls each (µs)%n",
        calls, warmup);
    System.out.printf(Locale.ROOT, "  %-26s %9s %9s %9s %9s %9s%n", "", "median", "p90", "p99", "p99.9", "mean");
    row("direct session", direct);
    row("through multiplexer", muxed);
    System.out.printf(Locale.ROOT, "  %-26s %9.1f %9.1f %9.1f %9.1f %9.1f%n", "added by the multiplexer",
        us(pct(muxed, 0.5) - pct(direct, 0.5)), us(pct(muxed, 0.9) - pct(direct, 0.9)),
        us(pct(muxed, 0.99) - pct(direct, 0.99)), us(pct(muxed, 0.999) - pct(direct, 0.999)),
        (muxedMean - directMean) / 1_000.0);
    System.out.println("  load after latency: " + loadAverage());
  }

  private static long directCall(ServerSession session, Map<String, Object> params, Map<String, Object>[] answer)
      throws Exception {
    long start = System.nanoTime();
    Map<String, Object> a = session.request("tools/call", params).get(ANSWER_TIMEOUT_S, TimeUnit.SECONDS);
    long ns = System.nanoTime() - start;
    answer[0] = a;
    return ns;
  }

  // ---- throughput ----

  private static void throughput(ServerSession session, Multiplexer mux, Map<String, Object> initializeParams,
      int seconds, int warmSeconds) throws Exception {
    System.out.printf(Locale.ROOT, "%nthroughput, closed loop, one call in flight per client, %d s measured after %d s"
        + " warm-up%n", seconds, warmSeconds);
    System.out.printf(Locale.ROOT, "  %-34s %12s %10s %10s  %s%n", "", "calls/s", "median µs", "p99 µs", "load");
    Map<String, Object> params = params();
    for (int n : new int[] {1, 4, 16}) {
      List<Caller> direct = new ArrayList<>();
      for (int k = 0; k < n; k++) {
        @SuppressWarnings("unchecked")
        Map<String, Object>[] answer = new Map[1];
        direct.add(() -> {
          directCall(session, params, answer);
          check(answer[0]);
        });
      }
      closedLoop(String.format(Locale.ROOT, "direct session, %2d threads", n), direct, seconds, warmSeconds);

      List<Client> clients = new ArrayList<>();
      List<Caller> muxed = new ArrayList<>();
      for (int k = 0; k < n; k++) {
        Client c = attach(mux, "throughput-" + n + "-" + k, initializeParams);
        clients.add(c);
        @SuppressWarnings("unchecked")
        Map<String, Object>[] answer = new Map[1];
        muxed.add(() -> {
          c.timedCall(answer);
          check(answer[0]);
        });
      }
      closedLoop(String.format(Locale.ROOT, "through multiplexer, %2d clients", n), muxed, seconds, warmSeconds);
      for (Client c : clients) {
        c.channel.close();
        if (c.unexpected.get() != 0) {
          throw new IllegalStateException(c.unexpected.get() + " unexpected messages reached a client");
        }
      }
    }
  }

  /** Runs each caller on a thread of its own for the warm-up and the measured time; prints the row. */
  private static void closedLoop(String label, List<Caller> callers, int seconds, int warmSeconds) throws Exception {
    int n = callers.size();
    CountDownLatch ready = new CountDownLatch(n);
    CountDownLatch go = new CountDownLatch(1);
    long[][] samples = new long[n][];
    int[] counts = new int[n];
    AtomicReference<Throwable> failure = new AtomicReference<>();
    long[] window = new long[2];
    List<Thread> threads = new ArrayList<>();
    for (int k = 0; k < n; k++) {
      int index = k;
      Thread t = new Thread(() -> {
        long[] mine = new long[1 << 16];
        int count = 0;
        ready.countDown();
        try {
          go.await();
          long from = window[0];
          long until = window[1];
          Caller caller = callers.get(index);
          while (true) {
            long start = System.nanoTime();
            if (start >= until) {
              break;
            }
            caller.call();
            if (start >= from) {
              if (count == mine.length) {
                mine = Arrays.copyOf(mine, mine.length * 2);
              }
              mine[count++] = System.nanoTime() - start;
            }
          }
        } catch (Throwable e) {
          failure.compareAndSet(null, e);
        }
        samples[index] = mine;
        counts[index] = count;
      }, "bench-client-" + k);
      threads.add(t);
      t.start();
    }
    ready.await();
    long now = System.nanoTime();
    window[0] = now + TimeUnit.SECONDS.toNanos(warmSeconds);
    window[1] = window[0] + TimeUnit.SECONDS.toNanos(seconds);
    go.countDown();
    for (Thread t : threads) {
      t.join();
    }
    if (failure.get() != null) {
      throw new IllegalStateException(label + " failed", failure.get());
    }
    int total = 0;
    for (int c : counts) {
      total += c;
    }
    long[] all = new long[total];
    int at = 0;
    for (int k = 0; k < n; k++) {
      System.arraycopy(samples[k], 0, all, at, counts[k]);
      at += counts[k];
    }
    Arrays.sort(all);
    System.out.printf(Locale.ROOT, "  %-34s %12.0f %10.1f %10.1f  %s%n", label, total / (double) seconds,
        us(pct(all, 0.5)), us(pct(all, 0.99)), loadAverage());
  }

  // ---- helpers ----

  private static Client attach(Multiplexer mux, String sessionId, Map<String, Object> initializeParams) {
    Client c = new Client();
    Attach a = mux.attach(sessionId, initializeParams, c);
    if (!(a instanceof Attach.Attached)) {
      throw new IllegalStateException("the multiplexer refused " + sessionId + ": " + ((Attach.NeedsDedicated) a).why());
    }
    c.channel = ((Attach.Attached) a).channel();
    return c;
  }

  private static Map<String, Object> params() {
    Map<String, Object> params = new LinkedHashMap<>();
    params.put("name", "echo");
    params.put("arguments", ARGUMENTS);
    return params;
  }

  private static Map<String, Object> request(Object id) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("jsonrpc", "2.0");
    m.put("id", id);
    m.put("method", "tools/call");
    m.put("params", params());
    return m;
  }

  /** Fails unless {@code answer} is a result whose one text item is the call's arguments. */
  static void check(Map<String, Object> answer) {
    Object result = answer.get("result");
    if (result instanceof Map<?, ?>) {
      Object content = ((Map<?, ?>) result).get("content");
      if (content instanceof List<?> && ((List<?>) content).size() == 1
          && ((List<?>) content).get(0) instanceof Map<?, ?>
          && EXPECTED.equals(((Map<?, ?>) ((List<?>) content).get(0)).get("text"))) {
        return;
      }
    }
    throw new IllegalStateException("unexpected answer: " + answer);
  }

  private static void row(String label, long[] sorted) {
    double mean = Arrays.stream(sorted).average().orElse(0);
    System.out.printf(Locale.ROOT, "  %-26s %9.1f %9.1f %9.1f %9.1f %9.1f%n", label, us(pct(sorted, 0.5)),
        us(pct(sorted, 0.9)), us(pct(sorted, 0.99)), us(pct(sorted, 0.999)), us((long) mean));
  }

  /** The {@code q} quantile of sorted values (nearest rank). */
  static long pct(long[] sorted, double q) {
    if (sorted.length == 0) {
      return 0;
    }
    int rank = (int) Math.ceil(q * sorted.length);
    return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
  }

  private static double us(long nanos) {
    return nanos / 1_000.0;
  }

  /** Deletes a directory and whatever is in it, quietly. */
  static void deleteTree(Path dir) {
    try (java.util.stream.Stream<Path> walk = Files.walk(dir)) {
      walk.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (java.io.IOException e) {
      // Only a temporary directory is left behind.
    }
  }

  /** The 1-, 5- and 15-minute load averages, from /proc/loadavg ("?" where it cannot be read). */
  static String loadAverage() {
    try {
      String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
      return f[0] + " " + f[1] + " " + f[2];
    } catch (java.io.IOException | RuntimeException e) {
      return "?";
    }
  }
}
