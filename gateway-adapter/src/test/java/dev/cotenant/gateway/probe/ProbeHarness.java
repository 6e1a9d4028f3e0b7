package dev.cotenant.gateway.probe;

import dev.cotenant.testkit.process.EnvironmentScan;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.cotenant.api.ServerDescription;
import dev.cotenant.api.Transport;
import dev.cotenant.gateway.Cotenant;
import dev.cotenant.spi.CoreSettings;
import dev.cotenant.spi.SessionTransport;
import dev.cotenant.spi.ProviderConfig;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Server descriptions for {@link ProbeTestServer} and a check that no process a test started
 * outlives it. Every server described here carries {@link #MARKER} in its environment, and so does
 * everything it starts: a process that left the tree (double-forked, {@code setsid}, reparented
 * when its parent exited) is found by that entry in {@code /proc/<pid>/environ}.
 */
public final class ProbeHarness {
  public static final String JAVA = Paths.get(System.getProperty("java.home"), "bin", "java").toString();
  public static final String CLASSPATH = System.getProperty("java.class.path");
  /** The environment variable that marks this test JVM's servers. */
  public static final String MARKER_NAME = "COTENANT_TEST_RUN";
  /** Its value: one per test JVM. */
  public static final String MARKER_VALUE = UUID.randomUUID().toString();
  /** The environment entry every server described here carries. */
  public static final String MARKER = MARKER_NAME + "=" + MARKER_VALUE;

  private final Set<Long> before;
  private final Set<Long> carriersBefore;

  /** Remembers the processes alive now; only later ones are checked. */
  public ProbeHarness() {
    this.before = ProcessHandle.current().descendants().map(ProcessHandle::pid).collect(Collectors.toSet());
    this.carriersBefore = new HashSet<>(EnvironmentScan.carriers(MARKER));
  }

  /**
   * Checks around every test of the class it extends that no process the test started is left: a
   * {@link ProbeHarness} made before each test (before its {@code @BeforeEach} methods) and its
   * {@link #assertNoneLeft()} after it (after its {@code @AfterEach} methods).
   */
  public static final class NoneLeft implements BeforeEachCallback, AfterEachCallback {
    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(NoneLeft.class);

    @Override
    public void beforeEach(ExtensionContext context) {
      context.getStore(NAMESPACE).put(ProbeHarness.class, new ProbeHarness());
    }

    @Override
    public void afterEach(ExtensionContext context) {
      context.getStore(NAMESPACE).remove(ProbeHarness.class, ProbeHarness.class).assertNoneLeft();
    }
  }

  /** Pre-flight settings with shrunk teardown waits and the given overrides. */
  static Map<String, String> config(String... keyValues) {
    Map<String, String> m = new HashMap<>();
    m.put(CoreSettings.TIMEOUT_MS, "60000");
    m.put(DISCOVER_TIMEOUT_MS, "30000");
    m.put("cotenant.session.stdin-close-wait-ms", "2000");
    m.put("cotenant.session.term-wait-ms", "1000");
    m.put("cotenant.session.kill-wait-ms", "3000");
    for (int i = 0; i < keyValues.length; i += 2) {
      m.put(keyValues[i], keyValues[i + 1]);
    }
    return m;
  }

  /** The session transport's key of the {@code server/discover} wait in the auto era. */
  static final String DISCOVER_TIMEOUT_MS = "cotenant.session.discover-timeout-ms";

  /** The session transport the runtime selects (the default one, found on the class path) with this configuration. */
  static SessionTransport sessions(String... keyValues) {
    return Cotenant.builder().config(config(keyValues)).build().sessionTransport();
  }

  static StatelessnessProbe probe(String... keyValues) {
    return StatelessnessProbe.fromConfig(sessions(keyValues), ProviderConfig.of(config(keyValues)));
  }

  static SurfaceProbe surface(String... keyValues) {
    return SurfaceProbe.fromConfig(sessions(keyValues), ProviderConfig.of(config(keyValues)));
  }

  /** The JVM arguments that run {@link ProbeTestServer} with {@code serverArgs}. */
  public static List<String> javaArgs(String... serverArgs) {
    List<String> args = new ArrayList<>(List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-XX:-UsePerfData",
        "-cp", CLASSPATH, ProbeTestServer.class.getName()));
    args.addAll(List.of(serverArgs));
    return args;
  }

  /** {@link ProbeTestServer} in {@code mode} as a stdio server named {@code name}. */
  static ServerDescription server(String name, String... serverArgs) {
    List<String> args = javaArgs(serverArgs);
    return new ServerDescription(name, Transport.STDIO, JAVA, args, Optional.empty(), Map.of(MARKER_NAME, MARKER_VALUE),
        Optional.empty(), true);
  }

  /**
   * A {@code sh -c script} server named {@code name}; the script sees {@code $COTENANT_TEST_ORPHANS}
   * ({@code orphans}) to record the pids of processes it moves out of its tree, and
   * {@code $PROBE_SERVER}, the shell-quoted command line of {@link ProbeTestServer} in {@code mode}.
   */
  static ServerDescription shServer(String name, Path orphans, String mode, String script) {
    String server = java.util.stream.Stream.concat(java.util.stream.Stream.of(JAVA), javaArgs(mode).stream())
        .map(ProbeHarness::shQuote).collect(Collectors.joining(" "));
    return new ServerDescription(name, Transport.STDIO, "sh", List.of("-c", script.replace("$PROBE_SERVER", server)),
        Optional.empty(), Map.of(MARKER_NAME, MARKER_VALUE, "COTENANT_TEST_ORPHANS", orphans.toString()), Optional.empty(), true);
  }

  /** A {@code sh -c script} server named {@code name}. */
  static ServerDescription sh(String name, String script) {
    return new ServerDescription(name, Transport.STDIO, "sh", List.of("-c", script), Optional.empty(),
        Map.of(MARKER_NAME, MARKER_VALUE), Optional.empty(), true);
  }

  static String shQuote(String s) {
    return "'" + s.replace("'", "'\\''") + "'";
  }

  /** The pids a {@link #shServer} recorded in {@code orphans}. */
  static List<Long> orphanPids(Path orphans) throws java.io.IOException {
    List<Long> out = new ArrayList<>();
    if (java.nio.file.Files.exists(orphans)) {
      for (String line : java.nio.file.Files.readAllLines(orphans)) {
        if (!line.isBlank()) {
          out.add(Long.parseLong(line.strip()));
        }
      }
    }
    return out;
  }

  /**
   * Asserts every process started since construction has exited, descendants of this JVM and
   * carriers of {@link #MARKER} alike (waiting up to a minute for each); whatever is left is killed.
   */
  public void assertNoneLeft() {
    try {
      assertNoDescendantLeft();
    } finally {
      assertNoCarrierLeft();
    }
  }

  private void assertNoCarrierLeft() {
    List<Long> left;
    try {
      left = new ArrayList<>(EnvironmentScan.carriers(MARKER, TimeUnit.SECONDS.toMillis(60)));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      left = new ArrayList<>(EnvironmentScan.carriers(MARKER));
    }
    left.removeAll(carriersBefore);
    assertEquals(List.of(), EnvironmentScan.describeAndKill(left), "processes carrying " + MARKER + " left alive");
  }

  private void assertNoDescendantLeft() {
    List<String> alive = new ArrayList<>();
    for (ProcessHandle h : ProcessHandle.current().descendants().filter(h -> !before.contains(h.pid())).toList()) {
      try {
        h.onExit().get(60, TimeUnit.SECONDS);
      } catch (TimeoutException | ExecutionException e) {
        alive.add(h.pid() + " " + h.info().commandLine().orElse("?"));
        h.destroyForcibly();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        alive.add(h.pid() + " (interrupted while waiting)");
      }
    }
    assertEquals(List.of(), alive, "processes left alive");
  }
}
