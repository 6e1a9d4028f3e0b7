package dev.cotenant.examples.servers;

import static dev.cotenant.examples.servers.SampleLaunch.BOUND;
import static dev.cotenant.examples.servers.SampleLaunch.call;
import static dev.cotenant.examples.servers.SampleLaunch.connect;
import static dev.cotenant.examples.servers.SampleLaunch.javaCommand;
import static dev.cotenant.examples.servers.SampleLaunch.listedTool;
import static dev.cotenant.examples.servers.SampleLaunch.parameters;
import static dev.cotenant.examples.servers.SampleLaunch.text;
import static dev.cotenant.examples.servers.SampleLaunch.toolNames;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.testkit.process.ChecksProcessLeaks;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.spec.McpSchema;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * Starts every SDK-built sample server as a real process and speaks a real handshake with it
 * through the MCP Java SDK client: each initializes, lists the tools it should, and behaves as
 * its README entry says. No process outlives its test.
 */
@ChecksProcessLeaks(waitMillis = SampleLaunch.BOUND_MILLIS)
class SampleServersSmokeTest {

  private static ServerParameters sample(Class<?> main) {
    return parameters(javaCommand(main), Map.of());
  }

  @Test
  void echoReturnsItsTextAndAdvertisesToolsOnly() {
    try (McpSyncClient client = connect(sample(EchoServer.class), "smoke-echo")) {
      McpSchema.InitializeResult init = client.getCurrentInitializationResult();
      assertEquals(EchoServer.NAME, init.serverInfo().name());
      assertNotNull(init.capabilities().tools());
      assertNull(init.capabilities().logging(), "echo must not advertise logging");
      assertEquals(Set.of("echo"), toolNames(client));
      McpSchema.CallToolResult result = call(client, "echo", Map.of("text", "marker-7f3", "workspace", "w1"));
      assertFalse(Boolean.TRUE.equals(result.isError()));
      assertEquals("marker-7f3", text(result));
    }
  }

  @Test
  void globalStateLeaksOneCallersTargetIntoAnothersAnswer() {
    try (McpSyncClient client = connect(sample(GlobalStateServer.class), "smoke-global")) {
      assertEquals(Set.of("set_target", "get_target", "remember"), toolNames(client));
      call(client, "set_target", Map.of("target", "alpha", "workspace", "w1"));
      assertEquals("current target: alpha", text(call(client, "get_target", Map.of("workspace", "w2"))),
          "a read for another workspace sees the target set for the first");
      String answer = text(call(client, "remember", Map.of("target", "beta", "workspace", "w2")));
      assertTrue(answer.contains("previous target: alpha"), answer);
      assertTrue(answer.contains("current target: beta"), answer);
    }
  }

  @Test
  void workspaceKeyedStateStaysInItsWorkspace() {
    try (McpSyncClient client = connect(sample(WorkspaceKeyedServer.class), "smoke-workspace")) {
      assertEquals(Set.of("set_target", "get_target", "remember"), toolNames(client));
      call(client, "set_target", Map.of("workspace", "w1", "target", "alpha"));
      assertEquals("current target: ", text(call(client, "get_target", Map.of("workspace", "w2"))));
      assertEquals("current target: alpha", text(call(client, "get_target", Map.of("workspace", "w1"))));
      String answer = text(call(client, "remember", Map.of("workspace", "w2", "target", "beta")));
      assertFalse(answer.contains("alpha"), answer);
      McpSchema.CallToolResult unscoped = call(client, "get_target", Map.of());
      assertTrue(Boolean.TRUE.equals(unscoped.isError()), "a call without a workspace is refused");
    }
  }

