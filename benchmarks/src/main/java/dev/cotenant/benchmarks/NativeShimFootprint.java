package dev.cotenant.benchmarks;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

/**
 * Harness main: what one routed client's shim costs, the native shim ({@code cotenant-shim}, the
 * C program the jar holds) against the JVM shim ({@code java} with {@code Shim.JVM_OPTIONS}
 * {@code -jar cotenant.jar connect}), each relaying a real session.
 *
 * <p>One daemon ({@code cotenant serve --no-http --set cotenant.sharing.forced=echo
 * examples/mcp.json}) in a home of its own, so every session is on one shared backend of the
 * {@code echo} sample and the shims are all that differs. A first client (a JVM shim) brings the
 * backend up. Then, for each kind in turn, {@code shims} clients (5 by default) each start a
 * shim (timed from the start to the {@code initialize} answer), send
 * {@code notifications/initialized} and {@code calls} {@code tools/call}s (20 by default) of 1 KiB
 * each, checking every answer; 2 s later {@code Pss} and {@code Rss} of every shim are read from
 * {@code /proc/<pid>/smaps_rollup}. Then each shim relays one call of 8 MiB each way, and its
 * memory is read again 2 s later (the native shim gives back the buffers of a large message).
 * At the end the daemon's own memory is read (after {@code quiet} more seconds without a
 * message, 0 by default: the daemon's heap trim looks every 60 s), then again 2 s after a full
 * collection ({@code jcmd PID GC.run}): what the large messages left it holding. Every client then closes its input and its shim must exit 0; the daemon gets SIGTERM and must
 * exit 0.
 *
 * <p>Usage, from the repository root after {@code mvn -B -o -q -DskipTests package}:
 * {@code java -cp benchmarks/target/benchmarks.jar dev.cotenant.benchmarks.NativeShimFootprint [shims] [calls] [quiet]}.
 */
public final class NativeShimFootprint {
  static final Duration BOUND = Duration.ofSeconds(90);

  private NativeShimFootprint() {}

