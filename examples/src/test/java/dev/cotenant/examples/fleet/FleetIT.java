package dev.cotenant.examples.fleet;

import static dev.cotenant.examples.cli.CotenantCliIT.drain;
import static dev.cotenant.examples.cli.CotenantCliIT.rows;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.examples.cli.CotenantCliIT;
import dev.cotenant.examples.cli.CotenantCliIT.Run;
import dev.cotenant.fleet.servers.PostgresServer;
import dev.cotenant.testkit.process.ChecksProcessLeaks;
import dev.cotenant.testkit.process.Processes;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Two replicas of a gateway on one PostgreSQL database, each a real {@code cotenant} process
 * with its own records directory and the {@code postgres} record stores selected with
 * {@code --set}: a measurement one takes is reused by the other (no second spawn), a hazard one
 * observes refutes the server in the other's {@code assess}, 2 × 1,000 observations recorded at
 * once by two processes are all kept, and a database that is down gives one clear error and no
 * verdict.
 */
@ChecksProcessLeaks(waitMillis = 30_000)
class FleetIT {
  private static final Path ROOT = Path.of("").toAbsolutePath().getParent();
  private static final long RUN_BOUND_SECONDS = 300;
  private static final JsonMapper JSON = JsonMapper.builder().build();

  static PostgresServer postgres;

  @TempDir Path tmp;

  @BeforeAll
  static void start() throws Exception {
    postgres = PostgresServer.start();
  }

  @AfterAll
  static void stop() {
    if (postgres != null) {
      postgres.close();
    }
  }

  /** The {@code --set} options selecting the postgres stores on {@code database}. */
  private static List<String> fleet(String database) {
    List<String> out = new ArrayList<>();
    for (Map.Entry<String, String> e : settings(database).entrySet()) {
      out.add("--set");
      out.add(e.getKey() + "=" + e.getValue());
    }
    return out;
  }

  private static Map<String, String> settings(String database) {
    Map<String, String> m = new LinkedHashMap<>();
    m.put("cotenant.records.provider", "postgres");
    m.put("cotenant.records.postgres.url", postgres.url(database));
    m.put("cotenant.records.postgres.user", PostgresServer.USER);
    m.put("cotenant.records.postgres.password-file", postgres.passwordFile().toString());
    return m;
  }

  private Run run(List<String> command) throws IOException, InterruptedException {
    ProcessBuilder pb = new ProcessBuilder(command).directory(ROOT.toFile());
    pb.environment().remove("COTENANT_HOME");
    pb.environment().remove("COTENANT_POSTGRES_PASSWORD");
    pb.environment().put(Processes.COOKIE_ENV, Processes.cookie());
    return CotenantCliIT.run(pb, String.join(" ", command));
  }

  /** Runs the CLI as replica {@code replica} (its own records directory) on {@code database}. */
  private Run cotenant(String replica, String database, String... args) throws IOException, InterruptedException {
    assertTrue(Files.isRegularFile(ROOT.resolve("cli/target/cotenant.jar")),
        "cli/target/cotenant.jar is missing: run the reactor build (mvn -B verify) from the repository root");
    List<String> command = new ArrayList<>();
    command.add(ROOT.resolve("cotenant").toString());
    command.addAll(List.of(args));
    command.add("--records-dir");
    command.add(tmp.resolve("records-" + replica).toString());
    command.addAll(fleet(database));
    return run(command);
  }

  /** A config whose one server, the echo sample, appends a line to {@code spawns} each time it starts. */
  private Path countingConfig(Path spawns) throws IOException {
    Path config = tmp.resolve("mcp.json");
    String script = "echo spawned >> '" + spawns + "'; exec '" + ROOT.resolve("examples/bin/echo") + "'";
    Map<String, Object> server = Map.of("command", "/bin/sh", "args", List.of("-c", script));
    Files.writeString(config, JSON.writeValueAsString(Map.of("mcpServers", Map.of("echo", server))));
    return config;
  }

  private static long spawns(Path file) throws IOException {
    return Files.exists(file) ? Files.readAllLines(file).size() : 0;
  }

  @Test
  void aMeasurementByOneReplicaIsReusedByTheOther() throws Exception {
    String db = "measure_once";
    postgres.createDatabase(db);
    Path spawns = tmp.resolve("spawns");
    Path config = countingConfig(spawns);

    // The spawns are counted by a file the server appends to: outside the pre-flight's sandbox,
    // which would keep that write private.
    Run a = cotenant("a", db, "measure", config.toString(), "--json", "--set", "cotenant.sandbox=off");
    assertEquals(0, a.code(), a.err());
    assertEquals("measured", rows(a.out()).get("echo").path("strength").stringValue(), a.out());
    assertEquals(2, spawns(spawns), "the pre-flight spawns the server twice");

    Run b = cotenant("b", db, "assess", config.toString(), "--json");
    assertEquals(0, b.code(), b.err());
    assertEquals("measured", rows(b.out()).get("echo").path("strength").stringValue(),
        "replica b does not see replica a's measurement: " + b.out());
    Run again = cotenant("b", db, "measure", config.toString(), "--json", "--set", "cotenant.sandbox=off");
    assertEquals(0, again.code(), again.err());
    assertTrue(again.err().contains("nothing to measure"), again.err());
    assertEquals(2, spawns(spawns), "replica b measured the server again");
    assertTrue(Files.notExists(tmp.resolve("records-a/shareability-verdicts.json")), "replica a wrote the file store");
  }

