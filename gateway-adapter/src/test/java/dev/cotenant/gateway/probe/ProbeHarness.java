package dev.cotenant.gateway.probe;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.cotenant.api.ServerDescription;
import dev.cotenant.api.Transport;
import dev.cotenant.gateway.Cotenant;
import dev.cotenant.spi.CoreSettings;
import dev.cotenant.spi.SessionTransport;
import dev.cotenant.spi.ProviderConfig;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;

/** Server descriptions for {@link ProbeTestServer} and a check that no process a test started outlives it. */
public final class ProbeHarness {
  public static final String JAVA = Paths.get(System.getProperty("java.home"), "bin", "java").toString();
  public static final String CLASSPATH = System.getProperty("java.class.path");

  private final Set<Long> before;

  /** Remembers the processes alive now; only later ones are checked. */
  public ProbeHarness() {
    this.before = ProcessHandle.current().descendants().map(ProcessHandle::pid).collect(Collectors.toSet());
  }

  /** Pre-flight settings with shrunk teardown waits and the given overrides. */
  static Map<String, String> config(String... keyValues) {
    Map<String, String> m = new HashMap<>();
    m.put(CoreSettings.TIMEOUT_MS, "60000");
    m.put(DISCOVER_TIMEOUT_MS, "30000");
    m.put("cotenant.preflight.stdin-close-wait-ms", "2000");
    m.put("cotenant.preflight.term-wait-ms", "1000");
    m.put("cotenant.preflight.kill-wait-ms", "3000");
    for (int i = 0; i < keyValues.length; i += 2) {
      m.put(keyValues[i], keyValues[i + 1]);
    }
    return m;
  }

  /** The session transport's key of the {@code server/discover} wait in the auto era. */
  static final String DISCOVER_TIMEOUT_MS = "cotenant.preflight.discover-timeout-ms";

  /** The session transport the runtime selects (the default one, found on the class path) with this configuration. */
  static SessionTransport sessions(String... keyValues) {
    return Cotenant.builder().config(config(keyValues)).build().sessionTransport();
  }

  static StatelessnessProbe probe(String... keyValues) {
    return StatelessnessProbe.fromConfig(sessions(keyValues), ProviderConfig.of(config(keyValues)));
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
    return new ServerDescription(name, Transport.STDIO, JAVA, args, Optional.empty(), Map.of(), Optional.empty(), true);
  }

  /** Asserts every process started since construction has exited (waiting up to a minute for each). */
  public void assertNoneLeft() {
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
