package dev.cotenant.examples.servers;

import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.jackson3.JacksonMcpJsonMapper;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.server.McpSyncServerExchange;
import io.modelcontextprotocol.server.transport.StdioServerTransportProvider;
import io.modelcontextprotocol.spec.McpSchema;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Stream;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * Runs one sample MCP server, built with the official MCP Java SDK, over this process's
 * stdin and stdout.
 *
 * <p>Stdout carries the protocol and nothing else: SLF4J's simple logger is routed to stderr
 * before anything can log. Stdin is relayed line by line to the SDK's stdio transport, which
 * lets the host note the client's {@code initialize} request (for servers whose surface depends
 * on the caller) and guarantees the process exits once stdin reaches end of file.
 */
public final class StdioServerHost {

  /** The version every sample server reports in {@code serverInfo}. */
  public static final String VERSION = "0.1.0";

  private static final int PIPE_BUFFER_BYTES = 1 << 20;
  private static final long CLOSE_GRACE_MILLIS = 2_000;

  private StdioServerHost() {}

  /**
   * Builds a server from a specification the host has already bound to the stdio transport,
   * the Jackson 3 JSON mapper and the server's name and version.
   */
  @FunctionalInterface
  public interface ServerFactory {

    /**
     * Registers the server's tools and capabilities and builds it.
     *
     * @param spec the SDK specification, transport, mapper and {@code serverInfo} already set
     * @param caller what the connected client declared in {@code initialize}; {@link
     *     ClientHandshake#NONE} before it has
     * @return the built server
     */
    McpSyncServer build(McpServer.SyncSpecification<?> spec, Supplier<ClientHandshake> caller);
  }

  /**
   * Serves until stdin closes, then shuts the server down and exits the JVM with status 0.
   *
   * <p>The MCP Java SDK 2.1.0 adds {@code logging} to every server's capabilities. A sample
   * server must advertise exactly what it declares (the {@code logging} sample is the one meant
   * to), so when {@code capabilities} has no {@code logging} the host removes that key from the
   * {@code initialize} answer on its way to stdout. Every other byte passes unchanged.
   *
   * @param serverName the {@code serverInfo.name} to report
   * @param capabilities the capabilities to advertise
   * @param factory registers the tools and builds the server
   */
  public static void run(String serverName, McpSchema.ServerCapabilities capabilities, ServerFactory factory) {
    routeLoggingToStderr();
    McpJsonMapper mapper = new JacksonMcpJsonMapper(JsonMapper.builder().build());
    InitializeWatch watch = new InitializeWatch();
    OutputStream protocolOut = capabilities.logging() == null
        ? new InitializeAnswerFilter(System.out, watch)
        : System.out;
    PipedInputStream sdkInput = new PipedInputStream(PIPE_BUFFER_BYTES);
    McpSyncServer server;
    try (PipedOutputStream relay = new PipedOutputStream(sdkInput)) {
      StdioServerTransportProvider transport = new StdioServerTransportProvider(mapper, sdkInput, protocolOut);
      server = factory.build(
          McpServer.sync(transport).serverInfo(serverName, VERSION).jsonMapper(mapper).capabilities(capabilities),
          watch::caller);
      relayUntilEndOfInput(System.in, relay, watch);
    } catch (IOException e) {
      System.err.println(serverName + ": stdin relay failed: " + e.getMessage());
      System.exit(1);
      return;
    }
    closeWithin(server, CLOSE_GRACE_MILLIS);
    System.exit(0);
  }

  /**
   * Serves tools that are the same for every caller, advertising {@link #toolsOnly()}: {@link
   * #run} with a factory that registers what {@code tools} make, in order.
   *
   * @param serverName the {@code serverInfo.name} to report
   * @param tools make the tools, once the host has set up logging and the transport
   */
  @SafeVarargs
  public static void runTools(String serverName, Supplier<SyncToolSpecification>... tools) {
    run(serverName, toolsOnly(), (spec, caller) -> spec
        .tools(Stream.of(tools).map(Supplier::get).toList())
        .build());
  }

  /**
   * Copies newline-delimited messages from {@code in} to {@code out}, noting the first
   * {@code initialize} request's id and client description in {@code watch}. Returns at end of input.
   *
   * @param in the raw protocol input
   * @param out where the SDK reads from; flushed after every line
   * @param watch receives the client's handshake once an {@code initialize} request passes
   * @throws IOException when reading or relaying fails
   */
  static void relayUntilEndOfInput(InputStream in, OutputStream out, InitializeWatch watch) throws IOException {
    JsonMapper json = JsonMapper.builder().build();
    BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
    String line;
    while ((line = reader.readLine()) != null) {
      watch.observe(json, line);
      out.write((line + "\n").getBytes(StandardCharsets.UTF_8));
      out.flush();
    }
  }