  @Test
  void callerIdentityAdvertisesTheExtensionAndScopesByTheCallerBlock() {
    try (McpSyncClient client = connect(sample(CallerIdentityServer.class), "smoke-caller-identity")) {
      Map<String, Object> experimental = client.getServerCapabilities().experimental();
      assertNotNull(experimental);
      assertTrue(experimental.containsKey(CallerIdentityServer.EXTENSION_KEY), experimental.toString());
      assertEquals(Set.of("whoami", "set_target", "get_target", "remember"), toolNames(client));

      client.callTool(new McpSchema.CallToolRequest("set_target", Map.of("target", "alpha"), caller("session-a")));
      assertEquals("current target: ",
          text(client.callTool(new McpSchema.CallToolRequest("get_target", Map.of(), caller("session-b")))));
      assertEquals("current target: alpha",
          text(client.callTool(new McpSchema.CallToolRequest("get_target", Map.of(), caller("session-a")))));
      assertEquals("caller: session-b",
          text(client.callTool(new McpSchema.CallToolRequest("whoami", Map.of(), caller("session-b")))));

      McpSchema.CallToolResult anonymous = call(client, "get_target", Map.of());
      assertTrue(Boolean.TRUE.equals(anonymous.isError()), "a call without a caller block is refused");
      assertTrue(text(anonymous).contains(CallerIdentityServer.CALLER_META_KEY), text(anonymous));
    }
  }

  private static Map<String, Object> caller(String session) {
    return Map.of(CallerIdentityServer.CALLER_META_KEY, Map.of("session", session));
  }

  @Test
  void callerToolsListsDependOnTheClientsDeclaredCapabilities() {
    try (McpSyncClient plain = connect(sample(CallerToolsServer.class), "smoke-plain-client")) {
      assertEquals(Set.of("echo"), toolNames(plain));
    }
    List<String> stderr = new ArrayList<>();
    try (McpSyncClient rich = connect(sample(CallerToolsServer.class), "smoke-rich-client", spec -> spec
            .capabilities(McpSchema.ClientCapabilities.builder().roots(false).sampling().elicitation().build())
            .roots(new McpSchema.Root("file:///work/project", "project"))
            .sampling(request -> new McpSchema.CreateMessageResult(McpSchema.Role.ASSISTANT,
                new McpSchema.TextContent("a summary"), "test-model", McpSchema.CreateMessageResult.StopReason.END_TURN))
            .elicitation(request -> new McpSchema.ElicitResult(McpSchema.ElicitResult.Action.ACCEPT, Map.of("ok", true))),
        stderr)) {
      assertEquals(Set.of("echo", "list_roots", "summarize", "confirm"), toolNames(rich));
      assertEquals("roots: file:///work/project", text(call(rich, "list_roots", Map.of())));
      assertEquals("a summary", text(call(rich, "summarize", Map.of("text", "long text"))));
    }
  }

  @Test
  void needsCredentialExitsWithAClearMessageWithoutItsToken() throws Exception {
    ProcessBuilder builder = new ProcessBuilder(javaCommand(NeedsCredentialServer.class));
    builder.environment().remove(NeedsCredentialServer.TOKEN_ENV);
    Process process = builder.start();
    process.getOutputStream().close();
    assertTrue(process.waitFor(BOUND.toMillis(), TimeUnit.MILLISECONDS), "exits on its own");
    String stderr = new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
    String stdout = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertEquals(NeedsCredentialServer.MISSING_CREDENTIAL_EXIT, process.exitValue());
    assertTrue(stderr.contains(NeedsCredentialServer.TOKEN_ENV + " is not set"), stderr);
    assertEquals("", stdout, "nothing reaches the protocol stream");
  }

  @Test
  void needsCredentialServesWithItsTokenAndNeverEchoesIt() {
    ServerParameters withToken = parameters(javaCommand(NeedsCredentialServer.class),
        Map.of(NeedsCredentialServer.TOKEN_ENV, "s3cret-value"));
    try (McpSyncClient client = connect(withToken, "smoke-credential")) {
      assertEquals(Set.of("whoami"), toolNames(client));
      String answer = text(call(client, "whoami", Map.of()));
      assertTrue(answer.startsWith("authenticated"), answer);
      assertFalse(answer.contains("s3cret-value"), answer);
    }
  }

  @Test
  void loggingAdvertisesLoggingAndSendsLogNotifications() throws Exception {
    CountDownLatch logged = new CountDownLatch(1);
    List<String> seen = new CopyOnWriteArrayList<>();
    try (McpSyncClient client = connect(sample(LoggingServer.class), "smoke-logging", spec -> spec
        .loggingConsumer(notification -> {
          seen.add(notification.data());
          logged.countDown();
        }), new ArrayList<>())) {
      assertNotNull(client.getServerCapabilities().logging(), "logging is advertised");
      client.setLoggingLevel(McpSchema.LoggingLevel.DEBUG);
      assertEquals("hello log", text(call(client, "echo_logged", Map.of("text", "hello log"))));
      assertTrue(logged.await(BOUND.toMillis(), TimeUnit.MILLISECONDS), "a log notification arrives");
      assertEquals(List.of("hello log"), seen);
    }
  }

