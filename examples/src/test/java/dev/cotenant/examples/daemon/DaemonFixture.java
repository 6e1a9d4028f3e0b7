package dev.cotenant.examples.daemon;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.cotenant.testkit.process.Processes;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.client.transport.StdioClientTransport;
import io.modelcontextprotocol.json.jackson3.JacksonMcpJsonMapper;
import io.modelcontextprotocol.spec.McpSchema;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A Cotenant home of its own for one test, the packaged {@code cli/target/cotenant.jar} run as
 * real processes in it ({@code serve}, {@code connect}, the other commands), and MCP Java SDK
 * clients over stdio (through {@code cotenant connect}) and Streamable HTTP. Every process it
 * starts carries the kit's cookie, so the leak check finds them wherever they end up. Public for
 * the end-to-end tests of other packages (the dashboard's browser tests).
 */
public final class DaemonFixture implements AutoCloseable {
  /** The repository's root directory. */
  public static final Path ROOT = Path.of("").toAbsolutePath().getParent();
  static final Path JAR = ROOT.resolve("cli/target/cotenant.jar");
  /** The example configuration, {@code examples/mcp.json}. */
  public static final Path CONFIG = ROOT.resolve("examples/mcp.json");
  /** How long one step may take. */
  public static final Duration BOUND = Duration.ofSeconds(90);
  /** JSON for the tests. */
  public static final JsonMapper JSON = JsonMapper.builder().build();
  static final JacksonMcpJsonMapper MCP_JSON = new JacksonMcpJsonMapper(JSON);

  final Path home;
  private final Path config;
  // Tests start clients from several threads at once (the racing shims).
  private final List<McpSyncClient> clients = new CopyOnWriteArrayList<>();
  private final List<Process> processes = new CopyOnWriteArrayList<>();

  /** A fresh home; the daemon and the shims use {@code examples/mcp.json}. */
  public DaemonFixture() throws IOException {
    this(CONFIG);
  }

  /** A fresh home; the daemon and the shims use {@code config}. */
  public DaemonFixture(Path config) throws IOException {
    this.config = config;
    assertTrue(Files.isRegularFile(JAR), JAR + " is missing: run the reactor build (mvn -B verify) from the repository root");
    // Short: a Unix socket path is limited to 107 bytes.
    home = Files.createTempDirectory(Path.of("/tmp"), "ctd");
  }

  /** The home directory ({@code COTENANT_HOME} of every process started). */
  public Path home() {
    return home;
  }

  /**
   * Writes a copy of {@code examples/mcp.json} to {@code dir/mcp.json}, each relative command
   * ({@code bin/echo}) made absolute so it still names the repository's launchers, and returns
   * it: a configuration a test may let the daemon write without touching the repository's file.
   */
  public static Path configCopy(Path dir) throws IOException {
    tools.jackson.databind.node.ObjectNode root = (tools.jackson.databind.node.ObjectNode) JSON.readTree(CONFIG.toFile());
    for (JsonNode server : root.path("mcpServers")) {
      String command = server.path("command").asString("");
      if (command.contains("/") && !Path.of(command).isAbsolute()) {
        ((tools.jackson.databind.node.ObjectNode) server).put("command", CONFIG.getParent().resolve(command).normalize().toString());
      }
    }
    Path copy = dir.resolve("mcp.json");
    Files.write(copy, JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(root));
    return copy;
  }

  static String java() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }

  /** The environment of every process the fixture starts. */
  Map<String, String> env() {
    Map<String, String> env = new LinkedHashMap<>();
    env.put("PATH", System.getenv("PATH"));
    env.put("HOME", System.getProperty("user.home"));
    env.put("COTENANT_HOME", home.toString());
    env.put(Processes.COOKIE_ENV, Processes.cookie());
    return env;
  }

  /** {@code java -jar cotenant.jar ARGS} as a command line. */
  static List<String> cotenantCommand(String... args) {
    List<String> cmd = new ArrayList<>(List.of(java(), "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-jar", JAR.toString()));
    cmd.addAll(List.of(args));
    return cmd;
  }

  /** {@code cotenant connect SERVER examples/mcp.json} as a routed entry runs it (the shim's JVM options). */
  static List<String> shimCommand(String server) {
    return shimCommand(server, CONFIG);
  }

  /** {@code cotenant connect SERVER CONFIG} as a routed entry runs it (the shim's JVM options). */
  static List<String> shimCommand(String server, Path config) {
    List<String> cmd = new ArrayList<>(List.of(java()));
    cmd.addAll(dev.cotenant.cli.daemon.Shim.JVM_OPTIONS);
    cmd.addAll(List.of("-jar", JAR.toString(), "connect", server, config.toString()));
    return cmd;
  }

  /**
   * What one run printed.
   *
   * @param code the exit status
   * @param out standard output
   * @param err standard error
   */
  public record Run(int code, String out, String err) {}

  /** Runs one command to its end. */
  public Run run(String... args) throws IOException, InterruptedException {
    ProcessBuilder pb = new ProcessBuilder(cotenantCommand(args)).directory(ROOT.toFile());
    pb.environment().clear();
    pb.environment().putAll(env());
    Process p = pb.start();
    p.getOutputStream().close();
    CompletableFuture<String> out = drain(p.getInputStream());
    CompletableFuture<String> err = drain(p.getErrorStream());
    if (!p.waitFor(BOUND.toSeconds() * 3, TimeUnit.SECONDS)) {
      p.descendants().forEach(ProcessHandle::destroyForcibly);
      p.destroyForcibly();
      fail("cotenant " + String.join(" ", args) + " did not finish");
    }
    return new Run(p.exitValue(), out.join(), err.join());
  }

  /** Starts a process in the home's environment; stopped on close. */
  Process start(List<String> command, Map<String, String> extraEnv) throws IOException {
    ProcessBuilder pb = new ProcessBuilder(command).directory(ROOT.toFile());
    pb.environment().clear();
    pb.environment().putAll(env());
    pb.environment().putAll(extraEnv);
    Process p = pb.start();
    processes.add(p);
    return p;
  }

  static CompletableFuture<String> drain(InputStream in) {
    return CompletableFuture.supplyAsync(() -> {
      try (in) {
        return new String(in.readAllBytes(), StandardCharsets.UTF_8);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    });
  }

  /**
   * Runs {@code cotenant serve --port 0 CONFIG} in the foreground with a daemon id of its own (so
   * it runs as one process) and waits until {@code daemon.json} names it.
   */
  public Process serve(String... extra) throws Exception {
    List<String> args = new ArrayList<>(List.of("serve", "--port", "0"));
    args.addAll(List.of(extra));
    args.add(config.toString());
    Process p = start(cotenantCommand(args.toArray(String[]::new)), Map.of("COTENANT_DAEMON_ID", "test-" + System.nanoTime()));
    p.getOutputStream().close();
    drain(p.getInputStream());
    CompletableFuture<String> err = drain(p.getErrorStream());
    long deadline = System.nanoTime() + BOUND.toNanos();
    // daemon.json is written before the socket opens (the socket opens last): ready is both.
    while (state().map(s -> s.path("pid").asLong() != p.pid()).orElse(true) || !Files.exists(home.resolve("cotenant.sock"))) {
      if (!p.isAlive()) {
        fail("cotenant serve exited with " + p.exitValue() + ": " + err.join());
      }
      if (System.nanoTime() > deadline) {
        fail("cotenant serve did not write daemon.json and open its socket");
      }
      Thread.sleep(50);
    }
    return p;
  }

  /** The running daemon's {@code daemon.json}, when there is one. */
  public java.util.Optional<JsonNode> state() {
    Path f = home.resolve("daemon.json");
    try {
      return Files.isRegularFile(f) ? java.util.Optional.of(JSON.readTree(f.toFile())) : java.util.Optional.empty();
    } catch (RuntimeException e) {
      return java.util.Optional.empty();
    }
  }

  /** The daemon's bearer token. */
  public String token() throws IOException {
    return Files.readString(home.resolve("api-token")).strip();
  }

  /** An initialized SDK client over stdio, through {@code cotenant connect NAME CONFIG}. */
  public McpSyncClient stdioClient(String server, String clientName) {
    return stdioClient(server, clientName, spec -> spec);
  }

  /** As {@link #stdioClient(String, String)}, {@code spec} adding handlers. */
  McpSyncClient stdioClient(String server, String clientName, java.util.function.UnaryOperator<McpClient.SyncSpec> spec) {
    List<String> cmd = shimCommand(server, config);
    ServerParameters params = ServerParameters.builder(cmd.get(0)).args(cmd.subList(1, cmd.size())).env(env()).build();
    StdioClientTransport transport = new StdioClientTransport(params, MCP_JSON);
    transport.setStdErrorHandler(line -> { });
    return initialized(spec.apply(McpClient.sync(transport)), clientName);
  }

  /**
   * An initialized SDK client over stdio of server {@code server} started directly, as its entry in
   * the configuration says (no daemon, no shim): what a client without Cotenant talks to.
   */
  McpSyncClient directClient(String server, String clientName) throws IOException {
    JsonNode entry = JSON.readTree(config.toFile()).path("mcpServers").path(server);
    String command = entry.path("command").asString();
    if (command.contains("/") && !Path.of(command).isAbsolute()) {
      command = config.getParent().resolve(command).toString();
    }
    List<String> args = new java.util.ArrayList<>();
    entry.path("args").forEach(a -> args.add(a.asString()));
    ServerParameters params = ServerParameters.builder(command).args(args).build();
    StdioClientTransport transport = new StdioClientTransport(params, MCP_JSON);
    transport.setStdErrorHandler(line -> { });
    return initialized(McpClient.sync(transport), clientName);
  }

  /** An initialized SDK client over Streamable HTTP at the daemon's {@code /mcp/NAME}, with the token. */
  McpSyncClient httpClient(String server, String clientName) throws IOException {
    return httpClient(server, clientName, spec -> spec);
  }

  /** As {@link #httpClient(String, String)}, {@code spec} adding handlers. */
  McpSyncClient httpClient(String server, String clientName, java.util.function.UnaryOperator<McpClient.SyncSpec> spec)
      throws IOException {
    int port = state().orElseThrow().path("port").asInt();
    String token = token();
    HttpClientStreamableHttpTransport transport = HttpClientStreamableHttpTransport.builder("http://127.0.0.1:" + port)
        .endpoint("/mcp/" + server)
        .jsonMapper(MCP_JSON)
        .httpRequestCustomizer((builder, method, uri, body, context) -> builder.header("Authorization", "Bearer " + token))
        .build();
    return initialized(spec.apply(McpClient.sync(transport)), clientName);
  }

  private McpSyncClient initialized(McpClient.SyncSpec spec, String clientName) {
    McpSyncClient c = spec.clientInfo(new McpSchema.Implementation(clientName, "1.0.0"))
        .requestTimeout(BOUND).initializationTimeout(BOUND).build();
    clients.add(c);
    c.initialize();
    return c;
  }

  /** The text of a tool's answer. */
  public static String text(McpSchema.CallToolResult result) {
    return result.content().stream().filter(McpSchema.TextContent.class::isInstance)
        .map(c -> ((McpSchema.TextContent) c).text()).collect(Collectors.joining("\n"));
  }

  /** The processes below {@code daemonPid} whose command line contains {@code marker}. */
  public static List<ProcessHandle> backends(long daemonPid, String marker) {
    return ProcessHandle.of(daemonPid).map(ProcessHandle::descendants).orElse(Stream.empty())
        .filter(p -> p.info().commandLine().orElse("").contains(marker))
        .collect(Collectors.toList());
  }

  /** The processes carrying this run's cookie whose command line contains {@code marker}. */
  static List<ProcessHandle> marked(String marker) {
    return Processes.marked().stream().filter(p -> p.info().commandLine().orElse("").contains(marker))
        .collect(Collectors.toList());
  }

  /** Waits until none of {@code processes} runs; returns those still running at the deadline. */
  static List<ProcessHandle> awaitGone(List<ProcessHandle> processes, Duration bound) throws InterruptedException {
    return Processes.awaitExit(processes, bound);
  }

  @Override
  public void close() throws IOException {
    for (McpSyncClient c : clients) {
      try {
        c.closeGracefully();
      } catch (RuntimeException e) {
        // Its shim or daemon is gone already.
      }
    }
    for (Process p : processes) {
      p.destroy();
    }
    for (Process p : processes) {
      try {
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
          p.destroyForcibly();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    // A daemon a shim started (not one of this fixture's processes) is stopped too.
    state().map(s -> s.path("pid").asLong()).flatMap(ProcessHandle::of).ifPresent(h -> {
      h.destroy();
      try {
        h.onExit().get(60, TimeUnit.SECONDS);
      } catch (Exception e) {
        h.destroyForcibly();
      }
    });
    try (Stream<Path> files = Files.walk(home)) {
      files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
    }
  }
}