  /**
   * What the host learned from the client's {@code initialize} request: its id (so that the
   * answer can be recognised on the way out) and the client's description.
   */
  static final class InitializeWatch {
    private final AtomicReference<ClientHandshake> caller = new AtomicReference<>(ClientHandshake.NONE);
    private final AtomicReference<JsonNode> requestId = new AtomicReference<>();

    /** Notes an {@code initialize} request when {@code line} is one. */
    void observe(JsonMapper json, String line) {
      JsonNode message = parse(json, line);
      if (message != null && "initialize".equals(text(message.path("method"))) && message.has("id")) {
        requestId.set(message.get("id"));
        caller.set(handshakeOf(message));
      }
    }

    /** The connected client, {@link ClientHandshake#NONE} before it initialized. */
    ClientHandshake caller() {
      return caller.get();
    }

    /** Whether {@code id} is the id of the client's {@code initialize} request. */
    boolean isInitializeId(JsonNode id) {
      JsonNode expected = requestId.get();
      return expected != null && expected.equals(id);
    }
  }

  /**
   * Passes the server's output through line by line, removing {@code capabilities.logging} from
   * the answer to {@code initialize}. Lines are written whole and flushed at their newline.
   */
  static final class InitializeAnswerFilter extends OutputStream {
    private final OutputStream out;
    private final InitializeWatch watch;
    private final JsonMapper json = JsonMapper.builder().build();
    private final ByteArrayOutputStream line = new ByteArrayOutputStream();
    private boolean answered;

    InitializeAnswerFilter(OutputStream out, InitializeWatch watch) {
      this.out = out;
      this.watch = watch;
    }

    @Override
    public synchronized void write(int b) throws IOException {
      line.write(b);
      if (b == '\n') {
        emitLine();
      }
    }

    @Override
    public synchronized void write(byte[] bytes, int offset, int length) throws IOException {
      for (int i = offset; i < offset + length; i++) {
        write(bytes[i]);
      }
    }

    @Override
    public synchronized void flush() throws IOException {
      out.flush();
    }

    @Override
    public synchronized void close() throws IOException {
      if (line.size() > 0) {
        out.write(line.toByteArray());
        line.reset();
      }
      out.close();
    }

    private void emitLine() throws IOException {
      byte[] bytes = line.toByteArray();
      line.reset();
      if (!answered) {
        JsonNode message = parse(json, new String(bytes, StandardCharsets.UTF_8));
        if (message != null && message.has("id") && watch.isInitializeId(message.get("id"))
            && message.path("result").path("capabilities").isObject()) {
          answered = true;
          ((ObjectNode) message.get("result").get("capabilities")).remove("logging");
          bytes = (json.writeValueAsString(message) + "\n").getBytes(StandardCharsets.UTF_8);
        }
      }
      out.write(bytes);
      out.flush();
    }
  }

  private static JsonNode parse(JsonMapper json, String line) {
    try {
      JsonNode message = json.readTree(line);
      return message != null && message.isObject() ? message : null;
    } catch (JacksonException e) {
      return null;
    }
  }

  private static ClientHandshake handshakeOf(JsonNode message) {
    JsonNode params = message.path("params");
    JsonNode info = params.path("clientInfo");
    JsonNode capabilities = params.path("capabilities");
    Set<String> keys = capabilities.isObject() ? new HashSet<>(capabilities.propertyNames()) : Set.of();
    return new ClientHandshake(text(info.path("name")), text(info.path("version")), keys);
  }

  private static String text(JsonNode node) {
    return node.isString() ? node.stringValue() : "";
  }

  private static void routeLoggingToStderr() {
    System.setProperty("org.slf4j.simpleLogger.logFile", "System.err");
    System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
  }

