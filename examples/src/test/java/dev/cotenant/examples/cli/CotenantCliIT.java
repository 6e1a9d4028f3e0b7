package dev.cotenant.examples.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

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
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
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
class CotenantCliIT {
  /** The repository root: the parent of the examples module the tests run in. */
  private static final Path ROOT = Path.of("").toAbsolutePath().getParent();
  /** Generous: ten servers, two spawns each, on a loaded two-core machine. */
  private static final long RUN_BOUND_SECONDS = 300;
  private static final long EXIT_BOUND_SECONDS = 30;
  private static final String MARKER_ENV = "COTENANT_CLI_IT_MARKER";

  private final String marker = UUID.randomUUID().toString();

  @TempDir Path tmp;

  /** What one run printed. */
  private record Run(int code, String out, String err) {}

  private Run cotenant(String... args) throws IOException, InterruptedException {
    assertTrue(
        Files.isRegularFile(ROOT.resolve("gateway-adapter/target/cotenant.jar")),
        "gateway-adapter/target/cotenant.jar is missing: run the reactor build (mvn -B verify) from the repository root");
    List<String> command = new ArrayList<>();
    command.add(ROOT.resolve("cotenant").toString());
    command.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(command).directory(ROOT.toFile());
    pb.environment().remove("SAMPLE_API_TOKEN");
    pb.environment().remove("COTENANT_HOME");
    pb.environment().put(MARKER_ENV, marker);
    Process p = pb.start();
    p.getOutputStream().close();
    CompletableFuture<String> out = drain(p.getInputStream());
    CompletableFuture<String> err = drain(p.getErrorStream());
    if (!p.waitFor(RUN_BOUND_SECONDS, TimeUnit.SECONDS)) {
      p.descendants().forEach(ProcessHandle::destroyForcibly);
      p.destroyForcibly();
      fail("cotenant " + String.join(" ", args) + " did not finish within " + RUN_BOUND_SECONDS + " s");
    }
    return new Run(p.exitValue(), out.join(), err.join());
  }

  private static CompletableFuture<String> drain(InputStream in) {
    return CompletableFuture.supplyAsync(() -> {
      try (in) {
        return new String(in.readAllBytes(), StandardCharsets.UTF_8);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    });
  }

  private static Map<String, JsonNode> rows(String json) {
    Map<String, JsonNode> rows = new LinkedHashMap<>();
    JsonMapper.builder().build().readTree(json).path("servers").forEach(s -> rows.put(s.path("name").stringValue(), s));
    return rows;
  }

  private static List<String> reasons(JsonNode row) {
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
    assertTrue(first.err().contains("measured 8 of 9 servers"), first.err());

    Map<String, JsonNode> rows = rows(first.out());
    assertEquals(
        List.of("echo", "global-state", "caller-identity", "caller-tools", "needs-credential", "logging",
            "workspace-keyed", "discover", "server-everything", "remote-http"),
        List.copyOf(rows.keySet()));
    assertVerdict(rows, "echo", "measured", true, false, "preflight_passed");
    assertVerdict(rows, "global-state", "measured", true, false, "preflight_passed");
    assertVerdict(rows, "caller-identity", "declared", true, true, "declares_caller_identity(cotenant.caller-identity)", "preflight_passed");
    assertVerdict(rows, "caller-tools", "no_objection", true, false, "no_objection_found", "handshake_not_reproducible(tools)");
    assertVerdict(rows, "needs-credential", "unknown", false, false, "not_probed");
    assertVerdict(rows, "logging", "measured", true, false, "preflight_passed", "degrades_when_shared(logging_level)");
    assertVerdict(rows, "workspace-keyed", "measured", true, false, "preflight_passed");
    assertVerdict(rows, "discover", "measured", true, false, "preflight_passed");
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

  @AfterEach
  void noProcessLeftBehind() throws IOException, InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(EXIT_BOUND_SECONDS);
    List<ProcessHandle> left = marked();
    while (!left.isEmpty() && System.nanoTime() < deadline) {
      for (ProcessHandle h : left) {
        try {
          h.onExit().get(1, TimeUnit.SECONDS);
        } catch (TimeoutException | ExecutionException e) {
          // still alive (or its exit could not be observed): look again until the deadline
        }
      }
      left = marked();
    }
    List<String> described = left.stream().map(h -> h.pid() + " " + h.info().commandLine().orElse("?")).toList();
    left.forEach(ProcessHandle::destroyForcibly);
    assertEquals(List.of(), described, "processes started by the CLI are still alive");
  }

  /** Live processes whose environment carries this test's marker (Linux: /proc/PID/environ). */
  private List<ProcessHandle> marked() throws IOException {
    Path proc = Path.of("/proc");
    assertTrue(Files.isDirectory(proc), "this check reads /proc/PID/environ (Linux)");
    byte[] needle = (MARKER_ENV + "=" + marker).getBytes(StandardCharsets.UTF_8);
    List<ProcessHandle> out = new ArrayList<>();
    try (Stream<Path> entries = Files.list(proc)) {
      for (Path p : entries.filter(e -> e.getFileName().toString().chars().allMatch(Character::isDigit)).toList()) {
        byte[] env;
        try {
          env = Files.readAllBytes(p.resolve("environ"));
        } catch (IOException | SecurityException e) {
          continue; // gone, or not ours to read
        }
        if (contains(env, needle)) {
          ProcessHandle.of(Long.parseLong(p.getFileName().toString())).filter(ProcessHandle::isAlive).ifPresent(out::add);
        }
      }
    }
    return out;
  }

  private static boolean contains(byte[] hay, byte[] needle) {
    outer:
    for (int i = 0; i + needle.length <= hay.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (hay[i + j] != needle[j]) {
          continue outer;
        }
      }
      return true;
    }
    return false;
  }
}