  @Test
  void aHazardObservedByOneReplicaRefutesTheServerInTheOther() throws Exception {
    String db = "hazards_seen";
    postgres.createDatabase(db);
    Path config = ROOT.resolve("examples/mcp.json");
    Run before = cotenant("b", db, "assess", config.toString(), "--json");
    assertEquals(0, before.code(), before.err());
    assertFalse("refuted".equals(rows(before.out()).get("global-state").path("strength").stringValue()), before.out());

    // The whole-surface probe watches global-state hand one caller's state to another.
    Run probe = cotenant("a", db, "probe-stateless", "global-state", config.toString());
    assertEquals(3, probe.code(), "the probe did not observe the leak: " + probe.out() + probe.err());

    Run after = cotenant("b", db, "assess", config.toString(), "--json");
    assertEquals(0, after.code(), after.err());
    JsonNode row = rows(after.out()).get("global-state");
    assertEquals("refuted", row.path("strength").stringValue(), "replica b does not see replica a's hazard: " + row);
    assertFalse(row.path("recommendShare").booleanValue());
    Run list = cotenant("b", db, "hazards", "list", "--json");
    assertTrue(list.out().contains("cross_session_leak"), list.out());
  }

  @Test
  void twoReplicasRecordingAThousandObservationsEachAtOnceLoseNone() throws Exception {
    String db = "two_thousand";
    postgres.createDatabase(db);
    List<Process> replicas = new ArrayList<>();
    List<CompletableFuture<String>> outs = new ArrayList<>();
    for (String name : List.of("r1", "r2")) {
      List<String> command = new ArrayList<>(List.of(
          ProcessHandle.current().info().command().orElse("java"), "-cp", System.getProperty("java.class.path"),
          FleetReplica.class.getName(), tmp.resolve("records-" + name).toString(), name, "1000", "4"));
      settings(db).forEach((k, v) -> command.add(k + "=" + v));
      ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
      pb.environment().put(Processes.COOKIE_ENV, Processes.cookie());
      Process p = pb.start();
      replicas.add(p);
      outs.add(drain(p.getInputStream()));
    }
    for (int i = 0; i < replicas.size(); i++) {
      assertTrue(replicas.get(i).waitFor(RUN_BOUND_SECONDS, TimeUnit.SECONDS), "replica " + i + " did not finish");
      assertEquals(0, replicas.get(i).exitValue(), outs.get(i).join());
      assertTrue(outs.get(i).join().contains("recorded 1000"), outs.get(i).join());
    }

    // Read back by a third process, the CLI, and by the database itself.
    Run list = cotenant("reader", db, "hazards", "list", "--json");
    assertEquals(0, list.code(), list.err());
    long identities = 0;
    long hot = 0;
    for (JsonNode s : JSON.readTree(list.out()).path("servers")) {
      for (JsonNode id : s.path("identities")) {
        if (s.path("name").stringValue().equals("hot")) {
          hot += id.path("count").longValue();
        } else {
          identities++;
          assertEquals(1, id.path("count").longValue(), s.path("name") + " " + id);
        }
      }
    }
    assertEquals(2_000, identities, "observations under their own identities were lost");
    assertEquals(2_000, hot, "observations of one identity recorded by both replicas at once were lost");
    try (Connection c = postgres.connect(db); Statement s = c.createStatement();
        ResultSet r = s.executeQuery("SELECT count(*), sum(count) FROM cotenant.hazards")) {
      assertTrue(r.next());
      assertEquals(2_001, r.getLong(1), "rows in the table");
      assertEquals(4_000, r.getLong(2), "observations in the table");
    }
  }

  @Test
  void aDatabaseThatIsDownGivesOneClearErrorAndNoVerdict() throws Exception {
    String db = "down";
    postgres.createDatabase(db);
    Path config = ROOT.resolve("examples/mcp.json");
    List<String> command = new ArrayList<>(List.of(ROOT.resolve("cotenant").toString(), "assess", config.toString(),
        "--json", "--records-dir", tmp.resolve("records-down").toString()));
    Map<String, String> unreachable = settings(db);
    unreachable.put("cotenant.records.postgres.url", "jdbc:postgresql://127.0.0.1:1/" + db + "?password=hunter2");
    unreachable.forEach((k, v) -> {
      command.add("--set");
      command.add(k + "=" + v);
    });
    Run down = run(command);
    assertEquals(1, down.code(), down.out() + down.err());
    assertEquals("", down.out(), "a verdict was printed while the records could not be read");
    List<String> lines = down.err().lines().filter(l -> !l.isBlank()).toList();
    assertEquals(1, lines.size(), "not one error: " + down.err());
    String error = lines.get(0);
    assertTrue(error.startsWith("cotenant: "), error);
    assertTrue(error.contains("jdbc:postgresql://127.0.0.1:1/" + db), error);
    assertFalse(error.contains("hunter2"), "the password leaked: " + error);
    assertFalse(error.contains(postgres.password()), "the password leaked: " + error);
    assertFalse(error.contains("\tat "), "a stack trace: " + error);
  }
}
