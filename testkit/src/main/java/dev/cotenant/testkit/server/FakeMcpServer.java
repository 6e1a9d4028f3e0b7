package dev.cotenant.testkit.server;

import dev.cotenant.api.Json;
import dev.cotenant.spi.Mcp;
import dev.cotenant.spi.rpc.Envelope;
import dev.cotenant.spi.rpc.ErrorCode;
import dev.cotenant.spi.rpc.RequestId;
import dev.cotenant.spi.rpc.RpcMessage;
import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import tools.jackson.core.JacksonException;

/**
 * The process behind a {@link FakeServer}: {@code java -cp <class path> FakeMcpServer <script JSON>}.
 * What it does is described on {@link FakeServer}; this class only runs it. Messages are read on
 * the main thread; each {@code tools/call} is answered on its own thread; writes are serialised.
 */
public final class FakeMcpServer {
  /** The argument that makes the process an idle child (see {@link FakeServer.Builder#spawnsChild()}). */
  static final String IDLE = "--idle";

  private static final Set<String> LEGACY_VERSIONS = Set.of("2024-11-05", "2025-03-26", "2025-06-18", Mcp.LEGACY_VERSION);
  private static final long SERVER_REQUEST_WAIT_SECONDS = 30;
  /** The RFC 5424 severities of {@code notifications/message}, finest first. */
  private static final List<String> LEVELS =
      List.of("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency");

