package dev.cotenant.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.api.ServerDescription;
import dev.cotenant.gateway.config.ConfiguredServer;
import dev.cotenant.gateway.config.McpConfigReader;
import dev.cotenant.gateway.identity.ExecutionIdentities;
import dev.cotenant.gateway.probe.ProbeHarness;
import dev.cotenant.providers.records.FilePreflightCache;
import dev.cotenant.spi.ProviderConfig;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The real {@code cotenant measure}, in a child JVM, killed with SIGKILL in the middle of a pass:
 * the measurements it completed before the kill are in the records.
 *
 * <p>The configuration holds one server that never answers (so the pass cannot end before the
 * kill, whatever the machine's speed) and many fast echo servers. The test waits until the
 * records file shows a few measured rows while the pass still runs, kills the JVM and every
 * process it started, and reads the file back.
 */
class KilledMeasureTest {
  private static final JsonMapper JSON = JsonMapper.builder().build();
  /** Measured rows to see on disk before the kill. */
  static final int SEEN_BEFORE_KILL = 3;
  static final int ECHO_SERVERS = 30;
  /** The longest the test waits for those rows. */
  static final long WAIT_SECONDS = 120;

  @TempDir Path tmp;

  @Test
  void aKilledMeasureKeepsTheMeasurementsItCompleted() throws Exception {
    // Every server the pass starts carries this marker, so any left behind can be found.
    String marker = "-Dcotenant.test.killed-measure=" + UUID.randomUUID();
    Map<String, Object> servers = new LinkedHashMap<>();
    servers.put("mute", server(marker, "mute"));
    for (int i = 0; i < ECHO_SERVERS; i++) {
      servers.put(String.format("echo-%02d", i), server(marker, "echo"));
    }
    Path config = tmp.resolve("mcp.json");
    Files.writeString(config, JSON.writeValueAsString(Map.of("mcpServers", servers)), StandardCharsets.UTF_8);
    Path records = tmp.resolve("records");
    Path file = records.resolve(FilePreflightCache.FILE_NAME);

    List<String> cmd = new ArrayList<>(List.of(ProbeHarness.JAVA, "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
        "-cp", ProbeHarness.CLASSPATH, Main.class.getName(),
        "measure", config.toString(), "--records-dir", records.toString(),
        // The mute server holds its pre-flight for ten minutes: the pass runs until it is killed.
        "--set", "cotenant.preflight.timeout-ms=600000", "--set", "cotenant.preflight.era=initialize"));
    Path out = tmp.resolve("stdout");
    Path err = tmp.resolve("stderr");
    Process cli = new ProcessBuilder(cmd).directory(tmp.toFile())
        .redirectOutput(out.toFile()).redirectError(err.toFile()).start();
    Map<String, JsonNode> seen;
    try {
      seen = awaitMeasuredRows(file, cli, err);
      assertTrue(cli.isAlive(), "the pass was still running when it was killed");
    } finally {
      killEverything(cli, marker);
    }
    assertTrue(seen.size() >= SEEN_BEFORE_KILL, "the records never showed " + SEEN_BEFORE_KILL
        + " measured rows while the pass ran (" + seen.keySet() + "); stderr:\n" + Files.readString(err));

    // After the kill: the file parses and holds every row seen before it, measured under its identity.
    JsonNode entries = JSON.readTree(Files.readString(file, StandardCharsets.UTF_8)).path("entries");
    ExecutionIdentities identities = ExecutionIdentities.fromConfig(ProviderConfig.empty(), System.getenv());
    Map<String, ServerDescription> configured = new TreeMap<>();
    for (ConfiguredServer s : new McpConfigReader().read(List.of(config)).list()) {
      configured.put(s.name(), s.description());
    }
    for (String name : seen.keySet()) {
      JsonNode row = entries.path(name);
      assertTrue(row.isObject(), name + " is missing after the kill: " + entries.propertyNames());
      assertTrue(row.path("ran").booleanValue(), name + ": " + row);
      assertEquals(identities.identify(configured.get(name)).cacheKey(), row.path("identity").stringValue(), name);
    }
    assertFalse(entries.has("mute"), "the pre-flight in flight leaves no row");
    // What the cache reads back agrees: the same rows, none dropped on read.
    assertTrue(FilePreflightCache.open(records).snapshot().rows().keySet().containsAll(seen.keySet()));
  }

  private static Map<String, Object> server(String marker, String mode) {
    List<String> args = new ArrayList<>(ProbeHarness.javaArgs(mode));
    args.add(0, marker);
    return Map.of("command", ProbeHarness.JAVA, "args", args);
  }

  /**
   * Polls the records file until it holds {@link #SEEN_BEFORE_KILL} rows that ran, the child
   * exits, or {@link #WAIT_SECONDS} pass; returns the rows that ran, by name.
   */
  private static Map<String, JsonNode> awaitMeasuredRows(Path file, Process cli, Path err) throws Exception {
    Map<String, JsonNode> ran = new TreeMap<>();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
    while (System.nanoTime() < deadline && cli.isAlive()) {
      if (Files.exists(file)) {
        // Written by atomic rename: whatever is there is a whole file.
        JsonNode entries = JSON.readTree(Files.readString(file, StandardCharsets.UTF_8)).path("entries");
        ran.clear();
        for (String name : entries.propertyNames()) {
          if (entries.path(name).path("ran").booleanValue()) {
            ran.put(name, entries.path(name));
          }
        }
        if (ran.size() >= SEEN_BEFORE_KILL) {
          return ran;
        }
      }
      Thread.sleep(50);
    }
    if (!cli.isAlive()) {
      throw new AssertionError("the measure JVM exited on its own (status " + cli.exitValue() + "); stderr:\n"
          + Files.readString(err));
    }
    return ran;
  }

  /**
   * SIGKILLs the CLI's JVM and every process it started (found as its descendants, and by the
   * marker in their command line once they are orphaned), then checks that none is alive.
   */
  private static void killEverything(Process cli, String marker) throws InterruptedException {
    List<ProcessHandle> started = new ArrayList<>(cli.descendants().toList());
    cli.destroyForcibly(); // SIGKILL on Linux: no shutdown hook, no final flush
    assertTrue(cli.waitFor(60, TimeUnit.SECONDS), "the measure JVM did not die");
    for (int round = 0; round < 3; round++) {
      ProcessHandle.allProcesses()
          .filter(h -> h.info().commandLine().map(c -> c.contains(marker)).orElse(false))
          .forEach(started::add);
      started.forEach(ProcessHandle::destroyForcibly);
      for (ProcessHandle h : started) {
        h.onExit().toCompletableFuture().completeOnTimeout(h, 60, TimeUnit.SECONDS).join();
      }
    }
    List<String> alive = new ArrayList<>();
    started.stream().filter(ProcessHandle::isAlive).forEach(h -> alive.add(h.pid() + " " + h.info().commandLine().orElse("?")));
    ProcessHandle.allProcesses()
        .filter(h -> h.info().commandLine().map(c -> c.contains(marker)).orElse(false))
        .forEach(h -> alive.add(h.pid() + " " + h.info().commandLine().orElse("?")));
    assertEquals(List.of(), alive, "processes left alive after the kill");
  }
}
