package dev.cotenant.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@code cotenant serve} run in the foreground as one process, with the JVM options a shim starts
 * a daemon with, in a Cotenant home of its own
 * ({@code COTENANT_HOME}, with a {@code COTENANT_DAEMON_ID} so it neither detaches nor shares a
 * home with anything else), and the one-off commands ({@code status}, {@code measure}, ...) run in
 * the same home. {@link #stop} sends SIGTERM, which drains every backend, and checks that the
 * daemon and everything it started are gone.
 */
final class DaemonProcess implements AutoCloseable {
  static final JsonMapper JSON = JsonMapper.builder().build();
  private static final Duration READY = Duration.ofSeconds(60);

  final CotenantJar cotenant;
  final Path home;
  final Process process;
  /** The watchdog's pid, from {@code daemon.json}; -1 when it has none. */
  final long watchdogPid;
  /** Every process seen below the daemon (recorded by {@link #descendants()}), to check at stop. */
  private final Set<Long> seen = new LinkedHashSet<>();

  private DaemonProcess(CotenantJar cotenant, Path home, Process process, long watchdogPid) {
    this.cotenant = cotenant;
    this.home = home;
    this.process = process;
    this.watchdogPid = watchdogPid;
  }

  /** A fresh home under {@code /tmp} (a Unix socket path must stay under 108 bytes). */
  static Path newHome(String prefix) throws IOException {
    return Files.createTempDirectory(Path.of("/tmp"), prefix);
  }

  /** The environment of every process run in {@code home}. */
  static Map<String, String> env(Path home) {
    Map<String, String> env = new LinkedHashMap<>();
    env.put("COTENANT_HOME", home.toString());
    env.put("COTENANT_DAEMON_ID", null);
    return env;
  }

  /**
   * Runs {@code cotenant serve ARGS} in {@code home} with working directory {@code cwd} and waits
   * until its {@code daemon.json} names it; its standard error goes to {@code home/serve.err}.
   */
  static DaemonProcess start(CotenantJar cotenant, Path home, Path cwd, List<String> args) throws Exception {
    List<String> serve = new ArrayList<>(List.of("serve"));
    serve.addAll(args);
    Map<String, String> env = env(home);
    env.put("COTENANT_DAEMON_ID", "bench-" + ProcessHandle.current().pid() + "-" + System.nanoTime());
    ProcessBuilder pb = new ProcessBuilder(cotenant.daemon(serve)).directory(cwd.toFile())
        .redirectOutput(home.resolve("serve.out").toFile()).redirectError(home.resolve("serve.err").toFile());
    env.forEach((k, v) -> pb.environment().put(k, v));
    Process p = ProcStats.killOnExit(pb.start());
    p.getOutputStream().close();
    long deadline = System.nanoTime() + READY.toNanos();
    Path state = home.resolve("daemon.json");
    while (true) {
      if (Files.isRegularFile(state)) {
        try {
          JsonNode s = JSON.readTree(state.toFile());
          if (s.path("pid").asLong() == p.pid()) {
            return new DaemonProcess(cotenant, home, p, s.path("watchdog_pid").asLong(-1));
          }
        } catch (RuntimeException e) {
          // Being written: read it again.
        }
      }
      if (!p.isAlive()) {
        throw new IllegalStateException("cotenant serve exited with " + p.exitValue() + ": "
            + Files.readString(home.resolve("serve.err")));
      }
      if (System.nanoTime() > deadline) {
        ProcStats.killTree(p.pid());
        throw new IllegalStateException("cotenant serve did not write " + state + " within " + READY.toSeconds() + " s");
      }
      TimeUnit.MILLISECONDS.sleep(20);
    }
  }

  long pid() {
    return process.pid();
  }

  /** The live processes below the daemon now (backends, their children, the watchdog). */
  Set<Long> descendants() {
    Set<Long> d = ProcStats.tree(process.pid());
    d.remove(process.pid());
    seen.addAll(d);
    return d;
  }

  /** What one command printed. */
  record Run(int code, String out, String err, long millis) {}

  /** Runs {@code cotenant ARGS} in {@code home} (no daemon needed) to its end. */
  static Run run(CotenantJar cotenant, Path home, Path cwd, Duration bound, String... args) throws Exception {
    ProcessBuilder pb = new ProcessBuilder(cotenant.command(List.of(args))).directory(cwd.toFile());
    env(home).forEach((k, v) -> {
      if (v == null) {
        pb.environment().remove(k);
      } else {
        pb.environment().put(k, v);
      }
    });
    Path out = Files.createTempFile(home, "run", ".out");
    Path err = Files.createTempFile(home, "run", ".err");
    pb.redirectOutput(out.toFile()).redirectError(err.toFile());
    long t0 = System.nanoTime();
    Process p = pb.start();
    p.getOutputStream().close();
    if (!p.waitFor(bound.toMillis(), TimeUnit.MILLISECONDS)) {
      ProcStats.killTree(p.pid());
      throw new IllegalStateException("cotenant " + String.join(" ", args) + " did not finish within " + bound);
    }
    long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
    Run r = new Run(p.exitValue(), Files.readString(out), Files.readString(err), ms);
    Files.delete(out);
    Files.delete(err);
    return r;
  }

  /** {@code cotenant status --json} of this daemon. */
  JsonNode status() throws Exception {
    Run r = run(cotenant, home, home, Duration.ofSeconds(60), "status", "--json");
    if (r.code() != 0) {
      throw new IllegalStateException("cotenant status exited with " + r.code() + ": " + r.err());
    }
    return JSON.readTree(r.out());
  }

  /**
   * SIGTERM, then waits until the daemon and every process ever seen below it are gone; kills
   * whatever is left after {@code bound} and fails. Returns the daemon's exit status.
   */
  int stop(Duration bound) throws Exception {
    descendants();
    process.destroy();
    boolean exited = process.waitFor(bound.toMillis(), TimeUnit.MILLISECONDS);
    List<Long> left = ProcStats.awaitGone(seen, Duration.ofSeconds(exited ? 10 : 0));
    if (!exited || !left.isEmpty()) {
      ProcStats.killTree(process.pid());
      left.forEach(ProcStats::killTree);
      throw new IllegalStateException("after SIGTERM the daemon " + (exited ? "exited" : "was still running")
          + " and " + left + " of its processes were still alive: killed");
    }
    return process.exitValue();
  }

  /** {@link #stop}, failing unless the daemon exited with status 0. */
  void stopExpectingZero(Duration bound) throws Exception {
    int code = stop(bound);
    if (code != 0) {
      throw new IllegalStateException("the daemon exited with " + code + " after SIGTERM");
    }
  }

  /**
   * The end of a clean run: each of {@code peers} must exit 0 within 30 s of its input closing,
   * then the daemon must exit 0 on SIGTERM within {@code bound}.
   */
  void stopAfterPeersExitZero(List<StdioPeer> peers, Duration bound) throws Exception {
    StdioPeer.closeAllExpectingZero(peers, Duration.ofSeconds(30));
    stopExpectingZero(bound);
  }

  @Override
  public void close() throws Exception {
    if (process.isAlive()) {
      stop(Duration.ofSeconds(60));
    }
  }

  /** Removes {@code dir} and everything in it. */
  static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
    }
  }
}
