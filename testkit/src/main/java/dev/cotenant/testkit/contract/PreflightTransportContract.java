package dev.cotenant.testkit.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.cotenant.api.HandshakeComparator;
import dev.cotenant.api.HandshakeFacts;
import dev.cotenant.api.ServerDescription;
import dev.cotenant.api.ToolFacts;
import dev.cotenant.spi.PreflightResult;
import dev.cotenant.spi.PreflightTransport;
import dev.cotenant.testkit.process.ChecksProcessLeaks;
import dev.cotenant.testkit.process.ProcessSnapshot;
import dev.cotenant.testkit.process.Processes;
import dev.cotenant.testkit.server.FakeServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The contract of a {@link PreflightTransport} (docs/preflight.md), run against the kit's
 * {@link FakeServer}.
 *
 * <p><b>Checks:</b> a deterministic server, in either protocol era, ran ({@code ran} true) with no
 * divergent facet, and the handshake facts of the first caller are returned (tools, capabilities,
 * reported version); a server whose tool list depends on the caller's {@code clientInfo} yields
 * the {@value HandshakeComparator#TOOLS} divergence, in either era; a command that does not start,
 * a server that exits during the handshake, a disabled server (never started) and a non-stdio
 * server each resolve to {@code notRun} with a reason, and nothing escapes; no process is left
 * afterwards, the server's own child included; the description is not changed; pre-flights from
 * several threads at once all run; cancellation ({@link InterruptedException}) passes through and
 * leaves no process. Every test also fails if it leaves a process running
 * ({@link ChecksProcessLeaks}).
 *
 * <p><b>Extending:</b> implement {@link #preflight()}; override {@link #bound()} and
 * {@link #teardownGrace()} when your pre-flight needs longer. The transport must pass a
 * description's {@code env} to the process (the fake server's marker travels there). Test methods
 * are package-private: a subclass cannot override a rule away.
 *
 * <p><b>Thread-safety:</b> one suite instance per test, as JUnit does by default; not for parallel
 * execution (the process checks see every process this JVM starts).
 */
@ChecksProcessLeaks
public abstract class PreflightTransportContract {
  /** A fresh directory per test. */
  @TempDir protected Path directory;

  /** For subclasses. */
  protected PreflightTransportContract() {}

  /** The pre-flight under test. */
  protected abstract PreflightTransport preflight() throws Exception;

  /** How long one pre-flight of a fake server may take; 60 s by default. */
  protected Duration bound() {
    return Duration.ofSeconds(60);
  }

  /** How long after a pre-flight returned its processes may take to be gone; 2 s by default. */
  protected Duration teardownGrace() {
    return Duration.ofSeconds(2);
  }

  private PreflightResult run(ServerDescription server) throws Exception {
    PreflightTransport p = preflight();
    CompletableFuture<PreflightResult> f = new CompletableFuture<>();
    Thread t = new Thread(() -> {
      try {
        f.complete(p.preflight(server));
      } catch (Throwable e) {
        f.completeExceptionally(e);
      }
    }, "contract-preflight");
    t.setDaemon(true);
    t.start();
    try {
      PreflightResult r = f.get(bound().toMillis(), TimeUnit.MILLISECONDS);
      assertNotNull(r, "preflight returned null for " + server.name());
      return r;
    } catch (TimeoutException e) {
      t.interrupt();
      throw new AssertionError("the pre-flight of " + server.name() + " took longer than " + bound().toMillis() + " ms", e);
    } catch (ExecutionException e) {
      throw new AssertionError("the pre-flight of " + server.name() + " threw instead of resolving to notRun: " + e.getCause(),
          e.getCause());
    }
  }

  private static FakeServer deterministic(FakeServer.Era era) {
    return FakeServer.builder()
        .era(era)
        .serverInfo("contract-server", "1.2.3")
        .tool("echo", Map.of("readOnlyHint", true, "title", "Echo"))
        .tool("add")
        .prompts("greet")
        .resources("file:///notes")
        .logging()
        .build();
  }

  private static void assertRanWithoutDivergence(PreflightResult r, String what) {
    assertTrue(r.ran(), what + " did not run: " + r.notRunReason());
    assertEquals(List.of(), r.divergentFacets(), what + " diverged");
    assertEquals("", r.notRunReason(), what + " ran with a not-run reason");
    HandshakeFacts facts = r.handshake().orElseThrow(() -> new AssertionError(what + " ran without handshake facts"));
    assertEquals(Set.of("echo", "add"), facts.tools().stream().map(ToolFacts::name).collect(Collectors.toSet()),
        what + ": the first caller's tools");
    assertTrue(facts.tools().stream().anyMatch(ToolFacts::readOnly), what + ": the annotations of the first caller's tools");
    assertTrue(facts.hasCapability("logging"), what + ": the first caller's capabilities");
    assertEquals(Optional.of("1.2.3"), r.reportedVersion(), what + ": the reported version");
  }

  private static void assertNotRun(PreflightResult r, String what) {
    assertFalse(r.ran(), what + " reported that it ran");
    assertFalse(r.notRunReason().isBlank(), what + " did not say why it did not run");
    assertEquals(List.of(), r.divergentFacets(), what + " did not run yet reported divergent facets");
    assertFalse(r.callerSensitive(), what + " did not run yet reported caller-sensitivity");
  }

  @Test
  void aDeterministicServerRanWithNoDivergentFacets() throws Exception {
    assertRanWithoutDivergence(run(deterministic(FakeServer.Era.LEGACY).description()), "a deterministic initialize-era server");
  }

  @Test
  void aDeterministicDiscoverEraServerRanWithNoDivergentFacets() throws Exception {
    assertRanWithoutDivergence(run(deterministic(FakeServer.Era.MODERN).description()), "a deterministic discover-era server");
  }

  @Test
  void aServerWhoseToolsDependOnTheCallerDiverges() throws Exception {
    for (FakeServer.Era era : List.of(FakeServer.Era.LEGACY, FakeServer.Era.MODERN)) {
      FakeServer server = FakeServer.builder().era(era).tool("echo").callerSensitiveTools().build();
      PreflightResult r = run(server.description());
      assertTrue(r.ran(), era + ": a caller-sensitive server did not run: " + r.notRunReason());
      assertTrue(r.divergentFacets().contains(HandshakeComparator.TOOLS),
          era + ": tools that depend on clientInfo were not reported as divergent: " + r.divergentFacets());
      assertTrue(r.callerSensitive(), era + ": callerSensitive()");
    }
  }

  @Test
  void aCommandThatDoesNotStartIsNotRun() throws Exception {
    assertNotRun(run(ServerDescription.stdio("missing", directory.resolve("no-such-command").toString())),
        "a command that does not exist");
  }

  @Test
  void aServerThatExitsDuringTheHandshakeIsNotRun() throws Exception {
    assertNotRun(run(FakeServer.builder().era(FakeServer.Era.LEGACY).exitAfter(1).build().description()),
        "a server that exits during the handshake");
  }

  @Test
  void aDisabledServerIsNotRunAndNeverStarted() throws Exception {
    Path starts = directory.resolve("starts.txt");
    ServerDescription disabled = FakeServer.builder().recordsStartsIn(starts).build().description().withEnabled(false);
    assertNotRun(run(disabled), "a disabled server");
    assertTrue(!Files.exists(starts) || Files.readString(starts).isEmpty(), "a disabled server was started");
  }

  @Test
  void aServerThatIsNotStdioIsNotRun() throws Exception {
    assertNotRun(run(ServerDescription.http("remote", "http://127.0.0.1:9/mcp")), "an HTTP server");
  }

  @Test
  void noProcessIsLeftAfterwards() throws Exception {
    ProcessSnapshot before = ProcessSnapshot.take();
    FakeServer sloppy = FakeServer.builder().era(FakeServer.Era.LEGACY).tool("echo").spawnsChild().build();
    assertTrue(run(sloppy.description()).ran(), "a server with a child process did not run");
    List<ProcessHandle> left = Processes.awaitExit(before.startedSince(), teardownGrace());
    assertEquals(List.of(), left.stream().map(Processes::describe).collect(Collectors.toList()),
        "processes still ran " + teardownGrace().toMillis() + " ms after the pre-flight returned");
  }

  @Test
  void theDescriptionIsUnchanged() throws Exception {
    ServerDescription server = deterministic(FakeServer.Era.BOTH).description();
    ServerDescription copy = new ServerDescription(server.name(), server.transport(), server.command(), server.args(),
        server.cwd(), server.env(), server.url(), server.enabled());
    run(server);
    assertEquals(copy, server, "the pre-flight changed the description it was given");
  }

  @Test
  void preflightsFromSeveralThreadsAtOnceAllRun() throws Exception {
    PreflightTransport p = preflight();
    List<PreflightResult> results = Concurrently.run(3, bound().toSeconds(),
        i -> p.preflight(deterministic(i % 2 == 0 ? FakeServer.Era.LEGACY : FakeServer.Era.MODERN).description()));
    for (PreflightResult r : results) {
      assertRanWithoutDivergence(r, "one of three concurrent pre-flights");
    }
  }

  @Test
  void cancellationPassesThroughAndLeavesNoProcess() throws Exception {
    ProcessSnapshot before = ProcessSnapshot.take();
    PreflightTransport p = preflight();
    ServerDescription silent = FakeServer.builder().silent().build().description();
    CompletableFuture<Object> outcome = new CompletableFuture<>();
    Thread t = new Thread(() -> {
      try {
        outcome.complete(p.preflight(silent));
      } catch (Throwable e) {
        outcome.complete(e);
      }
    }, "contract-cancelled-preflight");
    t.setDaemon(true);
    t.start();
    long deadline = System.nanoTime() + bound().toNanos();
    while (before.startedSince().isEmpty() && System.nanoTime() < deadline && !outcome.isDone()) {
      Thread.sleep(20);
    }
    Thread.sleep(200);
    t.interrupt();
    Object result;
    try {
      result = outcome.get(bound().toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      fail("an interrupted pre-flight did not return within " + bound().toMillis() + " ms");
      return;
    }
    assertInstanceOf(InterruptedException.class, result,
        "an interrupted pre-flight did not throw InterruptedException but ended with " + result);
    List<ProcessHandle> left = Processes.awaitExit(before.startedSince(), teardownGrace());
    assertEquals(List.of(), left.stream().map(Processes::describe).collect(Collectors.toList()),
        "processes still ran " + teardownGrace().toMillis() + " ms after the pre-flight was cancelled");
  }
}
