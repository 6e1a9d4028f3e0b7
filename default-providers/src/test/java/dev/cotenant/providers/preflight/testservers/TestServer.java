package dev.cotenant.providers.preflight.testservers;

import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import tools.jackson.databind.json.JsonMapper;

/**
 * A scripted MCP server over stdio for the transport's integration tests, well-behaved or hostile
 * depending on its arguments: {@code TestServer <legacy|modern|nested|hugeline> [flag...]}.
 *
 * <p>Flags: {@code logging} (advertise logging), {@code caller-tools} (the tool list depends on
 * the caller), {@code caller-capabilities} (capabilities depend on declared client capabilities),
 * {@code chatty} (notifications and server requests before the initialize answer), {@code banner}
 * (a few non-JSON lines first), {@code stderr-flood}, {@code control-version}, {@code wrong-ids},
 * {@code exit-after-initialize}, {@code exit-on-discover}, {@code silent-discover}, {@code paged},
 * {@code listings}, {@code cursor-loop}, {@code cursor-endless}, {@code many-tools}, {@code strict}
 * (tools/list before notifications/initialized is answered differently), {@code immortal}
 * (ignores stdin closing and SIGTERM).
 *
 * <p>In {@code legacy} mode it also answers a few methods outside MCP, for the session tests: the
 * notification {@code test/remember} stores {@code params.value}, which the request
 * {@code test/recall} answers as {@code {"value": ...}}; {@code test/notify-me} sends the
 * notification {@code notifications/test} with the request's params before answering {@code {}};
 * {@code test/ask-client} sends the client the request {@code params.method} (with
 * {@code params.params}), waits for its reply and answers {@code {"answer": <the reply message>}}.
 *
 * <p>Every instance appends its pid to the file named by {@code COTENANT_TEST_PIDS}, so a test can
 * check that nothing it started is still alive.
 */
public final class TestServer {
  private static final JsonMapper MAPPER = JsonMapper.builder().build();

  private final String mode;
  private final Set<String> flags;
  private final PrintStream out;
  private final BufferedReader in;
  private String clientName = "";
  private boolean clientDeclaresSampling;
  private boolean initialized;
  private Object remembered = "nothing";

  private TestServer(String mode, Set<String> flags) {
    this.mode = mode;
    this.flags = flags;
    this.out = new PrintStream(new FileOutputStream(FileDescriptor.out), false, StandardCharsets.UTF_8);
    this.in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
  }

  /** Entry point. */
  public static void main(String[] args) throws Exception {
    recordPid();
    Set<String> flags = new HashSet<>(Arrays.asList(args).subList(1, args.length));
    new TestServer(args[0], flags).serve();
  }

