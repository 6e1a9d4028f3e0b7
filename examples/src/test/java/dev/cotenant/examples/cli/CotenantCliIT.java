package dev.cotenant.examples.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.cotenant.testkit.process.ChecksProcessLeaks;
import dev.cotenant.testkit.process.Processes;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The README's main command, {@code ./cotenant measure examples/mcp.json}, run from the
 * repository root as a real process against the packaged CLI and sample servers, with a fresh
 * records directory: every sample server gets the verdict examples/README.md documents, and no
 * process is left behind.
 */
@ChecksProcessLeaks(waitMillis = CotenantCliIT.EXIT_BOUND_MILLIS)
public class CotenantCliIT {
  /** The repository root: the parent of the examples module the tests run in. */
  private static final Path ROOT = Path.of("").toAbsolutePath().getParent();
  /** Generous: fourteen servers, two spawns each, on a loaded two-core machine. */
  private static final long RUN_BOUND_SECONDS = 300;
  /** How long the processes the CLI started may take to exit after the test. */
  static final long EXIT_BOUND_MILLIS = 30_000;

  @TempDir Path tmp;

  /** What one run printed. */
  public record Run(int code, String out, String err) {}

  /** Runs {@code ./cotenant ARGS} from the repository root, its processes marked for the leak check. */
  static Run cotenant(String... args) throws IOException, InterruptedException {
    return cotenant(Map.of(), args);
  }

  /** As {@link #cotenant(String...)}, with {@code env} added to the environment. */
  static Run cotenant(Map<String, String> env, String... args) throws IOException, InterruptedException {
    assertTrue(
        Files.isRegularFile(ROOT.resolve("cli/target/cotenant.jar")),
        "cli/target/cotenant.jar is missing: run the reactor build (mvn -B verify) from the repository root");
    List<String> command = new ArrayList<>();
    command.add(ROOT.resolve("cotenant").toString());
    command.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(command).directory(ROOT.toFile());
    pb.environment().remove("SAMPLE_API_TOKEN");
    pb.environment().remove("COTENANT_HOME");
    pb.environment().putAll(env);
    // Marks the CLI and everything it starts, so that the leak check finds them wherever they end up.
    pb.environment().put(Processes.COOKIE_ENV, Processes.cookie());
    return run(pb, "cotenant " + String.join(" ", args));
  }

  /**
   * Starts {@code pb} with its input closed and collects what it prints; kills it with its
   * descendants and fails, naming it {@code what}, when it does not finish within the run bound.
   */
  public static Run run(ProcessBuilder pb, String what) throws IOException, InterruptedException {
    Process p = pb.start();
    p.getOutputStream().close();
    CompletableFuture<String> out = drain(p.getInputStream());
    CompletableFuture<String> err = drain(p.getErrorStream());
    if (!p.waitFor(RUN_BOUND_SECONDS, TimeUnit.SECONDS)) {
      p.descendants().forEach(ProcessHandle::destroyForcibly);
      p.destroyForcibly();
      fail(what + " did not finish within " + RUN_BOUND_SECONDS + " s");
    }
    return new Run(p.exitValue(), out.join(), err.join());
  }