  @Test
  void anSdkServerAnswersServerDiscoverWithAnErrorAndStillInitializes() throws Exception {
    try (RawStdioSession session = RawStdioSession.start(javaCommand(EchoServer.class))) {
      session.send("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"server/discover\",\"params\":{}}");
      JsonNode discover = session.awaitResponse(1);
      assertTrue(discover.has("error"), discover.toString());
      session.send("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"initialize\",\"params\":{"
          + "\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},"
          + "\"clientInfo\":{\"name\":\"raw\",\"version\":\"1\"}}}");
      JsonNode init = session.awaitResponse(2);
      assertEquals(EchoServer.NAME, init.path("result").path("serverInfo").path("name").stringValue());
      assertFalse(init.path("result").path("capabilities").has("logging"), init.toString());
      assertEquals(0, session.closeStdinAndAwaitExit(), "exits cleanly when stdin closes");
    }
  }

  /** Asserts the tool's {@code readOnlyHint} and {@code destructiveHint} ({@code null}: absent) and its required arguments. */
  private static void assertTool(McpSyncClient client, String name, Boolean readOnly, Boolean destructive,
      List<String> required) {
    McpSchema.Tool tool = listedTool(client, name);
    assertNotNull(tool.annotations(), name + " carries annotations");
    assertEquals(readOnly, tool.annotations().readOnlyHint(), name + " readOnlyHint");
    assertEquals(destructive, tool.annotations().destructiveHint(), name + " destructiveHint");
    Object listed = tool.inputSchema().get("required");
    assertEquals(required, listed == null ? List.of() : listed, name + " required arguments");
  }

  /** The one text block of a successful result. */
  private static String onlyText(McpSchema.CallToolResult result) {
    assertFalse(Boolean.TRUE.equals(result.isError()), () -> "an error: " + text(result));
    assertEquals(1, result.content().size(), result.content().toString());
    return ((McpSchema.TextContent) result.content().get(0)).text();
  }

  private static Matcher assertMatches(String regex, String text) {
    Matcher matcher = Pattern.compile(regex).matcher(text);
    assertTrue(matcher.matches(), () -> "'" + text + "' does not match " + regex);
    return matcher;
  }

  @Test
  void counterCountsAndTogglesForTheWholeProcessWithoutEchoingAnything() {
    try (McpSyncClient client = connect(sample(CounterServer.class), "smoke-counter")) {
      assertEquals(CounterServer.NAME, client.getServerInfo().name());
      assertEquals(Set.of("next", "toggle"), toolNames(client));
      assertTool(client, "next", false, false, List.of());
      assertTool(client, "toggle", false, false, List.of());
      assertEquals("calls=1", onlyText(call(client, "next", Map.of())));
      assertEquals("calls=2", onlyText(call(client, "next", Map.of())));
      assertEquals("on", onlyText(call(client, "toggle", Map.of())));
      assertEquals("off", onlyText(call(client, "toggle", Map.of())));
      assertEquals("on", onlyText(call(client, "toggle", Map.of())));
      assertEquals("calls=3", onlyText(call(client, "next", Map.of())), "toggle does not count");
    }
    try (McpSyncClient fresh = connect(sample(CounterServer.class), "smoke-counter-fresh")) {
      assertEquals("calls=1", onlyText(call(fresh, "next", Map.of())), "a process of its own starts at 1");
      assertEquals("on", onlyText(call(fresh, "toggle", Map.of())), "and switched off");
    }
  }