  private static void closeWithin(McpSyncServer server, long millis) {
    Thread closer = new Thread(server::closeGracefully, "sample-server-close");
    closer.setDaemon(true);
    closer.start();
    try {
      closer.join(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * The capabilities of a server that offers tools and nothing else.
   *
   * @return {@code {"tools": {"listChanged": false}}}
   */
  public static McpSchema.ServerCapabilities toolsOnly() {
    return McpSchema.ServerCapabilities.builder().tools(false).build();
  }

  /**
   * A tool whose input is an object of string properties.
   *
   * @param name the tool name
   * @param description what the tool does
   * @param required the names of the required string properties
   * @param optional the names of optional string properties
   * @return the tool definition
   */
  public static McpSchema.Tool stringTool(String name, String description, List<String> required, List<String> optional) {
    return stringTool(name, description, required, optional, null);
  }

  /**
   * A tool whose input is an object of string properties, carrying behaviour hints.
   *
   * @param name the tool name
   * @param description what the tool does
   * @param required the names of the required string properties
   * @param optional the names of optional string properties
   * @param annotations the tool's {@code annotations} ({@link #readOnlyHints()}, {@link
   *     #writeHints(boolean)}), or {@code null} for none
   * @return the tool definition
   */
  public static McpSchema.Tool stringTool(String name, String description, List<String> required, List<String> optional,
      McpSchema.ToolAnnotations annotations) {
    Map<String, Object> properties = new LinkedHashMap<>();
    for (String property : required) {
      properties.put(property, Map.of("type", "string"));
    }
    for (String property : optional) {
      properties.put(property, Map.of("type", "string"));
    }
    return McpSchema.Tool.builder()
        .name(name)
        .description(description)
        .inputSchema(new McpSchema.JsonSchema("object", properties, List.copyOf(required), null, null, null))
        .annotations(annotations)
        .build();
  }

  /**
   * The annotations of a tool that changes nothing.
   *
   * @return {@code {"readOnlyHint": true}}
   */
  public static McpSchema.ToolAnnotations readOnlyHints() {
    return McpSchema.ToolAnnotations.builder().readOnlyHint(true).build();
  }

  /**
   * The annotations of a tool that changes state.
   *
   * @param destructive whether it may destroy or overwrite what is there, rather than only add
   * @return {@code {"readOnlyHint": false, "destructiveHint": <destructive>}}
   */
  public static McpSchema.ToolAnnotations writeHints(boolean destructive) {
    return McpSchema.ToolAnnotations.builder().readOnlyHint(false).destructiveHint(destructive).build();
  }

  /**
   * A tool together with the handler that answers its calls.
   *
   * @param tool the tool definition
   * @param handler answers a call, given the exchange with the calling client
   * @return the tool and its handler
   */
  public static SyncToolSpecification tool(McpSchema.Tool tool,
      BiFunction<McpSyncServerExchange, McpSchema.CallToolRequest, McpSchema.CallToolResult> handler) {
    return SyncToolSpecification.builder().tool(tool).callHandler(handler).build();
  }

  /**
   * Answers a call from one of its string arguments, or refuses a call without it.
   *
   * @param request the call
   * @param name the argument the answer needs
   * @param answer the answer, given the argument
   * @return the answer, or the tool-level error {@code <tool> needs a string argument '<name>'}
   */
  public static McpSchema.CallToolResult withString(McpSchema.CallToolRequest request, String name,
      Function<String, McpSchema.CallToolResult> answer) {
    return stringArgument(request, name)
        .map(answer)
        .orElseGet(() -> error(request.name() + " needs a string argument '" + name + "'"));
  }

  /**
   * Answers a call from two of its string arguments, or refuses a call that lacks either.
   *
   * @param request the call
   * @param first the first argument the answer needs
   * @param second the second argument the answer needs
   * @param answer the answer, given both arguments
   * @return the answer, or the tool-level error
   *     {@code <tool> needs string arguments '<first>' and '<second>'}
   */
  public static McpSchema.CallToolResult withStrings(McpSchema.CallToolRequest request, String first, String second,
      BiFunction<String, String, McpSchema.CallToolResult> answer) {
    Optional<String> a = stringArgument(request, first);
    Optional<String> b = stringArgument(request, second);
    if (a.isEmpty() || b.isEmpty()) {
      return error(request.name() + " needs string arguments '" + first + "' and '" + second + "'");
    }
    return answer.apply(a.get(), b.get());
  }

  /**
   * A successful result carrying one text block.
   *
   * @param text the text to return
   * @return the result
   */
  public static McpSchema.CallToolResult text(String text) {
    return McpSchema.CallToolResult.builder().addTextContent(text).isError(false).build();
  }

  /**
   * A tool-level error (the call was understood but cannot be answered) with a message.
   *
   * @param message what was wrong with the call
   * @return the result, flagged {@code isError}
   */
  public static McpSchema.CallToolResult error(String message) {
    return McpSchema.CallToolResult.builder().addTextContent(message).isError(true).build();
  }

  /**
   * A string argument of a tool call.
   *
   * @param request the call
   * @param name the argument name
   * @return the argument when present and a string
   */
  public static Optional<String> stringArgument(McpSchema.CallToolRequest request, String name) {
    Map<String, Object> arguments = request.arguments();
    if (arguments == null) {
      return Optional.empty();
    }
    Object value = arguments.get(name);
    return value instanceof String s ? Optional.of(s) : Optional.empty();
  }

  /**
   * Sleeps for the delay a stateful sample tool takes between writing and reading its state,
   * so that two callers interleaved on one process overlap. Configurable through the
   * environment variable {@code SAMPLE_STATE_DELAY_MS} (default 150, clamped to 0..5000).
   */
  static void stateDelay() {
    long millis = 150;
    String configured = System.getenv("SAMPLE_STATE_DELAY_MS");
    if (configured != null) {
      try {
        millis = Math.max(0, Math.min(5_000, Long.parseLong(configured.trim())));
      } catch (NumberFormatException e) {
        System.err.println("SAMPLE_STATE_DELAY_MS is not a number (" + configured.length()
            + " characters); using 150 ms");
      }
    }
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
