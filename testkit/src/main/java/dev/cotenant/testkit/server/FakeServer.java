package dev.cotenant.testkit.server;

import dev.cotenant.api.ServerDescription;
import dev.cotenant.api.Transport;
import dev.cotenant.spi.Mcp;
import dev.cotenant.spi.rpc.ErrorCode;
import dev.cotenant.testkit.process.Processes;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A scriptable MCP server over stdio, for testing anything that starts and speaks to servers
 * (session transports, pre-flights, probes, pools) without an MCP SDK or a network.
 *
 * <p>Build a script, then hand {@link #description()} to the code under test: it is an ordinary
 * stdio {@link ServerDescription} whose command runs {@link FakeMcpServer} in a child JVM (the
 * {@code java} binary of this JVM, this JVM's class path), with the script as its last argument.
 *
 * <pre>{@code
 * FakeServer server = FakeServer.builder()
 *     .era(FakeServer.Era.LEGACY)
 *     .tool("echo", Map.of("readOnlyHint", true))
 *     .callerSensitiveTools()
 *     .build();
 * PreflightResult r = myPreflight.preflight(server.description());
 * }</pre>
 *
 * <p>What every script does: newline-delimited JSON-RPC on stdin and stdout; {@code initialize}
 * (negotiating the requested version when it knows it, else {@value Mcp#LEGACY_VERSION}) and
 * {@code notifications/initialized}, or {@code server/discover} (answering
 * {@code supportedVersions} with {@value Mcp#MODERN_VERSION}), per {@link Era}; {@code tools/list},
 * {@code tools/call}, {@code prompts/list}, {@code resources/list}, {@code ping}; method-not-found
 * for anything else. A request other than {@code ping} that comes before any {@code initialize}
 * must carry {@code _meta["io.modelcontextprotocol/protocolVersion"]} (the discover era sends
 * it with every request), else it is refused with {@link ErrorCode#INVALID_PARAMS}. {@code tools/call} of any tool
 * answers the JSON of its arguments as text (after sleeping {@code arguments.delayMillis} when
 * given, on its own thread, so answers may overtake each other), unless {@link Builder#leaksState()}.
 * The request {@value #RECEIVED_NOTIFICATIONS} answers {@code {"notifications": [{"method", "params"}...]}},
 * every notification received so far, in order; {@value #RECEIVED_REQUESTS} answers the requests
 * received so far the same way. The process exits when stdin closes.
 *
 * <p>To script a new behaviour, add a builder option, its field in the script record and its
 * handling in {@link FakeMcpServer}; keep each option independent of the others.
 *
 * <p>Immutable and thread-safe; each {@link #description()} starts a fresh process when run.
 */
public final class FakeServer {
  /** The request answering the notifications the server received so far. */
  public static final String RECEIVED_NOTIFICATIONS = "fake/notifications";

  /**
   * The request answering {@code {"requests": [{"method", "params"}...]}}: every request the
   * server received so far, in order, except {@value #RECEIVED_NOTIFICATIONS} and itself.
   */
  public static final String RECEIVED_REQUESTS = "fake/requests";

  /** The exit status of a server that exits because of {@link Builder#exitAfter}. */
  public static final int EXIT_STATUS = 3;

  /** The protocol eras a fake server speaks. */
  public enum Era {
    /** {@code initialize} only (2024-11-05 … 2025-11-25); {@code server/discover} is method-not-found. */
    LEGACY,
    /** {@code server/discover} only ({@value Mcp#MODERN_VERSION}); {@code initialize} is refused with {@link ErrorCode#UNSUPPORTED_PROTOCOL_VERSION}. */
    MODERN,
    /** Both: {@code server/discover} offers {@value Mcp#MODERN_VERSION} and {@code initialize} is answered. */
    BOTH
  }

  /** How {@code tools/call} answers. */
  enum CallMode {
    ECHO,
    GLOBAL
  }

  private final Script script;
  private final ServerDescription description;

  private FakeServer(Script script) {
    this.script = script;
    List<String> args = new ArrayList<>(FakeMcpServer.jvmArgs());
    args.add(FakeMcpServer.class.getName());
    args.add(script.toJson());
    this.description = new ServerDescription(
        script.name(),
        Transport.STDIO,
        FakeMcpServer.javaBinary(),
        args,
        Optional.empty(),
        Map.of(Processes.COOKIE_ENV, Processes.cookie()),
        Optional.empty(),
        true);
  }

  /** A new script: era {@link Era#BOTH}, no tools, echoing calls. */
  public static Builder builder() {
    return new Builder();
  }

  /** The description that runs this script; enabled, stdio. */
  public ServerDescription description() {
    return description;
  }

  /** The configured name of {@link #description()}. */
  public String name() {
    return script.name();
  }

  /** The tool names this server lists to a caller that is not caller-sensitive. */
  public List<String> toolNames() {
    List<String> out = new ArrayList<>();
    script.tools().forEach(t -> out.add(t.name()));
    return out;
  }

  @Override
  public String toString() {
    return "FakeServer" + script.toJson();
  }

  /** Builds a script. Not thread-safe; the built server is. */
  public static final class Builder {
    private String name = "fake";
    private Era era = Era.BOTH;
    private String serverName = "fake-mcp-server";
    private String serverVersion = "1.0.0";
    private final List<Script.Tool> tools = new ArrayList<>();
    private CallMode callMode = CallMode.ECHO;
    private boolean callerSensitiveTools;
    private final List<String> prompts = new ArrayList<>();
    private final List<String> resources = new ArrayList<>();
    private boolean logging;
    private final Map<String, Object> experimental = new LinkedHashMap<>();
    private String notificationOnCall = "";
    private String serverRequestOnCall = "";
    private int exitAfter = -1;
    private boolean silent;
    private boolean spawnsChild;
    private boolean ignoresTermination;
    private String startsFile = "";
    private boolean reportsProgress;
    private boolean subscriptions;
    private boolean notifiesFromArguments;
    private boolean logsAtLevels;
    private int notificationsBeforeInitialize;
    private boolean writesNonJsonOnCall;
    private String toolsFile = "";
    private boolean asksRootsWhenInitialized;

    private Builder() {}

    /** The configured name in {@link FakeServer#description()}; {@code fake} by default. */
    public Builder name(String name) {
      this.name = Objects.requireNonNull(name, "name");
      return this;
    }

    /** Which handshakes the server answers; {@link Era#BOTH} by default. */
    public Builder era(Era era) {
      this.era = Objects.requireNonNull(era, "era");
      return this;
    }

    /** The {@code serverInfo} the server reports; {@code fake-mcp-server 1.0.0} by default. */
    public Builder serverInfo(String name, String version) {
      this.serverName = Objects.requireNonNull(name, "name");
      this.serverVersion = Objects.requireNonNull(version, "version");
      return this;
    }

    /** Lists a tool without annotations. */
    public Builder tool(String name) {
      tools.add(new Script.Tool(name, Optional.empty()));
      return this;
    }

    /** Lists a tool with an {@code annotations} object (plain JSON values). */
    public Builder tool(String name, Map<String, Object> annotations) {
      tools.add(new Script.Tool(name, Optional.of(new LinkedHashMap<>(annotations))));
      return this;
    }

    /** {@code tools/call} answers the JSON of its arguments as text (the default). */
    public Builder echo() {
      this.callMode = CallMode.ECHO;
      return this;
    }

    /**
     * {@code tools/call} keeps one process-global value: it answers {@code previous target: <v>},
     * the {@code target} argument of the call before, then stores its own. Two callers sharing
     * the process see each other's targets: a cross-session leak.
     */
    public Builder leaksState() {
      this.callMode = CallMode.GLOBAL;
      return this;
    }

    /**
     * {@code tools/list} also lists a tool named {@code for-<clientInfo.name>} of the caller (from
     * {@code initialize}, or from the request's {@code _meta} in the discover era): two callers
     * are told different things, which a pre-flight must report as a divergence.
     */
    public Builder callerSensitiveTools() {
      this.callerSensitiveTools = true;
      return this;
    }

    /** Advertises {@code prompts} and lists these prompt names. */
    public Builder prompts(String... names) {
      prompts.addAll(List.of(names));
      return this;
    }

    /** Advertises {@code resources} and lists these resource URIs. */
    public Builder resources(String... uris) {
      resources.addAll(List.of(uris));
      return this;
    }

    /** Advertises {@code logging}. */
    public Builder logging() {
      this.logging = true;
      return this;
    }

    /** Adds a key to {@code capabilities.experimental}. */
    public Builder experimental(String key, Map<String, Object> value) {
      experimental.put(key, new LinkedHashMap<>(value));
      return this;
    }

    /**
     * Before answering each {@code tools/call}, sends the notification {@code method} with params
     * {@code {"marker": <arguments.marker>}}.
     */
    public Builder sendsNotificationOnCall(String method) {
      this.notificationOnCall = Objects.requireNonNull(method, "method");
      return this;
    }

    /**
     * On each {@code tools/call}, sends the request {@code method} (params {@code {"marker":
     * <arguments.marker>}}) to the client, waits for its reply, and answers the call with the JSON
     * of that reply's {@code result} or {@code error} as text.
     */
    public Builder sendsServerRequestOnCall(String method) {
      this.serverRequestOnCall = Objects.requireNonNull(method, "method");
      return this;
    }

    /**
     * Answers {@code requests} requests (of any method, {@code ping} included), then exits with
     * status {@value FakeServer#EXIT_STATUS} on reading the next one, without answering it or any
     * {@code tools/call} still in progress. {@code 0} exits on the first request.
     */
    public Builder exitAfter(int requests) {
      if (requests < 0) {
        throw new IllegalArgumentException("exitAfter needs a count of at least 0, got " + requests);
      }
      this.exitAfter = requests;
      return this;
    }

    /** Reads everything and answers nothing (still exits when stdin closes). */
    public Builder silent() {
      this.silent = true;
      return this;
    }

    /**
     * At start, starts a child process (an idle JVM) that it never stops: whoever tears the server
     * down must tear its descendants down too. The child outlives the server when only the server
     * is stopped.
     */
    public Builder spawnsChild() {
      this.spawnsChild = true;
      return this;
    }

    /**
     * Ignores stdin closing and SIGTERM (its shutdown never completes): only SIGKILL ends it.
     */
    public Builder ignoresTermination() {
      this.ignoresTermination = true;
      return this;
    }

    /** Appends the server's pid and a newline to {@code file} when it starts. */
    public Builder recordsStartsIn(Path file) {
      this.startsFile = file.toAbsolutePath().toString();
      return this;
    }

    /**
     * Each {@code tools/call} whose {@code params._meta.progressToken} is set first sends
     * {@code notifications/progress} with that token (its JSON type kept), {@code progress: 1},
     * {@code total: 2} and {@code message: <arguments.marker>}, then goes on as usual (sleeping
     * {@code delayMillis} after it, so a client that saw the progress knows the call is under way).
     */
    public Builder reportsProgress() {
      this.reportsProgress = true;
      return this;
    }

    /**
     * Advertises {@code resources: {"subscribe": true}} and answers {@code resources/subscribe}
     * and {@code resources/unsubscribe} with {@code {}} (any URI; the server keeps no list). What
     * was asked can be read back with {@value FakeServer#RECEIVED_REQUESTS}.
     */
    public Builder subscriptions() {
      this.subscriptions = true;
      return this;
    }

    /**
     * A {@code tools/call} whose {@code arguments.notify} is a list of {@code {"method": ...,
     * "params": {...}}} objects first sends each as a notification, in order, then goes on as
     * usual: a test makes the server send {@code notifications/tools/list_changed},
     * {@code notifications/resources/updated} or anything else exactly while one of its calls is
     * in flight.
     */
    public Builder notifiesFromArguments() {
      this.notifiesFromArguments = true;
      return this;
    }

    /**
     * Advertises {@code logging}, answers {@code logging/setLevel} with {@code {}} and keeps the
     * level (an unknown level is refused with {@link ErrorCode#INVALID_PARAMS}), and makes each {@code tools/call}
     * first send one {@code notifications/message} at every RFC 5424 level at or above the level
     * set ({@code debug} when none was), finest first, with {@code logger: "fake"} and
     * {@code data: <arguments.marker>}.
     */
    public Builder logsAtLevels() {
      this.logsAtLevels = true;
      return this;
    }

    /**
     * Before answering {@code initialize}, sends {@code count} {@code notifications/message}
     * notifications ({@code level: "info"}, {@code logger: "fake"}, {@code data: "starting <n>"}):
     * a server that is talkative while it starts, so a reader's message count is reached during
     * the handshake.
     */
    public Builder notifiesBeforeInitialize(int count) {
      if (count < 0) {
        throw new IllegalArgumentException("notifiesBeforeInitialize needs a count of at least 0, got " + count);
      }
      this.notificationsBeforeInitialize = count;
      return this;
    }

    /**
     * Before answering each {@code tools/call} (after its {@code delayMillis}), writes one line to
     * stdout that is not JSON ({@code not JSON-RPC: <arguments.marker>}): a server that logs to
     * stdout, whose reader's bound on such lines is reached after enough calls.
     */
    public Builder writesNonJsonOnCall() {
      this.writesNonJsonOnCall = true;
      return this;
    }

    /**
     * Lists, after its scripted tools, a tool for each non-blank line of {@code file}, read once
     * when it starts, and declares {@code tools.listChanged}: a server whose listing depends on a
     * file beside it. A file it cannot read ends it before it answers anything, exit 1, with
     * {@code cannot read the tools file PATH: REASON} on stderr.
     */
    public Builder toolsFromFile(Path file) {
      this.toolsFile = file.toAbsolutePath().toString();
      return this;
    }

    /**
     * Asks its client {@code roots/list} as soon as {@code notifications/initialized} arrives, when
     * the client's {@code initialize} declared {@code roots}, as filesystem servers do (it does not
     * wait for the answer).
     */
    public Builder asksRootsWhenInitialized() {
      this.asksRootsWhenInitialized = true;
      return this;
    }

    /** The server. */
    public FakeServer build() {
      return new FakeServer(new Script(
          name, era, serverName, serverVersion, List.copyOf(tools), callMode, callerSensitiveTools,
          List.copyOf(prompts), List.copyOf(resources), logging, new LinkedHashMap<>(experimental),
          notificationOnCall, serverRequestOnCall, exitAfter, silent, spawnsChild, ignoresTermination, startsFile,
          reportsProgress, subscriptions, notifiesFromArguments, logsAtLevels, notificationsBeforeInitialize,
          writesNonJsonOnCall, toolsFile, asksRootsWhenInitialized));
    }
  }
}