  @Test
  void clockAnswersCarryTheTimeAndARandomId() {
    try (McpSyncClient client = connect(sample(ClockServer.class), "smoke-clock")) {
      assertEquals(ClockServer.NAME, client.getServerInfo().name());
      assertEquals(Set.of("echo", "now"), toolNames(client));
      assertTool(client, "echo", true, null, List.of("text"));
      assertTool(client, "now", true, null, List.of());
      String first = onlyText(call(client, "echo", Map.of("text", "hello there")));
      String second = onlyText(call(client, "echo", Map.of("text", "hello there")));
      String echo = "\\d\\d:\\d\\d:\\d\\d\\.\\d{3} id=([0-9a-f]{8}) echo: hello there";
      assertFalse(assertMatches(echo, first).group(1).equals(assertMatches(echo, second).group(1)),
          "each answer has its own id: " + first + " / " + second);
      Matcher now = assertMatches("(\\S+) request (\\S+)", onlyText(call(client, "now", Map.of())));
      Instant.parse(now.group(1));
      assertEquals(now.group(2), UUID.fromString(now.group(2)).toString());
      assertTrue(Boolean.TRUE.equals(call(client, "echo", Map.of()).isError()), "echo without text is refused");
    }
  }

  @Test
  void clockCounterSharesOneTextFieldBetweenTheTimeAndTheCount() {
    try (McpSyncClient client = connect(sample(ClockCounterServer.class), "smoke-clock-counter")) {
      assertEquals(ClockCounterServer.NAME, client.getServerInfo().name());
      assertEquals(Set.of("tick", "echo"), toolNames(client));
      assertTool(client, "tick", false, false, List.of());
      assertTool(client, "echo", true, null, List.of("text"));
      assertMatches("\\d\\d:\\d\\d:\\d\\d calls=1", onlyText(call(client, "tick", Map.of())));
      assertMatches("\\d\\d:\\d\\d:\\d\\d calls=2", onlyText(call(client, "tick", Map.of())));
      assertMatches("\\d\\d:\\d\\d:\\d\\d echo: hi", onlyText(call(client, "echo", Map.of("text", "hi"))));
    }
  }

  @Test
  void destructiveWipesOnlyItsWorkspacesFilesAndRefusesPathsOutOfIt(@TempDir Path tmp) throws Exception {
    Path root = tmp.resolve(DestructiveServer.SCRATCH_ROOT);
    Path mine = Files.createDirectories(root.resolve("w1"));
    Files.writeString(mine.resolve("a.txt"), "a");
    Files.writeString(mine.resolve("b.txt"), "b");
    Path kept = Files.createDirectories(mine.resolve("sub")).resolve("c.txt");
    Files.writeString(kept, "c");
    Path other = Files.writeString(Files.createDirectories(root.resolve("w2")).resolve("d.txt"), "d");
    Path outside = Files.writeString(tmp.resolve("x"), "outside");
    ServerParameters server = parameters(javaCommand(DestructiveServer.class, "-Djava.io.tmpdir=" + tmp), Map.of());
    try (McpSyncClient client = connect(server, "smoke-destructive")) {
      assertEquals(DestructiveServer.NAME, client.getServerInfo().name());
      assertEquals(Set.of("echo", "wipe_scratch"), toolNames(client));
      assertTool(client, "echo", true, null, List.of("text"));
      assertTool(client, "wipe_scratch", false, true, List.of("workspace"));
      assertEquals("echo: hi", onlyText(call(client, "echo", Map.of("text", "hi"))));

      for (String escape : List.of("../x", "..", "a/b", "a\\b", "", ".")) {
        McpSchema.CallToolResult refused = call(client, "wipe_scratch", Map.of("workspace", escape));
        assertTrue(Boolean.TRUE.equals(refused.isError()), "refuses '" + escape + "': " + text(refused));
        assertTrue(text(refused).contains("refuses workspace"), text(refused));
      }
      assertTrue(Files.exists(outside), "nothing outside the scratch directories was touched");

      assertEquals("wiped 2 files in w1", onlyText(call(client, "wipe_scratch", Map.of("workspace", "w1"))));
      assertFalse(Files.exists(mine.resolve("a.txt")));
      assertFalse(Files.exists(mine.resolve("b.txt")));
      assertTrue(Files.exists(kept), "a subdirectory is left alone");
      assertTrue(Files.exists(other), "another workspace's files are left alone");
      assertEquals("wiped 0 files in w1", onlyText(call(client, "wipe_scratch", Map.of("workspace", "w1"))));
      assertEquals("wiped 0 files in w3", onlyText(call(client, "wipe_scratch", Map.of("workspace", "w3"))),
          "a workspace without a directory has no files");
      assertFalse(Files.exists(root.resolve("w3")), "and gets none");
    }
  }
}
