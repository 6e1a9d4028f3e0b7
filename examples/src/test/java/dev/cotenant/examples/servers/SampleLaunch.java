package dev.cotenant.examples.servers;

import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.client.transport.StdioClientTransport;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.jackson3.JacksonMcpJsonMapper;
import io.modelcontextprotocol.spec.McpSchema;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;
import tools.jackson.databind.json.JsonMapper;

/** How the tests start sample servers and connect the MCP Java SDK client to them. */
final class SampleLaunch {

  static final McpJsonMapper MAPPER = new JacksonMcpJsonMapper(JsonMapper.builder().build());

  /** Generous: JVM start on a busy two-core machine, in milliseconds. */
  static final long BOUND_MILLIS = 60_000;

  /** {@link #BOUND_MILLIS} as a duration. */
  static final Duration BOUND = Duration.ofMillis(BOUND_MILLIS);

  private SampleLaunch() {}

  /** The java executable of this JVM. */
  static String java() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }

  /** The classpath the sample classes were compiled and tested against. */
  static String testClasspath() {
    return System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
  }

  /** The command line that runs {@code main} from the test classpath, with extra JVM options. */
  static List<String> javaCommand(Class<?> main, String... jvmOptions) {
    List<String> command = new ArrayList<>(List.of(java(), "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"));
    command.addAll(List.of(jvmOptions));
    command.addAll(List.of("-cp", testClasspath(), main.getName()));
    return List.copyOf(command);
  }

  /** The tool the session lists under {@code name}. */
  static McpSchema.Tool listedTool(McpSyncClient client, String name) {
    return client.listTools().tools().stream()
        .filter(tool -> tool.name().equals(name))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no tool " + name + " in " + toolNames(client)));
  }

  /** Server parameters for a command line, with extra environment variables. */
  static ServerParameters parameters(List<String> command, Map<String, String> env) {
    return ServerParameters.builder(command.get(0))
        .args(command.subList(1, command.size()))
        .env(env)
        .build();
  }

  /**
   * An initialized SDK client session with the server, named {@code clientName}; {@code spec}
   * may declare capabilities and handlers.
   */
  static McpSyncClient connect(ServerParameters parameters, String clientName,
      UnaryOperator<McpClient.SyncSpec> spec, List<String> stderrSink) {
    StdioClientTransport transport = new StdioClientTransport(parameters, MAPPER);
    transport.setStdErrorHandler(stderrSink::add);
    McpSyncClient client = spec.apply(McpClient.sync(transport)
            .clientInfo(new McpSchema.Implementation(clientName, "1.0.0"))
            .requestTimeout(BOUND)
            .initializationTimeout(BOUND))
        .build();
    client.initialize();
    return client;
  }

  /** An initialized SDK client that declares no capabilities. */
  static McpSyncClient connect(ServerParameters parameters, String clientName) {
    return connect(parameters, clientName, spec -> spec, new ArrayList<>());
  }

  /** The names of the tools the session lists. */
  static Set<String> toolNames(McpSyncClient client) {
    return client.listTools().tools().stream().map(McpSchema.Tool::name).collect(Collectors.toSet());
  }

  /** Calls a tool with string arguments and no {@code _meta}. */
  static McpSchema.CallToolResult call(McpSyncClient client, String tool, Map<String, Object> arguments) {
    return client.callTool(new McpSchema.CallToolRequest(tool, arguments));
  }

  /** The concatenated text content of a result. */
  static String text(McpSchema.CallToolResult result) {
    return result.content().stream()
        .filter(McpSchema.TextContent.class::isInstance)
        .map(content -> ((McpSchema.TextContent) content).text())
        .collect(Collectors.joining("\n"));
  }
}