  /** Entry point. */
  public static void main(String[] args) throws Exception {
    int shims = args.length > 0 ? Integer.parseInt(args[0]) : 5;
    int calls = args.length > 1 ? Integer.parseInt(args[1]) : 20;
    int quiet = args.length > 2 ? Integer.parseInt(args[2]) : 0;
    CotenantJar cotenant = CotenantJar.locate();
    Path root = cotenant.repositoryRoot();
    Path config = root.resolve("examples/mcp.json");
    System.out.printf(Locale.ROOT, "cores=%d java=%s shims=%d calls=%d%n", Runtime.getRuntime().availableProcessors(),
        System.getProperty("java.version"), shims, calls);
    System.out.println("load at start: " + ProcStats.loadAverage());

    Path home = DaemonProcess.newHome("ctnf");
    List<StdioPeer> peers = new ArrayList<>();
    try (DaemonProcess daemon = DaemonProcess.start(cotenant, home, root, List.of("--no-http", "--set",
        "cotenant.sharing.forced=echo", config.toString()))) {
      Path nativeShim = extract(cotenant.jar, home);
      StdioPeer first = start("first client (JVM shim)", cotenant.shim("echo", config), home, root);
      peers.add(first);
      first.initialize("first", StdioPeer.PROTOCOL_VERSION, BOUND);

      Map<String, List<String>> commands = new LinkedHashMap<>();
      commands.put("native shim", List.of(nativeShim.toString(), "--java", CotenantJar.java(), "--jar",
          cotenant.jar.toString(), "connect", "echo", config.toString(), "--no-start"));
      commands.put("JVM shim", cotenant.shim("echo", config));
      String text = "x".repeat(1024);
      String large = "y".repeat(8 << 20);
      for (Map.Entry<String, List<String>> kind : commands.entrySet()) {
        List<StdioPeer> group = new ArrayList<>();
        long[] startMs = new long[shims];
        for (int i = 0; i < shims; i++) {
          StdioPeer p = start(kind.getKey() + " " + i, kind.getValue(), home, root);
          peers.add(p);
          group.add(p);
          p.initialize("client-" + i, StdioPeer.PROTOCOL_VERSION, BOUND);
          startMs[i] = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - p.startedNanos);
          for (int c = 0; c < calls; c++) {
            call(p, text);
          }
        }
        TimeUnit.SECONDS.sleep(2);
        List<ProcStats.Memory> relaying = new ArrayList<>();
        for (StdioPeer p : group) {
          relaying.add(ProcStats.memory(ProcStats.tree(p.pid())));
        }
        for (StdioPeer p : group) {
          call(p, large);
        }
        TimeUnit.SECONDS.sleep(2);
        List<ProcStats.Memory> afterLarge = new ArrayList<>();
        for (StdioPeer p : group) {
          afterLarge.add(ProcStats.memory(ProcStats.tree(p.pid())));
        }
        System.out.printf(Locale.ROOT, "%n%s, %d shims (MiB; each shim's process tree; load %s)%n", kind.getKey(), shims,
            ProcStats.loadAverage());
        print("after initialize and " + calls + " calls of 1 KiB", relaying);
        print("2 s after one call of 8 MiB each way", afterLarge);
        long[] sorted = startMs.clone();
        Arrays.sort(sorted);
        System.out.printf(Locale.ROOT, "  start to the initialize answer (ms): median %d, min %d, max %d, all %s%n",
            sorted[sorted.length / 2], sorted[0], sorted[sorted.length - 1], Arrays.toString(startMs));
      }
      System.out.println();
      TimeUnit.SECONDS.sleep(quiet);
      JvmMemoryMap.snapshot(daemon.pid()).attribute(false).print("the daemon, " + quiet + " s later");
      JvmMemoryMap.jcmd(daemon.pid(), "GC.run");
      TimeUnit.SECONDS.sleep(2);
      JvmMemoryMap.snapshot(daemon.pid()).attribute(false).print("the daemon 2 s after a full collection (jcmd GC.run)");
      daemon.stopAfterPeersExitZero(peers, BOUND);
      System.out.println("every shim exited 0; daemon stopped (exit 0); load at end: " + ProcStats.loadAverage());
    } finally {
      StdioPeer.closeAll(peers, Duration.ofSeconds(5));
      DaemonProcess.deleteTree(home);
    }
  }

  private static StdioPeer start(String label, List<String> command, Path home, Path root) throws Exception {
    return StdioPeer.start(label, command, root, DaemonProcess.env(home),
        ProcessBuilder.Redirect.appendTo(home.resolve("shims.err").toFile()));
  }

  /** One {@code tools/call} of the echo tool; its answer must carry the text back. */
  private static void call(StdioPeer p, String text) throws Exception {
    String answer = p.request("tools/call", "{\"name\":\"echo\",\"arguments\":{\"text\":\"" + text + "\"}}", BOUND);
    if (!answer.contains(text) || !answer.contains("\"result\"")) {
      throw new IllegalStateException(p.label + " got a wrong answer: "
          + answer.substring(0, Math.min(200, answer.length())));
    }
  }

  private static void print(String when, List<ProcStats.Memory> each) {
    double[] pss = each.stream().mapToDouble(ProcStats.Memory::pssMib).sorted().toArray();
    double[] rss = each.stream().mapToDouble(ProcStats.Memory::rssMib).sorted().toArray();
    System.out.printf(Locale.ROOT, "  %-40s Pss median %.2f (%.2f-%.2f)  Rss median %.2f (%.2f-%.2f)%n", when,
        pss[pss.length / 2], pss[0], pss[pss.length - 1], rss[rss.length / 2], rss[0], rss[rss.length - 1]);
  }

  /** The native shim the jar holds for this machine, copied into {@code dir}. */
  private static Path extract(Path jar, Path dir) throws Exception {
    String entry = "native/linux-" + System.getProperty("os.arch") + "/cotenant-shim";
    try (ZipFile zip = new ZipFile(jar.toFile())) {
      ZipEntry e = zip.getEntry(entry);
      if (e == null) {
        throw new IllegalStateException(jar + " holds no " + entry + ": it was built without a C compiler");
      }
      Path shim = dir.resolve("cotenant-shim");
      try (InputStream in = zip.getInputStream(e)) {
        Files.copy(in, shim);
      }
      Files.setPosixFilePermissions(shim, PosixFilePermissions.fromString("rwx------"));
      return shim;
    }
  }
}