  /** All of {@code in}, read on another thread, as UTF-8. */
  public static CompletableFuture<String> drain(InputStream in) {
    return CompletableFuture.supplyAsync(() -> {
      try (in) {
        return new String(in.readAllBytes(), StandardCharsets.UTF_8);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    });
  }

  /** The rows of a {@code --json} verdict table, by server name. */
  public static Map<String, JsonNode> rows(String json) {
    Map<String, JsonNode> rows = new LinkedHashMap<>();
    JsonMapper.builder().build().readTree(json).path("servers").forEach(s -> rows.put(s.path("name").stringValue(), s));
    return rows;
  }

  static List<String> reasons(JsonNode row) {
    List<String> out = new ArrayList<>();
    row.path("reasons").forEach(r -> {
      String detail = r.path("detail").stringValue();
      out.add(detail.isEmpty() ? r.path("code").stringValue() : r.path("code").stringValue() + "(" + detail + ")");
    });
    return out;
  }

  private static void assertVerdict(Map<String, JsonNode> rows, String name, String strength, boolean stub, boolean share, String... reasons) {
    JsonNode row = rows.get(name);
    assertTrue(row != null, "no row for " + name + " in " + rows.keySet());
    assertEquals(strength, row.path("strength").stringValue(), name + ": " + row);
    assertEquals(stub, row.path("recommendStub").booleanValue(), name + ": recommendStub");
    assertEquals(share, row.path("recommendShare").booleanValue(), name + ": recommendShare");
    assertEquals("examples/mcp.json", row.path("source").stringValue(), name + ": source");
    for (String r : reasons) {
      assertTrue(reasons(row).contains(r), name + " lacks " + r + ": " + reasons(row));
    }
  }

  @Test
  void measureYieldsTheDocumentedVerdictOfEverySampleServer() throws Exception {
    Path records = tmp.resolve("records");
    Run first = cotenant("measure", "examples/mcp.json", "--json", "--records-dir", records.toString());
    assertEquals(0, first.code(), first.err());
    assertTrue(first.err().contains("measured 12 of 13 servers"), first.err());

    Map<String, JsonNode> rows = rows(first.out());
    assertEquals(
        List.of("echo", "global-state", "caller-identity", "caller-tools", "needs-credential", "logging",
            "workspace-keyed", "discover", "counter", "clock", "clock-counter", "destructive", "server-everything",
            "remote-http"),
        List.copyOf(rows.keySet()));
    assertVerdict(rows, "echo", "measured", true, false, "preflight_passed");
    assertVerdict(rows, "global-state", "measured", true, false, "preflight_passed");
    assertVerdict(rows, "caller-identity", "declared", true, true, "declares_caller_identity(cotenant.caller-identity)", "preflight_passed");
    assertVerdict(rows, "caller-tools", "no_objection", true, false, "no_objection_found", "handshake_not_reproducible(tools)");
    assertVerdict(rows, "needs-credential", "unknown", false, false, "not_probed");
    assertVerdict(rows, "logging", "measured", true, false, "preflight_passed", "degrades_when_shared(logging_level)");
    assertVerdict(rows, "workspace-keyed", "measured", true, false, "preflight_passed");
    assertVerdict(rows, "discover", "measured", true, false, "preflight_passed");
    assertVerdict(rows, "counter", "measured", true, false, "preflight_passed");
    assertVerdict(rows, "clock", "measured", true, false, "preflight_passed", "all_tools_read_only");
    assertVerdict(rows, "clock-counter", "measured", true, false, "preflight_passed");
    assertVerdict(rows, "destructive", "measured", true, false, "preflight_passed");
    assertVerdict(rows, "server-everything", "no_objection", true, false,
        "degrades_when_shared(logging_level)", "handshake_not_reproducible(tools)");
    assertVerdict(rows, "remote-http", "disqualified", false, false, "not_stdio(http)");

    // The steady state is a file read: only the server that could not be asked is tried again.
    Run second = cotenant("measure", "examples/mcp.json", "--json", "--records-dir", records.toString());
    assertEquals(0, second.code(), second.err());
    assertTrue(second.err().contains("measuring: 1/1 done, 0 measured"), second.err());
    assertEquals(rows.toString(), rows(second.out()).toString());

    // assess reads the same records and spawns nothing.
    Run assess = cotenant("assess", "examples/mcp.json", "--json", "--records-dir", records.toString());
    assertEquals(0, assess.code(), assess.err());
    assertEquals(rows.toString(), rows(assess.out()).toString());
  }

  /**
   * server-everything passes a probe of its {@code echo}, yet on one shared process its session
   * resources, its logging toggle and its log notifications cross between callers: the
   * whole-surface probe finds them, exits 3, and from then on the server reads refuted and
   * cannot be registered shared.
   */
  @Test
  void theWholeSurfaceProbeCatchesServerEverythingAndRegistrationIsRefused() throws Exception {
    Path records = tmp.resolve("records");
    // Its long-running operation takes a second a call with the synthesised arguments, and the
    // probe calls it about two dozen times: a plan makes it short (the probe took 42 s, now 19 s).
    Path plan = Files.writeString(tmp.resolve("plan.json"),
        "{\"tools\": {\"trigger-long-running-operation\": {\"arguments\": {\"duration\": 0.05, \"steps\": 1}}}}");
    Run probe = cotenant("probe-stateless", "server-everything", "examples/mcp.json", "--json", "--plan", plan.toString(),
        "--records-dir", records.toString());
    assertEquals(3, probe.code(), probe.err() + probe.out());
    JsonNode report = JsonMapper.builder().build().readTree(probe.out());
    assertEquals("hazard", report.path("outcome").stringValue());
    List<String> codes = new ArrayList<>();
    report.path("hazards").forEach(h -> codes.add(h.path("code").stringValue()));
    assertEquals(List.of("cross_session_leak", "unattributable_notification"), codes, probe.out());
    JsonNode listed = null;
    for (JsonNode l : report.path("listings")) {
      if (l.path("method").stringValue().equals("resources/list")) {
        listed = l;
      }
    }
    assertTrue(listed != null && listed.path("leaked").booleanValue(), probe.out());
    JsonNode first = listed.path("findings").path(0);
    assertEquals("marker", first.path("kind").stringValue());
    assertTrue(first.path("path").stringValue().startsWith("$.result.resources["), first.toString());
    JsonNode toggle = null;
    for (JsonNode t : report.path("tools")) {
      if (t.path("name").stringValue().equals("toggle-simulated-logging")) {
        toggle = t;
      }
    }
    assertTrue(toggle != null && toggle.path("status").stringValue().equals("leaked"), probe.out());
    boolean flipped = false;
    for (JsonNode f : toggle.path("findings")) {
      flipped |= f.path("round").intValue() == 1 && f.path("caller").stringValue().equals("B")
          && f.path("kind").stringValue().equals("changed_answer") && f.path("detail").stringValue().contains("got Stopped");
    }
    assertTrue(flipped, "caller B's first toggle answered Stopped, because A started it: " + toggle);

    Run register = cotenant("register", "server-everything", "examples/mcp.json", "--records-dir", records.toString(),
        "--model", "shared", "--max-concurrent", "4");
    assertEquals(4, register.code(), register.err());
    assertTrue(register.err().contains("the hazard ledger holds [cross_session_leak, unattributable_notification]"),
        register.err());
    Run assess = cotenant("assess", "examples/mcp.json", "--json", "--records-dir", records.toString());
    JsonNode row = rows(assess.out()).get("server-everything");
    assertEquals("refuted", row.path("strength").stringValue(), row.toString());
    assertTrue(reasons(row).contains("observed_hazard(cross_session_leak)"), row.toString());
    assertFalse(row.path("recommendShare").booleanValue());
  }
}
