package dev.cotenant.examples.preflight;

import static dev.cotenant.examples.preflight.PreflightFixture.BOUND;
import static dev.cotenant.examples.preflight.PreflightFixture.DISCOVER_ERA;
import static dev.cotenant.examples.preflight.PreflightFixture.HANDSHAKE_ERA;
import static dev.cotenant.examples.preflight.PreflightFixture.REPOSITORY_ROOT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.api.HandshakeFacts;
import dev.cotenant.api.Reason;
import dev.cotenant.api.ReasonCode;
import dev.cotenant.api.ServerDescription;
import dev.cotenant.api.Strength;
import dev.cotenant.api.ToolFacts;
import dev.cotenant.api.Verdict;
import dev.cotenant.examples.servers.CallerIdentityServer;
import dev.cotenant.examples.servers.CallerToolsServer;
import dev.cotenant.examples.servers.ClockCounterServer;
import dev.cotenant.examples.servers.ClockServer;
import dev.cotenant.examples.servers.CounterServer;
import dev.cotenant.examples.servers.DestructiveServer;
import dev.cotenant.examples.servers.DiscoverServer;
import dev.cotenant.examples.servers.EchoServer;
import dev.cotenant.examples.servers.GlobalStateServer;
import dev.cotenant.examples.servers.LoggingServer;
import dev.cotenant.examples.servers.NeedsCredentialServer;
import dev.cotenant.examples.servers.WorkspaceKeyedServer;
import dev.cotenant.gateway.Cotenant;
import dev.cotenant.providers.preflight.PreflightSettings;
import dev.cotenant.providers.session.StdioSessionTransportProvider;
import dev.cotenant.spi.PreflightResult;
import dev.cotenant.spi.PreflightTransport;
import dev.cotenant.spi.ProviderContext;
import dev.cotenant.spi.SessionTransport;
import dev.cotenant.spi.SessionTransportProvider;
import dev.cotenant.testkit.process.CountingSessionTransport;
import dev.cotenant.testkit.process.ProcessSnapshot;
import dev.cotenant.testkit.process.Processes;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every entry of {@code examples/mcp.json} pre-flighted for real, the way a host pre-flights its
 * configuration: all at once through one {@code stdio} transport, so its own process ceiling
 * decides how many server processes run together. Each test then reads one server's result: did
 * the pre-flight run, which facet diverged (if any), the first caller's handshake facts, and the
 * verdict the default evidence chain draws from them (the table in {@code examples/README.md}).
 *
 * <p>Besides the configured entries: {@code needs-credential} once more with its token, and a
 * command that does not exist. The whole pass must leave no process alive, descendants included.
 */
class SampleServersPreflightIT {

  /** The {@code needs-credential} entry run with its credential in the description's env. */
  static final String WITH_TOKEN = "needs-credential (with SAMPLE_API_TOKEN)";

  /** A stdio server whose command does not exist. */
  static final String MISSING = "no-such-server";

  @TempDir static Path records;

  private static Cotenant cotenant;
  private static ProcessSnapshot processesBefore;
  private static final Map<String, ServerDescription> servers = new LinkedHashMap<>();
  private static final Map<String, PreflightResult> results = new LinkedHashMap<>();
  private static List<String> survivors;
  /** The runtime's session transport, counting every server process a session opens and closes. */
  private static CountingSessionTransport sessions;

  @BeforeAll
  static void preflightEveryServerAtOnce() throws Exception {
    PreflightFixture.requireBuiltServers();
    servers.putAll(PreflightFixture.mcpJson());
    // The entry exactly as configured, on a host that lacks the token whatever this JVM inherited:
    // the launcher is exec'd from a shell that unsets it (the evidence reads no command).
    ServerDescription needsCredential = servers.get("needs-credential");
    servers.put("needs-credential", new ServerDescription(needsCredential.name(), needsCredential.transport(), "/bin/sh",
        List.of("-c", "unset " + NeedsCredentialServer.TOKEN_ENV + "; exec \"$0\" \"$@\"", needsCredential.command()),
        needsCredential.cwd(), needsCredential.env(), needsCredential.url(), true));
    servers.put(WITH_TOKEN, needsCredential.withEnv(Map.of(NeedsCredentialServer.TOKEN_ENV, "token-for-the-pre-flight")));
    servers.put(MISSING, ServerDescription.stdio(MISSING, REPOSITORY_ROOT.resolve("examples/bin/" + MISSING).toString()));

    processesBefore = ProcessSnapshot.take();
    // The runtime as configured, its stdio session transport wrapped so that every server process
    // a pre-flight session starts and tears down is counted as it happens.
    cotenant = Cotenant.builder()
        .config(PreflightFixture.config("auto"))
        .recordsDirectory(records)
        .sessionTransport(new SessionTransportProvider() {
          @Override
          public String name() {
            return "stdio-counted";
          }

          @Override
          public SessionTransport create(ProviderContext context) {
            sessions = new CountingSessionTransport(new StdioSessionTransportProvider().create(context));
            return sessions;
          }
        })
        .build();
    PreflightTransport transport = PreflightFixture.transport(cotenant);
    ExecutorService pool = Executors.newFixedThreadPool(servers.size());
    try {
      Map<String, Future<PreflightResult>> running = new LinkedHashMap<>();
      servers.forEach((name, server) -> running.put(name, pool.submit(() -> transport.preflight(server))));
      for (Map.Entry<String, Future<PreflightResult>> e : running.entrySet()) {
        results.put(e.getKey(), e.getValue().get(BOUND.toMillis(), TimeUnit.MILLISECONDS));
      }
    } finally {
      pool.shutdownNow();
    }
    survivors = survivingProcesses();
  }

