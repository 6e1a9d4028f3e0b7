package dev.cotenant.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.gateway.probe.ProbeHarness;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Standard error is for people: one line per problem, each warning once, no logger internals. */
class StderrForPeopleTest {
  @TempDir Path tmp;

  @Test
  void anEmptyRecordsDirectoryOptionIsAUsageError() throws Exception {
    CliHarness cli = new CliHarness(tmp);
    cli.write("mcp.json", "{\"mcpServers\": {\"a\": {\"command\": \"/nonexistent/a\"}}}");
    CliHarness.Result r = cli.runRaw("assess", "mcp.json", "--records-dir", "");
    assertEquals(2, r.code());
    assertEquals(List.of("cotenant: --records-dir is empty; name a directory, or leave the option out to use "
        + "$COTENANT_HOME/records (default ~/.cotenant/records)"), r.errLines());
  }

  @Test
  void aZeroMaxConcurrentIsAUsageError() throws Exception {
    CliHarness cli = new CliHarness(tmp);
    cli.write("mcp.json", "{\"mcpServers\": {\"a\": {\"command\": \"/nonexistent/a\"}}}");
    CliHarness.Result r = cli.run("register", "a", "mcp.json", "--model", "shared", "--max-concurrent", "0");
    assertEquals(2, r.code(), r.err());
    assertEquals(List.of("cotenant: --max-concurrent must be a positive integer (calls the backend serves at once), got 0"),
        r.errLines());
    CliHarness.Result one = cli.run("register", "a", "mcp.json", "--model", "warm_pool", "--max-concurrent", "1");
    assertEquals(0, one.code(), "1 is the smallest positive integer: " + one.err());
    assertEquals("registered a: model warm_pool, maxConcurrent 1\n", one.out());
  }

  @Test
  void anUnwritableHomeIsOneLineNamingThePathAndTheOverride() throws Exception {
    CliHarness cli = new CliHarness(tmp);
    cli.write("mcp.json", "{\"mcpServers\": {\"a\": {\"command\": \"/nonexistent/a\"}}}");
    // A home directory that is a file: nothing can be created below it, whoever runs the test.
    Path home = cli.home;
    Files.delete(home);
    Files.writeString(home, "not a directory");

    CliHarness.Result r = cli.runRaw("measure", "mcp.json");

    assertEquals(1, r.code(), r.err());
    assertEquals(1, r.errLines().size(), r.err());
    String line = r.errLines().get(0);
    assertTrue(line.startsWith("cotenant: cannot write " + home), line);
    assertTrue(line.endsWith("put the records elsewhere with --records-dir DIR or the COTENANT_HOME environment variable"), line);
  }

  @Test
  void warningsAreOneLineEachOncePerRunWithoutLoggerOrThreadNames() throws Exception {
    Path records = Files.createDirectories(tmp.resolve("records"));
    // An entry the schema refuses (shared without a passed probe): every read of the file warns about it.
    Files.writeString(records.resolve("concurrency-records.json"),
        "{\"schema\": 1, \"servers\": {\"a\": {\"model\": \"shared\", \"scope\": \"tenant\", \"maxConcurrent\": 2}}}");
    Path config = tmp.resolve("mcp.json");
    Files.writeString(config, "{\"mcpServers\": {\"a\": {\"command\": \"/nonexistent/a\"}, \"b\": {\"command\": \"/nonexistent/b\"}}}");

    List<String> command = new ArrayList<>(List.of(ProbeHarness.JAVA, "-cp", ProbeHarness.CLASSPATH, Main.class.getName(),
        "assess", config.toString(), "--records-dir", records.toString()));
    Process p = new ProcessBuilder(command).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
    String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(60, TimeUnit.SECONDS));
    assertEquals(0, p.exitValue(), err);

    List<String> warnings = err.lines().filter(l -> l.contains("concurrency-records.json")).toList();
    assertEquals(1, warnings.size(), err);
    assertTrue(warnings.get(0).startsWith("cotenant: warning: "), err);
    for (String l : err.lines().toList()) {
      assertTrue(l.startsWith("cotenant: "), "every line is for people: " + l);
      assertTrue(!l.contains("dev.cotenant.") && !l.contains("[main]") && !l.contains("tools.jackson"), l);
    }
  }

  @Test
  void theFilterRewritesLogLinesDropsStackTracesAndRepeatsOfAWarning() throws Exception {
    java.io.ByteArrayOutputStream sink = new java.io.ByteArrayOutputStream();
    java.io.PrintStream err = new java.io.PrintStream(new OnceEachWarning(sink), true, StandardCharsets.UTF_8);
    err.println("WARN records.json: unreadable; it reads as empty");
    err.println("WARN records.json: unreadable; it reads as empty");
    err.println("java.io.IOException: boom");
    err.println("\tat dev.cotenant.X.y(X.java:1)");
    err.println("Caused by: java.lang.Error");
    err.println("\t... 3 more");
    err.println("ERROR it broke");
    err.print("cotenant: partial");
    err.flush();
    err.println(" line");
    assertEquals("cotenant: warning: records.json: unreadable; it reads as empty\njava.io.IOException: boom\n"
        + "cotenant: error: it broke\ncotenant: partial line\n", sink.toString(StandardCharsets.UTF_8));
  }

  @Test
  void aLeakIsReportedOnceOnStandardOutputAndNotAgainAsAWarning() throws Exception {
    ProbeHarness processes = new ProbeHarness();
    Path records = Files.createDirectories(tmp.resolve("records"));
    Path config = tmp.resolve("mcp.json");
    Files.writeString(config, JsonMapperHolder.JSON.writeValueAsString(java.util.Map.of("mcpServers",
        java.util.Map.of("global", java.util.Map.of("command", ProbeHarness.JAVA, "args", ProbeHarness.javaArgs("global"))))));
    Process p = new ProcessBuilder(ProbeHarness.JAVA, "-cp", ProbeHarness.CLASSPATH, Main.class.getName(),
        "probe-stateless", "global", "--tool", "remember", "--args", "{\"target\": \"{marker}\"}", config.toString(),
        "--records-dir", records.toString()).start();
    java.util.concurrent.CompletableFuture<String> out = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
      try {
        return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    });
    String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(120, TimeUnit.SECONDS));
    assertEquals(ProbeStatelessCommand.EXIT_LEAK, p.exitValue(), err);
    assertEquals(1, out.get().lines().filter(l -> l.startsWith("LEAKED")).count(), out.get());
    assertTrue(err.lines().noneMatch(l -> l.contains("marker")), "the leak is on standard output only: " + err);
    processes.assertNoneLeft();
  }

  private static final class JsonMapperHolder {
    static final tools.jackson.databind.json.JsonMapper JSON = tools.jackson.databind.json.JsonMapper.builder().build();
  }
}
