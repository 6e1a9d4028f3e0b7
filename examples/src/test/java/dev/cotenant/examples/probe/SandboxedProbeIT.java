package dev.cotenant.examples.probe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.api.ServerDescription;
import dev.cotenant.api.Transport;
import dev.cotenant.examples.servers.SandboxCanaryServer;
import dev.cotenant.gateway.Cotenant;
import dev.cotenant.gateway.probe.ProbePlan;
import dev.cotenant.gateway.probe.SurfaceReport;
import dev.cotenant.gateway.probe.SurfaceReport.ToolResult;
import dev.cotenant.gateway.probe.SurfaceReport.ToolStatus;
import dev.cotenant.gateway.sandbox.Sandbox;
import dev.cotenant.providers.preflight.PreflightSettings;
import dev.cotenant.providers.session.SessionSettings;
import dev.cotenant.testkit.process.ChecksProcessLeaks;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The probe's sandbox against {@link SandboxCanaryServer}, whose tools delete a file its env
 * names, write under {@code $HOME} and connect to a listener this test opens on 127.0.0.1, and
 * which leaves behind a grandchild that called {@code setsid} and cleared its env. Inside the
 * sandbox every tool is called and none of it reaches the operator; in the fallback the
 * destructive tool is skipped, and the report says so.
 */
@ChecksProcessLeaks(waitMillis = 60_000)
class SandboxedProbeIT {
  /** The repository root: the parent of the examples module the tests run in. */
  private static final Path ROOT = Path.of("").toAbsolutePath().getParent();

  @TempDir Path records;
  @TempDir Path operator;

  private ServerSocket listener;
  private final AtomicInteger connections = new AtomicInteger();
  private Thread acceptor;
  private String tag;

  @BeforeEach
  void listen() throws IOException {
    tag = "cotenant-canary-orphan-" + UUID.randomUUID();
    listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    acceptor = new Thread(() -> {
      while (!listener.isClosed()) {
        try (Socket accepted = listener.accept()) {
          connections.incrementAndGet();
          accepted.shutdownOutput();
        } catch (SocketException e) {
          return;
        } catch (IOException e) {
          // keep listening
        }
      }
    }, "canary-listener");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  @AfterEach
  void close() throws Exception {
    listener.close();
    acceptor.join(5_000);
    orphans().forEach(ProcessHandle::destroyForcibly);
  }

  private Stream<ProcessHandle> orphans() {
    return ProcessHandle.allProcesses().filter(p -> p.info().commandLine().orElse("").contains(tag));
  }

  private Cotenant cotenant(String sandbox) {
    return Cotenant.builder()
        .config(Map.of(PreflightSettings.TIMEOUT_MS, "60000", PreflightSettings.DISCOVER_TIMEOUT_MS, "30000",
            SessionSettings.DISCOVER_TIMEOUT_MS, "30000",
            Sandbox.KEY, sandbox))
        .recordsDirectory(records)
        .build();
  }

  private ServerDescription canary(Path precious, Map<String, String> extra) {
    Map<String, String> env = new HashMap<>(extra);
    env.put("CANARY_FILE", precious.toString());
    env.put("CANARY_PORT", String.valueOf(listener.getLocalPort()));
    return new ServerDescription("sandbox-canary", Transport.STDIO, ROOT.resolve("examples/probe-samples/sandbox-canary").toString(),
        List.of(), Optional.empty(), env, Optional.empty(), true);
  }

  private static ToolResult tool(SurfaceReport r, String name) {
    return r.tools().stream().filter(t -> t.name().equals(name)).findFirst().orElseThrow(() -> new AssertionError(r));
  }

  private static List<Path> notes(Path home) throws IOException {
    try (Stream<Path> list = Files.list(home)) {
      return list.filter(p -> p.getFileName().toString().startsWith(SandboxCanaryServer.NOTE_PREFIX)).toList();
    }
  }

  @Test
  void insideTheSandboxEveryToolIsCalledAndNothingReachesTheOperator() throws Exception {
    Path precious = Files.writeString(operator.resolve("precious.txt"), "keep me\n");
    Path realHome = Path.of(System.getProperty("user.home"));
    List<Path> notesBefore = notes(realHome);
    List<Path> privateBefore = privateDirectories();

    SurfaceReport r = cotenant("auto").statelessness()
        .probeSurface(canary(precious, Map.of("CANARY_ORPHAN", tag)), ProbePlan.empty(), 3);

    assertTrue(r.sandbox().sandboxed(), "no sandbox here: " + r.sandbox().why()
        + " (.ci/run installs Debian's bubblewrap)");
    assertFalse(r.sandbox().network(), r.toString());
    ToolResult delete = tool(r, "delete_precious");
    assertEquals(ToolStatus.PASSED, delete.status(), "the destructive tool is called, and deletes its private copy: " + r);
    assertEquals(ToolStatus.PASSED, tool(r, "note_at_home").status(), "it wrote in its private HOME: " + r);
    ToolResult phone = tool(r, "phone_home");
    assertEquals(ToolStatus.NOT_PROVEN, phone.status(), r.toString());
    assertTrue(phone.why().contains("no connection to 127.0.0.1"), phone.why());

    assertEquals("keep me\n", Files.readString(precious), "the file the env names is intact");
    assertEquals(notesBefore, notes(realHome), "nothing was written to the real HOME");
    assertEquals(0, connections.get(), "the listener on 127.0.0.1 saw no connection");
    assertEquals(List.of(), orphans().map(ProcessHandle::pid).toList(), "the setsid grandchild ended with the sandbox");
    List<Path> left = new java.util.ArrayList<>(privateDirectories());
    left.removeAll(privateBefore);
    assertEquals(List.of(), left, "the probe's private directories are removed");
  }

  /** The sandboxes' and probes' private directories of this JVM. */
  private static List<Path> privateDirectories() throws IOException {
    String pid = String.valueOf(ProcessHandle.current().pid());
    try (Stream<Path> list = Files.list(Path.of(System.getProperty("java.io.tmpdir")))) {
      return list.filter(p -> p.getFileName().toString().startsWith("cotenant-sandbox-" + pid + "-")
          || p.getFileName().toString().startsWith("cotenant-probe-" + pid + "-")).toList();
    }
  }

  @Test
  void withoutTheSandboxTheDestructiveToolIsSkippedAndTheReportSaysWhy() throws Exception {
    Path precious = Files.writeString(operator.resolve("precious.txt"), "keep me\n");
    Path home = Files.createDirectory(operator.resolve("home"));

    SurfaceReport r = cotenant("off").statelessness()
        .probeSurface(canary(precious, Map.of("HOME", home.toString())), ProbePlan.empty(), 3);

    assertFalse(r.sandbox().sandboxed(), r.toString());
    assertEquals("turned off (cotenant.sandbox=off)", r.sandbox().why());
    ToolResult delete = tool(r, "delete_precious");
    assertEquals(ToolStatus.SKIPPED, delete.status(), r.toString());
    assertTrue(delete.why().contains("no sandbox to call it in (turned off (cotenant.sandbox=off))"), delete.why());
    assertEquals(SurfaceReport.Outcome.NOT_PROVEN, r.outcome(), r.toString());
    assertEquals("keep me\n", Files.readString(precious));
    // Unsandboxed, the other tools reach what they name: the operator's HOME and the listener.
    assertFalse(notes(home).isEmpty(), "unsandboxed, note_at_home wrote in the HOME it was given");
    assertTrue(connections.get() > 0, "unsandboxed, phone_home reached the listener");
  }
}