  @AfterAll
  static void nothingStartedSinceIsAlive() throws InterruptedException {
    assertEquals(List.of(), survivingProcesses(), "processes left alive after the tests");
  }

  /**
   * Waits up to {@code BOUND} for every process started since {@link #processesBefore}
   * (descendants at any depth) to exit, then kills and describes those still running.
   */
  private static List<String> survivingProcesses() throws InterruptedException {
    List<ProcessHandle> left = Processes.awaitExit(processesBefore.startedSince(), BOUND);
    Processes.killTrees(left);
    return left.stream().map(Processes::describe).toList();
  }

  @Test
  void thePassLeftNoProcessAliveDescendantsIncluded() {
    assertEquals(List.of(), survivors, "processes the pre-flights started that outlived them");
  }

  @Test
  void theConcurrentPassStayedUnderTheTransportsProcessCeiling() {
    assertTrue(sessions.peakSeenAlive() > 1,
        "the pass ran server processes together: saw at most " + sessions.peakSeenAlive() + " alive at once");
    assertTrue(sessions.peakPossiblyLive() <= PreflightSettings.DEFAULT_MAX_PROCESSES,
        "at most " + PreflightSettings.DEFAULT_MAX_PROCESSES + " server processes at once, could have been "
            + sessions.peakPossiblyLive());
  }

  @Test
  void everyConfiguredEntryIsPreflighted() throws Exception {
    assertEquals(Set.of("echo", "global-state", "caller-identity", "caller-tools", "needs-credential", "logging",
            "workspace-keyed", "discover", "counter", "clock", "clock-counter", "destructive", "server-everything",
            "remote-http"),
        PreflightFixture.mcpJson().keySet(),
        "each examples/mcp.json entry has a test below");
  }

  @Test
  void echoReplaysIdenticallyAndIsMeasured() {
    HandshakeFacts facts = ranWithoutDivergence("echo");
    assertEquals(EchoServer.NAME, facts.serverInfo().get("name"));
    assertEquals(HANDSHAKE_ERA, facts.protocolVersion());
    assertEquals(Set.of("echo"), toolNames(facts));
    assertVerdict("echo", Strength.MEASURED,
        Reason.of(ReasonCode.PREFLIGHT_PASSED), new Reason(ReasonCode.NO_TOOL_ANNOTATIONS, HANDSHAKE_ERA));
  }

