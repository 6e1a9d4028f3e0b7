package dev.cotenant.providers.preflight;

import dev.cotenant.testkit.process.EnvironmentScan;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.api.ServerDescription;
import dev.cotenant.api.Transport;
import dev.cotenant.providers.preflight.testservers.TestServer;
import dev.cotenant.spi.ProviderConfig;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
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

/**
 * Builds server descriptions for the scripted test servers and checks that nothing a pre-flight
 * started outlives it. Every server appends its pid (and its children's) to a per-test file, and
 * carries that file's name in its environment ({@code COTENANT_TEST_PIDS}), which everything it
 * starts inherits: a process that left the tree (double-forked, {@code setsid}, reparented when
 * its parent exited) is found by that entry in {@code /proc/<pid>/environ}.
 */
public final class PreflightHarness {
  static final String JAVA = Paths.get(System.getProperty("java.home"), "bin", "java").toString();
  static final String CLASSPATH = System.getProperty("java.class.path");

  public final Path pidFile;
  private final Set<Long> childrenBefore;

  public PreflightHarness(Path dir) throws IOException {
    this.pidFile = Files.createTempFile(dir, "pids", ".txt");
    this.childrenBefore = ProcessHandle.current().children().map(ProcessHandle::pid).collect(Collectors.toSet());
  }

  /** Settings with shrunk teardown waits and the given overrides. */
  public static PreflightSettings settings(String... keyValues) {
    Map<String, String> m = new HashMap<>();
    m.put(PreflightSettings.TIMEOUT_MS, "20000");
    m.put(PreflightSettings.STDIN_CLOSE_WAIT_MS, "300");
    m.put(PreflightSettings.TERM_WAIT_MS, "300");
    m.put(PreflightSettings.KILL_WAIT_MS, "3000");
    for (int i = 0; i < keyValues.length; i += 2) {
      m.put(keyValues[i], keyValues[i + 1]);
    }
    return PreflightSettings.from(ProviderConfig.of(m));
  }

  /** The pre-flight's session bounds ({@link PreflightSettings#sessionSettings()}) of {@link #settings}. */
  public static dev.cotenant.providers.session.SessionSettings sessionSettings(String... keyValues) {
    return settings(keyValues).sessionSettings();
  }

  /** A pre-flight over the stdio session transport, both with {@link #settings} and the given overrides. */
  static StdioPreflightTransport transport(String... keyValues) {
    return StdioPreflightTransport.stdio(settings(keyValues));
  }

  /** The Java command line that runs {@link TestServer} with the given arguments. */
  public static List<String> javaCommand(String... serverArgs) {
    List<String> cmd = new ArrayList<>(List.of(JAVA, "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
        "-XX:-UsePerfData", "-Xshare:auto", "-cp", CLASSPATH, TestServer.class.getName()));
    cmd.addAll(List.of(serverArgs));
    return cmd;
  }

  public ServerDescription javaServer(String name, String... serverArgs) {
    List<String> cmd = javaCommand(serverArgs);
    return withPids(new ServerDescription(name, Transport.STDIO, cmd.get(0), cmd.subList(1, cmd.size()),
        Optional.empty(), Map.of(), Optional.empty(), true));
  }

  /** A {@code sh -c} server whose shell records its own pid first. */
  public ServerDescription shServer(String name, String script) {
    return withPids(ServerDescription.stdio(name, "sh", "-c",
        "echo $$ >> \"$COTENANT_TEST_PIDS\"; " + script));
  }

  /** {@code exec}s the Java test server from a shell, after running {@code prelude}. */
  public ServerDescription shThenJava(String name, String prelude, String... serverArgs) {
    String exec = javaCommand(serverArgs).stream().map(PreflightHarness::shQuote).collect(Collectors.joining(" "));
    return shServer(name, prelude + " exec " + exec);
  }

  private ServerDescription withPids(ServerDescription d) {
    Map<String, String> env = new HashMap<>(d.env());
    env.put("COTENANT_TEST_PIDS", pidFile.toString());
    return d.withEnv(env);
  }

  /**
   * The environment entry every server of this test carries, and with it everything the server
   * starts, unless a process clears its environment.
   */
  public String marker() {
    return "COTENANT_TEST_PIDS=" + pidFile;
  }

  /**
   * The pids a hostile server recorded for the processes it moved out of its tree, in the file
   * {@code $COTENANT_TEST_PIDS.orphans}; the leak check does not read them, it finds such
   * processes by {@link #marker()}.
   */
  public List<Long> orphanPids() throws IOException {
    Path orphans = Path.of(pidFile + ".orphans");
    List<Long> out = new ArrayList<>();
    if (Files.exists(orphans)) {
      for (String line : Files.readAllLines(orphans, StandardCharsets.UTF_8)) {
        if (!line.isBlank()) {
          out.add(Long.parseLong(line.strip()));
        }
      }
    }
    return out;
  }

  public void assertOrphansStarted(int atLeast) throws IOException {
    assertTrue(orphanPids().size() >= atLeast,
        "expected the servers to have started at least " + atLeast + " processes outside their tree, got " + orphanPids());
  }

  public static String shQuote(String s) {
    return "'" + s.replace("'", "'\\''") + "'";
  }

  public List<Long> recordedPids() throws IOException {
    List<Long> out = new ArrayList<>();
    for (String line : Files.readAllLines(pidFile, StandardCharsets.UTF_8)) {
      if (!line.isBlank()) {
        out.add(Long.parseLong(line.strip()));
      }
    }
    return out;
  }

  /**
   * Asserts that every process the test's servers recorded, every child this JVM started since the
   * harness was made, and every process carrying {@link #marker()} in its environment is gone
   * (waiting for each with a generous bound). Marker carriers found alive are killed after the check.
   */
  public void assertNothingAlive() throws IOException, InterruptedException {
    try {
      assertTreeGone();
    } finally {
      assertNoMarkerCarrier();
    }
  }

  /** Fails, after killing them, when processes carrying {@link #marker()} are still alive 15 s from now. */
  private void assertNoMarkerCarrier() throws InterruptedException {
    List<Long> left = EnvironmentScan.carriers(marker(), TimeUnit.SECONDS.toMillis(15));
    List<String> described = EnvironmentScan.describeAndKill(left);
    assertEquals(List.of(), described, "processes carrying " + marker() + " outlived the pre-flight");
  }

  private void assertTreeGone() throws IOException, InterruptedException {
    List<ProcessHandle> handles = new ArrayList<>();
    for (long pid : recordedPids()) {
      ProcessHandle.of(pid).ifPresent(handles::add);
    }
    ProcessHandle.current().children().filter(h -> !childrenBefore.contains(h.pid())).forEach(handles::add);
    for (ProcessHandle h : handles) {
      try {
        h.onExit().get(15, TimeUnit.SECONDS);
      } catch (ExecutionException | TimeoutException e) {
        // Asserted below.
      }
      assertFalse(h.isAlive(), "process " + h.pid() + " (" + h.info().commandLine().orElse("?") + ") outlived the pre-flight");
    }
  }

  public void assertRecordedAtLeast(int processes) throws IOException {
    assertTrue(recordedPids().size() >= processes,
        "expected at least " + processes + " recorded processes, got " + recordedPids());
  }

  public static void assertNoDivergence(dev.cotenant.spi.PreflightResult r) {
    assertTrue(r.ran(), () -> "expected the pre-flight to run, it did not: " + r.notRunReason());
    assertEquals(List.of(), r.divergentFacets());
  }
}