  private final Script script;
  private final PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), false, StandardCharsets.UTF_8);
  private final AtomicInteger requests = new AtomicInteger();
  private final AtomicInteger serverRequests = new AtomicInteger();
  private final Map<RequestId, CompletableFuture<Map<String, Object>>> awaiting = new ConcurrentHashMap<>();
  private final List<Map<String, Object>> notifications = new ArrayList<>();
  private final List<Map<String, Object>> received = new ArrayList<>();
  /** The level of {@link FakeServer.Builder#logsAtLevels()}. */
  private volatile String logLevel = LEVELS.get(0);
  private final ExecutorService calls = Executors.newCachedThreadPool(r -> {
    Thread t = new Thread(r, "fake-call");
    t.setDaemon(true);
    return t;
  });
  private final Object globalLock = new Object();
  private String global = "";
  /** The {@code clientInfo.name} of {@code initialize}; null before one. */
  private volatile String legacyClient;
  /** Whether the client's {@code initialize} declared {@code roots}. */
  private volatile boolean clientDeclaresRoots;
  /** The tools read from the script's tools file when it started. */
  private final List<String> fileTools = new ArrayList<>();
  private volatile Process child;

  private FakeMcpServer(Script script) {
    this.script = script;
  }

  /**
   * Runs the script given as the only argument.
   *
   * @param args the script's JSON, as {@link FakeServer} writes it
   */
  public static void main(String[] args) throws Exception {
    if (args.length == 1 && IDLE.equals(args[0])) {
      sleepForever();
      return;
    }
    if (args.length != 1) {
      System.err.println("usage: FakeMcpServer <script JSON>");
      System.exit(2);
    }
    new FakeMcpServer(Script.fromJson(args[0])).serve();
  }

  /** The options of the child JVM: small and quick to start. */
  static List<String> jvmArgs() {
    return List.of(
        "-XX:+IgnoreUnrecognizedVMOptions",
        "-XX:TieredStopAtLevel=1",
        "-XX:+UseSerialGC",
        "-Xmx64m",
        "-Xss512k",
        "-cp",
        System.getProperty("java.class.path"));
  }

  /** The {@code java} binary of this JVM. */
  static String javaBinary() {
    return ProcessHandle.current().info().command()
        .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
  }

  private void serve() throws IOException {
    if (!script.toolsFile().isEmpty()) {
      try {
        for (String line : Files.readAllLines(Path.of(script.toolsFile()), StandardCharsets.UTF_8)) {
          if (!line.isBlank()) {
            fileTools.add(line.strip());
          }
        }
      } catch (IOException e) {
        System.err.println("cannot read the tools file " + script.toolsFile() + ": " + e.getClass().getSimpleName());
        System.exit(1);
      }
    }
    if (!script.startsFile().isEmpty()) {
      Files.writeString(Path.of(script.startsFile()), ProcessHandle.current().pid() + "\n", StandardCharsets.UTF_8,
          StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    }
    if (script.spawnsChild()) {
      List<String> command = new ArrayList<>();
      command.add(javaBinary());
      command.addAll(jvmArgs());
      command.add(FakeMcpServer.class.getName());
      command.add(IDLE);
      child = new ProcessBuilder(command)
          .redirectOutput(ProcessBuilder.Redirect.DISCARD)
          .redirectError(ProcessBuilder.Redirect.DISCARD)
          .start();
    }
    if (script.ignoresTermination()) {
      Runtime.getRuntime().addShutdownHook(new Thread(FakeMcpServer::sleepForever, "fake-never-finishes"));
    }
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    String line;
    while ((line = in.readLine()) != null) {
      if (line.isBlank()) {
        continue;
      }
      Object parsed;
      try {
        parsed = Script.MAPPER.readValue(line, Object.class);
      } catch (JacksonException e) {
        write(Envelope.error(null, ErrorCode.PARSE_ERROR, "not JSON"));
        continue;
      }
      try {
        handle(RpcMessage.read(parsed));
      } catch (RpcMessage.InvalidMessage e) {
        // Not a JSON-RPC message: ignored, as a server with nothing to answer it would.
      }
    }
    if (script.ignoresTermination()) {
      sleepForever();
    }
    calls.shutdownNow();
    System.exit(0);
  }

  private void handle(RpcMessage message) {
    if (message instanceof RpcMessage.Response response) {
      if (response.id() != null) {
        CompletableFuture<Map<String, Object>> f = awaiting.remove(response.id());
        if (f != null) {
          f.complete(response.json());
        }
      }
      return;
    }
    if (message instanceof RpcMessage.Notification notification) {
      if (script.asksRootsWhenInitialized() && clientDeclaresRoots
          && "notifications/initialized".equals(notification.method())) {
        write(Envelope.request(RequestId.of("fake-roots-" + serverRequests.incrementAndGet()), "roots/list", Map.of()));
      }
      Map<String, Object> n = new LinkedHashMap<>();
      n.put("method", notification.method());
      n.put("params", object(notification.params()));
      synchronized (notifications) {
        notifications.add(n);
      }
      return;
    }
    RpcMessage.Request request = (RpcMessage.Request) message;
    String method = request.method();
    RequestId id = request.id();
    Map<String, Object> params = object(request.params());
    if (script.silent()) {
      return;
    }
    if (script.exitAfter() >= 0 && requests.incrementAndGet() > script.exitAfter()) {
      Process c = child;
      if (c != null) {
        c.destroyForcibly();
      }
      Runtime.getRuntime().halt(FakeServer.EXIT_STATUS);
    }
    if (!FakeServer.RECEIVED_NOTIFICATIONS.equals(method) && !FakeServer.RECEIVED_REQUESTS.equals(method)) {
      Map<String, Object> r = new LinkedHashMap<>();
      r.put("method", method);
      r.put("params", params);
      synchronized (received) {
        received.add(r);
      }
    }
    request(method, id, params);
  }

  private void request(String method, RequestId id, Map<String, Object> params) {
    switch (method) {
      case "initialize":
        initialize(id, params);
        return;
      case "server/discover":
        if (script.era() == FakeServer.Era.LEGACY) {
          write(Envelope.error(id, ErrorCode.METHOD_NOT_FOUND, "Method not found: server/discover"));
        } else {
          write(Envelope.result(id, discoverResult()));
        }
        return;
      case "ping":
        write(Envelope.result(id, Map.of()));
        return;
      case FakeServer.RECEIVED_NOTIFICATIONS:
        synchronized (notifications) {
          write(Envelope.result(id, Map.of("notifications", new ArrayList<>(notifications))));
        }
        return;
      case FakeServer.RECEIVED_REQUESTS:
        synchronized (received) {
          write(Envelope.result(id, Map.of("requests", new ArrayList<>(received))));
        }
        return;
      default:
        break;
    }
    String caller = caller(params);
    if (caller == null) {
      write(Envelope.error(id, ErrorCode.INVALID_PARAMS, "every request needs _meta[\"" + Mcp.META_PROTOCOL_VERSION + "\"] = \""
          + Mcp.MODERN_VERSION + "\" unless initialize came first"));
      return;
    }
    switch (method) {
      case "tools/list":
        List<Object> tools = new ArrayList<>();
        script.tools().forEach(t -> tools.add(t.toJson()));
        fileTools.forEach(t -> tools.add(new Script.Tool(t, Optional.empty()).toJson()));
        if (script.callerSensitiveTools()) {
          tools.add(new Script.Tool("for-" + (caller.isEmpty() ? "anonymous" : caller), Optional.empty()).toJson());
        }
        write(Envelope.result(id, Map.of("tools", tools)));
        return;
      case "prompts/list":
        List<Object> prompts = new ArrayList<>();
        script.prompts().forEach(p -> prompts.add(Map.of("name", p)));
        write(Envelope.result(id, Map.of("prompts", prompts)));
        return;
      case "resources/list":
        List<Object> resources = new ArrayList<>();
        script.resources().forEach(u -> resources.add(Map.of("uri", u, "name", u)));
        write(Envelope.result(id, Map.of("resources", resources)));
        return;
      case "tools/call":
        calls.execute(() -> call(id, params));
        return;
      case "resources/subscribe":
      case "resources/unsubscribe":
        if (script.subscriptions()) {
          write(Envelope.result(id, Map.of()));
          return;
        }
        break;
      case "logging/setLevel":
        if (script.logsAtLevels()) {
          Object level = params.get("level");
          if (level instanceof String && LEVELS.contains(level)) {
            logLevel = (String) level;
            write(Envelope.result(id, Map.of()));
          } else {
            write(Envelope.error(id, ErrorCode.INVALID_PARAMS, "unknown level: " + level));
          }
          return;
        }
        break;
      default:
        break;
    }
    write(Envelope.error(id, ErrorCode.METHOD_NOT_FOUND, "Method not found: " + method));
  }

  private void initialize(RequestId id, Map<String, Object> params) {
    if (script.era() == FakeServer.Era.MODERN) {
      write(Envelope.error(id, ErrorCode.UNSUPPORTED_PROTOCOL_VERSION.code(),
          "this server speaks " + Mcp.MODERN_VERSION + " only; call server/discover",
          Map.of("supported", List.of(Mcp.MODERN_VERSION))));
      return;
    }
    for (int i = 1; i <= script.notificationsBeforeInitialize(); i++) {
      write(Envelope.notification("notifications/message",
          Map.of("level", "info", "logger", "fake", "data", "starting " + i)));
    }
    Object name = object(params.get("clientInfo")).get("name");
    legacyClient = name instanceof String ? (String) name : "";
    clientDeclaresRoots = object(params.get("capabilities")).containsKey("roots");
    Object requested = params.get("protocolVersion");
    String version = requested instanceof String && LEGACY_VERSIONS.contains(requested) ? (String) requested : Mcp.LEGACY_VERSION;
    Map<String, Object> r = new LinkedHashMap<>();
    r.put("protocolVersion", version);
    r.put("capabilities", capabilities());
    r.put("serverInfo", serverInfo());
    write(Envelope.result(id, r));
  }

  private Map<String, Object> discoverResult() {
    Map<String, Object> r = new LinkedHashMap<>();
    r.put("resultType", "complete");
    r.put("protocolVersion", Mcp.MODERN_VERSION);
    r.put("supportedVersions", script.era() == FakeServer.Era.BOTH
        ? List.of(Mcp.MODERN_VERSION, Mcp.LEGACY_VERSION) : List.of(Mcp.MODERN_VERSION));
    r.put("capabilities", capabilities());
    r.put("serverInfo", serverInfo());
    return r;
  }

  /** The caller's {@code clientInfo.name}: from the request's discover-era {@code _meta}, else from initialize; null when neither. */
  private String caller(Map<String, Object> params) {
    Map<String, Object> meta = object(params.get("_meta"));
    if (Mcp.MODERN_VERSION.equals(meta.get(Mcp.META_PROTOCOL_VERSION))) {
      Object name = object(meta.get(Mcp.META_CLIENT_INFO)).get("name");
      return name instanceof String ? (String) name : "";
    }
    return legacyClient;
  }

  private Map<String, Object> capabilities() {
    Map<String, Object> caps = new LinkedHashMap<>();
    caps.put("tools", Map.of("listChanged", !script.toolsFile().isEmpty()));
    if (!script.prompts().isEmpty()) {
      caps.put("prompts", Map.of());
    }
    if (!script.resources().isEmpty() || script.subscriptions()) {
      caps.put("resources", Map.of("subscribe", script.subscriptions()));
    }
    if (script.logging() || script.logsAtLevels()) {
      caps.put("logging", Map.of());
    }
    if (!script.experimental().isEmpty()) {
      caps.put("experimental", script.experimental());
    }
    return caps;
  }

  private Map<String, Object> serverInfo() {
    return Map.of("name", script.serverName(), "version", script.serverVersion());
  }

  private void call(RequestId id, Map<String, Object> params) {
    Map<String, Object> arguments = object(params.get("arguments"));
    String marker = String.valueOf(arguments.getOrDefault("marker", ""));
    Object token = object(params.get("_meta")).get("progressToken");
    if (script.reportsProgress() && token != null) {
      Map<String, Object> p = new LinkedHashMap<>();
      p.put("progressToken", token);
      p.put("progress", 1);
      p.put("total", 2);
      p.put("message", marker);
      write(Envelope.notification("notifications/progress", p));
    }
    if (script.notifiesFromArguments() && arguments.get("notify") instanceof List<?>) {
      for (Object n : (List<?>) arguments.get("notify")) {
        Map<String, Object> notification = object(n);
        write(Envelope.notification(String.valueOf(notification.get("method")), object(notification.get("params"))));
      }
    }
    if (script.logsAtLevels()) {
      for (String level : LEVELS.subList(LEVELS.indexOf(logLevel), LEVELS.size())) {
        write(Envelope.notification("notifications/message", Map.of("level", level, "logger", "fake", "data", marker)));
      }
    }
    if (!script.notificationOnCall().isEmpty()) {
      write(Envelope.notification(script.notificationOnCall(), Map.of("marker", marker)));
    }
    if (!script.serverRequestOnCall().isEmpty()) {
      RequestId sid = RequestId.of("fake-" + serverRequests.incrementAndGet());
      CompletableFuture<Map<String, Object>> reply = new CompletableFuture<>();
      awaiting.put(sid, reply);
      write(Envelope.request(sid, script.serverRequestOnCall(), Map.of("marker", marker)));
      try {
        Map<String, Object> r = reply.get(SERVER_REQUEST_WAIT_SECONDS, TimeUnit.SECONDS);
        Map<String, Object> answer = new LinkedHashMap<>();
        if (r.containsKey("result")) {
          answer.put("result", r.get("result"));
        } else {
          answer.put("error", r.get("error"));
        }
        write(Envelope.result(id, text(Script.MAPPER.writeValueAsString(answer), false)));
      } catch (TimeoutException e) {
        awaiting.remove(sid);
        write(Envelope.result(id, text("no reply to " + script.serverRequestOnCall(), true)));
      } catch (Exception e) {
        Thread.currentThread().interrupt();
      }
      return;
    }
    Object delay = arguments.get("delayMillis");
    if (delay instanceof Number && ((Number) delay).longValue() > 0) {
      try {
        Thread.sleep(((Number) delay).longValue());
      } catch (InterruptedException e) {
        return;
      }
    }
    String text;
    if (script.callMode() == FakeServer.CallMode.GLOBAL) {
      synchronized (globalLock) {
        text = "previous target: " + global;
        global = String.valueOf(arguments.getOrDefault("target", ""));
      }
    } else {
      text = Script.MAPPER.writeValueAsString(arguments);
    }
    if (script.writesNonJsonOnCall()) {
      writeLine("not JSON-RPC: " + marker);
    }
    write(Envelope.result(id, text(text, false)));
  }

  private static Map<String, Object> text(String text, boolean isError) {
    Map<String, Object> r = new LinkedHashMap<>();
    r.put("content", List.of(Map.of("type", "text", "text", text)));
    r.put("isError", isError);
    return r;
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> object(Object value) {
    return value instanceof Map<?, ?> ? (Map<String, Object>) value : new LinkedHashMap<>();
  }

  private void write(Map<String, Object> message) {
    writeLine(Script.MAPPER.writeValueAsString(Json.thaw(message)));
  }

  private void writeLine(String line) {
    synchronized (out) {
      out.print(line);
      out.print('\n');
      out.flush();
    }
  }

  private static void sleepForever() {
    while (true) {
      try {
        Thread.sleep(Long.MAX_VALUE);
      } catch (InterruptedException e) {
        // Only a signal ends this process.
      }
    }
  }
}