  /**
   * Samples that replay identically and are measured, with the server name and tools each
   * declares and every reason of its verdict. {@code global-state}'s state is not in the
   * handshake. The four samples for answer-comparing probes ({@code counter}, {@code clock},
   * {@code clock-counter}, {@code destructive}) annotate every tool, so none carries
   * {@code no_tool_annotations}; their state (or their clock) is not in the handshake, so each
   * replays identically. Only {@code clock}'s tools are all read-only.
   */
  static Stream<Arguments> measuredSamples() {
    return Stream.of(
        Arguments.of("global-state", GlobalStateServer.NAME, Set.of("set_target", "get_target", "remember"),
            List.of(Reason.of(ReasonCode.PREFLIGHT_PASSED), new Reason(ReasonCode.NO_TOOL_ANNOTATIONS, HANDSHAKE_ERA))),
        Arguments.of(WITH_TOKEN, NeedsCredentialServer.NAME, Set.of("whoami"),
            List.of(Reason.of(ReasonCode.PREFLIGHT_PASSED), new Reason(ReasonCode.NO_TOOL_ANNOTATIONS, HANDSHAKE_ERA),
                new Reason(ReasonCode.ROTATING_SECRET_ENV, NeedsCredentialServer.TOKEN_ENV))),
        Arguments.of("workspace-keyed", WorkspaceKeyedServer.NAME, Set.of("set_target", "get_target", "remember"),
            List.of(Reason.of(ReasonCode.PREFLIGHT_PASSED), new Reason(ReasonCode.NO_TOOL_ANNOTATIONS, HANDSHAKE_ERA))),
        Arguments.of("counter", CounterServer.NAME, Set.of("next", "toggle"),
            List.of(Reason.of(ReasonCode.PREFLIGHT_PASSED))),
        Arguments.of("clock", ClockServer.NAME, Set.of("echo", "now"),
            List.of(Reason.of(ReasonCode.PREFLIGHT_PASSED), Reason.of(ReasonCode.ALL_TOOLS_READ_ONLY))),
        Arguments.of("clock-counter", ClockCounterServer.NAME, Set.of("echo", "tick"),
            List.of(Reason.of(ReasonCode.PREFLIGHT_PASSED))),
        Arguments.of("destructive", DestructiveServer.NAME, Set.of("echo", "wipe_scratch"),
            List.of(Reason.of(ReasonCode.PREFLIGHT_PASSED))));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("measuredSamples")
  void replaysIdenticallyAndIsMeasured(String name, String serverName, Set<String> tools, List<Reason> reasons) {
    HandshakeFacts facts = ranWithoutDivergence(name);
    assertEquals(serverName, facts.serverInfo().get("name"));
    assertEquals(tools, toolNames(facts));
    assertVerdict(name, Strength.MEASURED, reasons.toArray(Reason[]::new));
  }

  @Test
  void callerIdentityReplaysIdenticallyAndIsDeclared() {
    HandshakeFacts facts = ranWithoutDivergence("caller-identity");
    assertEquals(CallerIdentityServer.NAME, facts.serverInfo().get("name"));
    assertEquals(Set.of(CallerIdentityServer.EXTENSION_KEY), facts.experimentalKeys());
    Verdict verdict = assertVerdict("caller-identity", Strength.DECLARED,
        new Reason(ReasonCode.DECLARES_CALLER_IDENTITY, CallerIdentityServer.EXTENSION_KEY),
        Reason.of(ReasonCode.PREFLIGHT_PASSED),
        new Reason(ReasonCode.NO_TOOL_ANNOTATIONS, HANDSHAKE_ERA));
    assertTrue(verdict.recommendShare(), "the only sample that may be shared");
  }

  @Test
  void callerToolsDivergesOnItsToolNames() {
    PreflightResult result = results.get("caller-tools");
    assertTrue(result.ran(), result::notRunReason);
    assertEquals(List.of("tools"), result.divergentFacets());
    HandshakeFacts facts = result.handshake().orElseThrow();
    assertEquals(CallerToolsServer.NAME, facts.serverInfo().get("name"));
    assertEquals(Set.of("echo"), toolNames(facts), "the first caller declares no client capability");
    assertVerdict("caller-tools", Strength.NO_OBJECTION,
        Reason.of(ReasonCode.NO_OBJECTION_FOUND),
        new Reason(ReasonCode.NO_TOOL_ANNOTATIONS, HANDSHAKE_ERA),
        new Reason(ReasonCode.HANDSHAKE_NOT_REPRODUCIBLE, "tools"));
  }

  @Test
  void needsCredentialWithoutItsTokenCouldNotBeAsked() {
    PreflightResult result = results.get("needs-credential");
    assertFalse(result.ran(), "it exits before answering");
    String reason = result.notRunReason();
    assertTrue(reason.startsWith("exited " + NeedsCredentialServer.MISSING_CREDENTIAL_EXIT + " before answering: "),
        reason);
    assertTrue(reason.contains(NeedsCredentialServer.TOKEN_ENV + " is not set"), "names what it lacks: " + reason);
    assertTrue(reason.length() <= 300 && reason.indexOf('\n') < 0, "short, one line: " + reason);
    assertEquals(List.of(), result.divergentFacets());
    assertTrue(result.handshake().isEmpty());
    assertVerdict("needs-credential", Strength.UNKNOWN,
        Reason.of(ReasonCode.NOT_PROBED), new Reason(ReasonCode.PREFLIGHT_NOT_RUN, reason));
  }

  @Test
  void loggingReplaysIdenticallyAndDegradesWhenShared() {
    HandshakeFacts facts = ranWithoutDivergence("logging");
    assertEquals(LoggingServer.NAME, facts.serverInfo().get("name"));
    assertTrue(facts.hasCapability("logging"), facts.capabilityPaths().toString());
    assertVerdict("logging", Strength.MEASURED,
        Reason.of(ReasonCode.PREFLIGHT_PASSED),
        new Reason(ReasonCode.NO_TOOL_ANNOTATIONS, HANDSHAKE_ERA),
        new Reason(ReasonCode.DEGRADES_WHEN_SHARED, "logging_level"));
  }

  @Test
  void onlyTheLoggingSampleAdvertisesLogging() {
    for (String name : List.of("echo", "global-state", "caller-identity", "caller-tools", WITH_TOKEN, "workspace-keyed",
        "discover", "counter", "clock", "clock-counter", "destructive")) {
      assertFalse(results.get(name).handshake().orElseThrow().hasCapability("logging"), name);
    }
  }

  @Test
  void discoverIsAskedInTheStatelessEraAndReplaysIdentically() {
    HandshakeFacts facts = ranWithoutDivergence("discover");
    assertEquals(DISCOVER_ERA, facts.protocolVersion());
    assertEquals(DiscoverServer.NAME, facts.serverInfo().get("name"));
    assertEquals(Set.of("echo", "whoami"), toolNames(facts));
    assertVerdict("discover", Strength.MEASURED,
        Reason.of(ReasonCode.PREFLIGHT_PASSED), Reason.of(ReasonCode.ALL_TOOLS_READ_ONLY));
  }

  /**
   * {@code server-everything} registers {@code get-roots-list}, {@code trigger-sampling-request}
   * and {@code trigger-elicitation-request} only for a client that declared {@code roots},
   * {@code sampling} and {@code elicitation}: the second caller is listed three tools (and three
   * annotation objects) the first is not. {@link ServerEverythingToolsIT} pins that cause.
   */
  @Test
  void serverEverythingDivergesOnItsCapabilityDependentTools() {
    PreflightResult result = results.get("server-everything");
    assertTrue(result.ran(), result::notRunReason);
    assertEquals(List.of("tools", "toolAnnotations"), result.divergentFacets());
    HandshakeFacts facts = result.handshake().orElseThrow();
    assertEquals("mcp-servers/everything", facts.serverInfo().get("name"));
    assertEquals(HANDSHAKE_ERA, facts.protocolVersion());
    assertTrue(facts.hasCapability("logging"), facts.capabilityPaths().toString());
    Set<String> tools = toolNames(facts);
    assertTrue(tools.contains("echo"), tools.toString());
    ServerEverythingToolsIT.CONDITIONAL_TOOLS.forEach((capability, tool) -> assertFalse(tools.contains(tool),
        tool + " is not listed to the first caller, which declared no " + capability + " capability: " + tools));
    assertVerdict("server-everything", Strength.NO_OBJECTION,
        Reason.of(ReasonCode.NO_OBJECTION_FOUND),
        new Reason(ReasonCode.DEGRADES_WHEN_SHARED, "logging_level"),
        new Reason(ReasonCode.HANDSHAKE_NOT_REPRODUCIBLE, "tools"),
        new Reason(ReasonCode.HANDSHAKE_NOT_REPRODUCIBLE, "toolAnnotations"));
  }

  @Test
  void theHttpEntryIsDisqualifiedWithNothingSpawned() {
    PreflightResult result = results.get("remote-http");
    assertFalse(result.ran());
    assertEquals("not a stdio server", result.notRunReason());
    Verdict verdict = assertVerdict("remote-http", Strength.DISQUALIFIED, new Reason(ReasonCode.NOT_STDIO, "http"),
        new Reason(ReasonCode.PREFLIGHT_NOT_RUN, "not a stdio server"));
    assertFalse(verdict.recommendStub());
  }

  @Test
  void aCommandThatDoesNotExistCouldNotBeAsked() {
    PreflightResult result = results.get(MISSING);
    assertFalse(result.ran());
    assertEquals("command not found: " + servers.get(MISSING).command(), result.notRunReason());
    assertTrue(result.handshake().isEmpty());
    assertVerdict(MISSING, Strength.UNKNOWN,
        Reason.of(ReasonCode.NOT_PROBED), new Reason(ReasonCode.PREFLIGHT_NOT_RUN, result.notRunReason()));
  }

  private static HandshakeFacts ranWithoutDivergence(String name) {
    PreflightResult result = results.get(name);
    assertTrue(result.ran(), () -> name + " did not run: " + result.notRunReason());
    assertEquals(List.of(), result.divergentFacets(), name);
    assertEquals("", result.notRunReason());
    return result.handshake().orElseThrow();
  }

  /** Asserts the whole verdict: strength, every reason in order, and both recommendations as docs/architecture.md ties them. */
  private static Verdict assertVerdict(String name, Strength strength, Reason... reasons) {
    Verdict verdict = PreflightFixture.verdict(cotenant, servers.get(name), results.get(name));
    assertEquals(strength, verdict.strength(), () -> name + ": " + verdict);
    assertEquals(List.of(reasons), verdict.reasons(), name);
    assertEquals(strength == Strength.DECLARED, verdict.recommendShare(), name);
    assertEquals(Set.of(Strength.DECLARED, Strength.MEASURED, Strength.NO_OBJECTION).contains(strength),
        verdict.recommendStub(), name);
    return verdict;
  }

  private static Set<String> toolNames(HandshakeFacts facts) {
    return facts.tools().stream().map(ToolFacts::name).collect(Collectors.toCollection(TreeSet::new));
  }
}
