package dev.cotenant.examples.preflight;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.api.PreflightOutcome;
import dev.cotenant.api.ServerDescription;
import dev.cotenant.api.Transport;
import dev.cotenant.api.Verdict;
import dev.cotenant.gateway.Cotenant;
import dev.cotenant.providers.preflight.PreflightSettings;
import dev.cotenant.providers.preflight.StdioPreflightTransport;
import dev.cotenant.providers.preflight.StdioPreflightTransportProvider;
import dev.cotenant.spi.PreflightResult;
import dev.cotenant.spi.PreflightTransport;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * How the pre-flight integration tests build what a host builds: server descriptions from
 * {@code examples/mcp.json} (commands relative to the file's own directory, as the CLI reads them),
 * the Cotenant runtime with the default providers found on the class path, its {@code stdio}
 * pre-flight transport, and the verdict of a pre-flight through the default evidence chain.
 */
final class PreflightFixture {

  /** Generous: how long every spawned process may take to disappear, on a busy two-core machine, in milliseconds. */
  static final long BOUND_MILLIS = 120_000;

  /** {@link #BOUND_MILLIS} as a duration. */
  static final Duration BOUND = Duration.ofMillis(BOUND_MILLIS);

  /** The repository root: the nearest directory at or above the working directory holding {@code examples/mcp.json}. */
  static final Path REPOSITORY_ROOT = repositoryRoot();

  /** The shaded jar every Java launcher in {@code examples/bin} runs; built at the package phase. */
  static final Path SAMPLE_JAR = REPOSITORY_ROOT.resolve("examples/target/cotenant-sample-servers.jar");

  /** What {@code examples/bin/server-everything} runs; installed by {@code npm ci} during the build. */
  static final Path SERVER_EVERYTHING_ENTRY = REPOSITORY_ROOT.resolve(
      "examples/npm/node_modules/@modelcontextprotocol/server-everything/dist/index.js");

  /** The version the pre-flight offers in {@code initialize}, which every handshake-era sample negotiates. */
  static final String HANDSHAKE_ERA = dev.cotenant.spi.Mcp.LEGACY_VERSION;

  /** The stateless revision spoken through {@code server/discover}. */
  static final String DISCOVER_ERA = dev.cotenant.spi.Mcp.MODERN_VERSION;

  private static final JsonMapper JSON = JsonMapper.builder().build();

  private PreflightFixture() {}

  /**
   * Fails (never skips) when the build did not produce what the launchers run: the tests run
   * after {@code package}, which builds the jar, and the examples build installs the npm server.
   */
  static void requireBuiltServers() {
    assertTrue(Files.isRegularFile(SAMPLE_JAR),
        SAMPLE_JAR + " is missing: these tests run in the integration-test phase, after `mvn -B package` built it");
    assertTrue(Files.isRegularFile(SERVER_EVERYTHING_ENTRY),
        SERVER_EVERYTHING_ENTRY + " is missing: the examples build installs it with `npm ci` (unless -Dcotenant.npm.skip=true)");
  }

  /**
   * The configuration of every pre-flight here: the {@code stdio} provider, the given era, and the
   * transport's own process ceiling ({@code max-processes} left at its default). The time bounds
   * are raised because the machine running the build may be busy with other builds (a timeout
   * would read as "could not ask", which is not what these tests measure); the teardown waits are
   * shrunk, since every sample exits as soon as its stdin closes.
   */
  static Map<String, String> config(String era) {
    Map<String, String> config = new LinkedHashMap<>();
    config.put("cotenant.preflight.provider", StdioPreflightTransportProvider.NAME);
    config.put(PreflightSettings.ERA, era);
    config.put(PreflightSettings.TIMEOUT_MS, "60000");
    config.put(PreflightSettings.DISCOVER_TIMEOUT_MS, "30000");
    config.put(PreflightSettings.STDIN_CLOSE_WAIT_MS, "500");
    config.put(PreflightSettings.TERM_WAIT_MS, "500");
    config.put(PreflightSettings.KILL_WAIT_MS, "2000");
    return config;
  }

  /** The runtime a host embeds, with every provider found on the class path. */
  static Cotenant cotenant(Path recordsDirectory, String era) {
    return cotenant(recordsDirectory, era, Map.of());
  }

  /** The runtime, with {@code overrides} on top of {@link #config}. */
  static Cotenant cotenant(Path recordsDirectory, String era, Map<String, String> overrides) {
    Map<String, String> config = config(era);
    config.putAll(overrides);
    return Cotenant.builder().config(config).recordsDirectory(recordsDirectory).build();
  }

  /**
   * The runtime's pre-flight transport: selected through {@code ServiceLoader} and created by
   * {@link StdioPreflightTransportProvider} from the runtime's {@code ProviderContext}.
   */
  static StdioPreflightTransport transport(Cotenant cotenant) {
    PreflightTransport transport = cotenant.preflightTransport();
    StdioPreflightTransport stdio = assertInstanceOf(StdioPreflightTransport.class, transport);
    assertEquals(PreflightSettings.DEFAULT_MAX_PROCESSES, stdio.settings().maxProcesses(),
        "the transport's own process ceiling is in force");
    return stdio;
  }

  /** What the core is told about a pre-flight: "could not ask" or the facets that diverged. */
  static PreflightOutcome outcome(PreflightResult result) {
    return result.ran()
        ? new PreflightOutcome.Ran(result.divergentFacets())
        : new PreflightOutcome.NotRun(result.notRunReason());
  }

  /** The verdict of the default evidence chain on a server, given its pre-flight and no observed hazard. */
  static Verdict verdict(Cotenant cotenant, ServerDescription server, PreflightResult result) {
    return cotenant.assess(server, result.handshake(), outcome(result), List.of());
  }

  /**
   * Every entry of {@code examples/mcp.json}, in file order, as the CLI describes it: a stdio
   * entry's command resolved against the file's directory, its args and env; an HTTP entry's url.
   */
  static Map<String, ServerDescription> mcpJson() throws IOException {
    JsonNode root = JSON.readTree(Files.readString(REPOSITORY_ROOT.resolve("examples/mcp.json")));
    Map<String, ServerDescription> servers = new LinkedHashMap<>();
    root.path("mcpServers").properties().forEach(entry -> servers.put(entry.getKey(), describe(entry.getKey(), entry.getValue())));
    return servers;
  }

  private static ServerDescription describe(String name, JsonNode entry) {
    if (entry.path("type").asString("stdio").equals("http")) {
      return ServerDescription.http(name, entry.path("url").asString(""));
    }
    List<String> args = new ArrayList<>();
    entry.path("args").forEach(arg -> args.add(arg.asString("")));
    Map<String, String> env = new LinkedHashMap<>();
    entry.path("env").properties().forEach(e -> env.put(e.getKey(), e.getValue().asString("")));
    return new ServerDescription(name, Transport.STDIO,
        REPOSITORY_ROOT.resolve("examples").resolve(entry.path("command").asString("")).normalize().toString(), args,
        Optional.empty(), env, Optional.empty(), true);
  }

  private static Path repositoryRoot() {
    Path dir = Path.of("").toAbsolutePath();
    for (Path d = dir; d != null; d = d.getParent()) {
      if (Files.isRegularFile(d.resolve("examples/mcp.json"))) {
        return d;
      }
    }
    throw new IllegalStateException("no examples/mcp.json at or above " + dir);
  }
}