  static void recordPid() throws IOException {
    String file = System.getenv("COTENANT_TEST_PIDS");
    if (file != null) {
      Files.writeString(Path.of(file), ProcessHandle.current().pid() + "\n", StandardCharsets.UTF_8,
          StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    }
  }

  private void serve() throws Exception {
    if (flags.contains("immortal")) {
      sun.misc.Signal.handle(new sun.misc.Signal("TERM"), signal -> { });
    }
    if (flags.contains("stderr-flood")) {
      Thread t = new Thread(() -> {
        byte[] line = ("noise ".repeat(200) + "\n").getBytes(StandardCharsets.UTF_8);
        OutputStream err = new FileOutputStream(FileDescriptor.err);
        try {
          while (true) {
            err.write(line);
          }
        } catch (IOException e) {
          // The reader went away.
        }
      });
      t.setDaemon(true);
      t.start();
    }
    if (flags.contains("banner")) {
      out.println("Starting test server v1 ...");
      out.println("{not json at all");
      out.println("[1,2,3]");
      out.flush();
    }
    String line;
    while ((line = in.readLine()) != null) {
      if (line.isBlank()) {
        continue;
      }
      @SuppressWarnings("unchecked")
      Map<String, Object> msg = MAPPER.readValue(line, Map.class);
      handle(msg);
    }
    if (flags.contains("immortal")) {
      // Ignores stdin closing too: only SIGKILL ends it.
      Object forever = new Object();
      synchronized (forever) {
        while (true) {
          forever.wait();
        }
      }
    }
  }

  @SuppressWarnings("unchecked")
  private void handle(Map<String, Object> msg) throws Exception {
    Object id = msg.get("id");
    Object method = msg.get("method");
    if (!(method instanceof String)) {
      return;
    }
    Map<String, Object> params = msg.get("params") instanceof Map ? (Map<String, Object>) msg.get("params") : Map.of();
    switch (mode) {
      case "nested":
        out.print("{\"a\":".repeat(100_000));
        out.print("1");
        out.println("}".repeat(100_000));
        out.flush();
        return;
      case "hugeline":
        byte[] chunk = "x".repeat(1 << 20).getBytes(StandardCharsets.US_ASCII);
        out.print("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"pad\":\"");
        for (int i = 0; i < 20; i++) {
          out.write(chunk);
        }
        out.println("\"}}");
        out.flush();
        return;
      case "modern":
        modern((String) method, id, params);
        return;
      default:
        legacy((String) method, id, params);
    }
  }

  @SuppressWarnings("unchecked")
  private void legacy(String method, Object id, Map<String, Object> params) throws Exception {
    switch (method) {
      case "server/discover":
        if (flags.contains("exit-on-discover")) {
          System.err.println("unknown method before initialize");
          System.exit(2);
        }
        if (!flags.contains("silent-discover")) {
          error(id, -32601, "Method not found: server/discover");
        }
        return;
      case "initialize":
        Map<String, Object> clientInfo = (Map<String, Object>) params.getOrDefault("clientInfo", Map.of());
        clientName = String.valueOf(clientInfo.get("name"));
        Map<String, Object> caps = (Map<String, Object>) params.getOrDefault("capabilities", Map.of());
        clientDeclaresSampling = caps.containsKey("sampling");
        if (flags.contains("chatty") && !chat()) {
          error(id, -32603, "the client answered the handshake requests wrongly");
          return;
        }
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("protocolVersion", "2025-06-18");
        result.put("capabilities", capabilities());
        result.put("serverInfo", serverInfo());
        result.put("instructions", "for " + clientName);
        respond(id, result);
        return;
      case "notifications/initialized":
        initialized = true;
        return;
      case "tools/list":
        if (flags.contains("exit-after-initialize")) {
          System.err.println("fatal: lost my backend");
          System.exit(3);
        }
        respond(id, toolsPage(params));
        return;
      case "prompts/list":
        respond(id, Map.of("prompts", List.of(Map.of("name", "greet", "description", "Greets " + clientName))));
        return;
      case "resources/list":
        String uri = flags.contains("caller-tools") ? "file:///home/" + clientName + "/notes" : "file:///notes";
        respond(id, Map.of("resources", List.of(Map.of("uri", uri, "name", "notes"))));
        return;
      case "ping":
        respond(id, Map.of());
        return;
      case "test/remember":
        remembered = params.getOrDefault("value", "nothing");
        return;
      case "test/recall":
        respond(id, Map.of("value", remembered));
        return;
      case "test/notify-me":
        write(Map.of("jsonrpc", "2.0", "method", "notifications/test", "params", params));
        respond(id, Map.of());
        return;
      case "test/ask-client":
        write(Map.of("jsonrpc", "2.0", "id", "s-ask", "method", params.get("method"),
            "params", params.getOrDefault("params", Map.of())));
        respond(id, Map.of("answer", replyTo("s-ask")));
        return;
      default:
        if (id != null) {
          error(id, -32601, "Method not found");
        }
    }
  }

  /** Reads until the client's reply to the request {@code id}, ignoring anything else. */
  @SuppressWarnings("unchecked")
  private Map<String, Object> replyTo(String id) throws IOException {
    String line;
    while ((line = in.readLine()) != null) {
      if (line.isBlank()) {
        continue;
      }
      Map<String, Object> reply = MAPPER.readValue(line, Map.class);
      if (id.equals(reply.get("id")) && !reply.containsKey("method")) {
        return reply;
      }
    }
    return Map.of();
  }

  /** Sends notifications and requests before answering initialize; true when the answers were right. */
  @SuppressWarnings("unchecked")
  private boolean chat() throws IOException {
    write(Map.of("jsonrpc", "2.0", "method", "notifications/message",
        "params", Map.of("level", "info", "data", "starting")));
    write(Map.of("jsonrpc", "2.0", "id", "s-roots", "method", "roots/list"));
    write(Map.of("jsonrpc", "2.0", "id", "s-ping", "method", "ping"));
    write(Map.of("jsonrpc", "2.0", "id", "s-sampling", "method", "sampling/createMessage",
        "params", Map.of("messages", List.of(), "maxTokens", 1)));
    write(Map.of("jsonrpc", "2.0", "id", "s-elicit", "method", "elicitation/create",
        "params", Map.of("message", "who are you?")));
    write(Map.of("jsonrpc", "2.0", "id", "s-other", "method", "custom/unknown"));
    int answered = 0;
    boolean right = true;
    while (answered < 5) {
      String line = in.readLine();
      if (line == null) {
        return false;
      }
      Map<String, Object> reply = MAPPER.readValue(line, Map.class);
      Object rid = reply.get("id");
      if ("s-roots".equals(rid)) {
        right &= Map.of("roots", List.of()).equals(reply.get("result"));
      } else if ("s-ping".equals(rid)) {
        right &= Map.of().equals(reply.get("result"));
      } else if ("s-sampling".equals(rid) || "s-elicit".equals(rid)) {
        right &= reply.get("error") instanceof Map;
      } else if ("s-other".equals(rid)) {
        right &= reply.get("error") instanceof Map && Integer.valueOf(-32601).equals(((Map<String, Object>) reply.get("error")).get("code"));
      } else {
        continue;
      }
      answered++;
    }
    return right;
  }

  @SuppressWarnings("unchecked")
  private void modern(String method, Object id, Map<String, Object> params) throws Exception {
    Map<String, Object> meta = params.get("_meta") instanceof Map ? (Map<String, Object>) params.get("_meta") : Map.of();
    if (!"2026-07-28".equals(meta.get("io.modelcontextprotocol/protocolVersion"))) {
      error(id, -32602, "missing io.modelcontextprotocol/protocolVersion in _meta");
      return;
    }
    Object info = meta.get("io.modelcontextprotocol/clientInfo");
    clientName = info instanceof Map ? String.valueOf(((Map<String, Object>) info).get("name")) : "";
    Object caps = meta.get("io.modelcontextprotocol/clientCapabilities");
    clientDeclaresSampling = caps instanceof Map && ((Map<String, Object>) caps).containsKey("sampling");
    switch (method) {
      case "server/discover":
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("resultType", "complete");
        result.put("supportedVersions", List.of("2026-07-28"));
        result.put("capabilities", capabilities());
        result.put("serverInfo", serverInfo());
        respond(id, result);
        return;
      case "tools/list":
        respond(id, toolsPage(params));
        return;
      case "prompts/list":
        respond(id, Map.of("prompts", List.of(Map.of("name", "greet"))));
        return;
      case "resources/list":
        respond(id, Map.of("resources", List.of(Map.of("uri", "file:///notes"))));
        return;
      default:
        error(id, -32601, "Method not found");
    }
  }

  private Map<String, Object> capabilities() {
    Map<String, Object> caps = new LinkedHashMap<>();
    caps.put("tools", Map.of("listChanged", false));
    if (flags.contains("logging")) {
      caps.put("logging", Map.of());
    }
    if (flags.contains("listings")) {
      caps.put("prompts", Map.of());
      caps.put("resources", Map.of("subscribe", false));
    }
    if (flags.contains("caller-capabilities") && clientDeclaresSampling) {
      caps.put("completions", Map.of());
    }
    caps.put("experimental", Map.of("build", Map.of("id", "build-" + ProcessHandle.current().pid())));
    return caps;
  }

  private Map<String, Object> serverInfo() {
    Map<String, Object> info = new LinkedHashMap<>();
    info.put("name", "test-server");
    info.put("version", flags.contains("control-version") ? "1.0\n\u001b[31mFORGED LOG LINE\u0007" : "1.0." + ProcessHandle.current().pid());
    return info;
  }

  private Map<String, Object> toolsPage(Map<String, Object> params) {
    Object cursor = params.get("cursor");
    if (flags.contains("cursor-loop")) {
      return Map.of("tools", List.of(tool("echo", true)), "nextCursor", "again");
    }
    if (flags.contains("cursor-endless")) {
      int n = cursor == null ? 0 : Integer.parseInt(String.valueOf(cursor).substring(1));
      return Map.of("tools", List.of(tool("t" + n, true)), "nextCursor", "c" + (n + 1));
    }
    if (flags.contains("many-tools")) {
      List<Object> tools = new ArrayList<>(100_000);
      for (int i = 0; i < 100_000; i++) {
        tools.add(Map.of("name", "t" + i, "inputSchema", Map.of("type", "object")));
      }
      return Map.of("tools", tools);
    }
    if (flags.contains("paged")) {
      if (cursor == null) {
        return Map.of("tools", List.of(tool("echo", true)), "nextCursor", "p2");
      }
      if ("p2".equals(cursor)) {
        return Map.of("tools", List.of(tool("add", true)), "nextCursor", "p3");
      }
      return Map.of("tools", List.of(tool("delete", false)));
    }
    List<Object> tools = new ArrayList<>();
    tools.add(tool("echo", true));
    tools.add(tool("add", true));
    if (flags.contains("strict") && "legacy".equals(mode) && !initialized) {
      return Map.of("tools", List.of(tool("not-initialized", true)));
    }
    if (flags.contains("caller-tools") && (clientName.endsWith("-b") || clientDeclaresSampling)) {
      tools.add(tool("admin", false));
    }
    return Map.of("tools", tools);
  }

  private static Map<String, Object> tool(String name, boolean readOnly) {
    Map<String, Object> t = new LinkedHashMap<>();
    t.put("name", name);
    t.put("description", "The " + name + " tool.");
    t.put("inputSchema", Map.of("type", "object"));
    t.put("annotations", Map.of("readOnlyHint", readOnly, "title", name.toUpperCase()));
    return t;
  }

  private void respond(Object id, Map<String, Object> result) throws IOException {
    if (flags.contains("wrong-ids") && id instanceof Number) {
      long n = ((Number) id).longValue();
      write(Map.of("jsonrpc", "2.0", "id", n + 1000, "result", Map.of("wrong", true)));
      write(Map.of("jsonrpc", "2.0", "id", String.valueOf(n), "result", Map.of("wrong", "string id")));
      write(Map.of("jsonrpc", "2.0", "id", n, "result", result));
      write(Map.of("jsonrpc", "2.0", "id", n, "result", Map.of("duplicate", true)));
      return;
    }
    write(Map.of("jsonrpc", "2.0", "id", id, "result", result));
  }

  private void error(Object id, int code, String message) throws IOException {
    write(Map.of("jsonrpc", "2.0", "id", id == null ? "none" : id, "error", Map.of("code", code, "message", message)));
  }

  private void write(Map<String, Object> message) throws IOException {
    out.println(MAPPER.writeValueAsString(message));
    out.flush();
  }
}
