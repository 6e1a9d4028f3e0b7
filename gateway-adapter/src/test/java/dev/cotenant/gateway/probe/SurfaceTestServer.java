package dev.cotenant.gateway.probe;

import java.time.LocalTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A scripted MCP server over stdio for the whole-surface probe's tests:
 * {@code SurfaceTestServer <scenario>}. Every scenario lists the tool {@code echo} ({@code text}
 * required; answers {@code echo: <text>}) and the tools named below.
 *
 * <ul>
 *   <li>{@code plain}: {@code add} ({@code a}, {@code b} numbers; answers the sum). Stateless.
 *   <li>{@code counter}: {@code next} (no arguments) answers {@code calls=N}, N process-global.
 *   <li>{@code secret}: {@code next} answers {@code token=<$API_TOKEN> calls=N}, N process-global.
 *   <li>{@code clock}: {@code now} answers {@code <HH:mm:ss.SSS> id=<random uuid>}. Stateless.
 *   <li>{@code clock-counter}: {@code tick} answers {@code <HH:mm:ss> calls=N}.
 *   <li>{@code remember}: {@code remember} ({@code target}) answers the target held before.
 *   <li>{@code log}: {@code echo} sends {@code notifications/message} before answering.
 *   <li>{@code progress}: {@code echo} sends {@code notifications/progress} with the request's
 *       own progress token, and {@code notifications/tools/list_changed}, before answering.
 *   <li>{@code ask}: {@code echo} sends a {@code sampling/createMessage} request (and a
 *       {@code ping}) to the client before answering.
 *   <li>{@code destructive}: {@code wipe} ({@code workspace}) annotated {@code destructiveHint: true}.
 *   <li>{@code stall}: {@code stall} (no arguments) never answers.
 *   <li>{@code failing}: {@code fails} answers {@code isError}.
 *   <li>{@code pattern}: {@code code} with a required string {@code pattern: ^[0-9]{6}$}.
 *   <li>{@code resources}: advertises resources; {@code make} ({@code name}) adds a process-global
 *       resource {@code mem://<name>}, listed by {@code resources/list} and readable.
 *   <li>{@code paged}: advertises resources; {@code resources/list} answers one resource per
 *       page over three pages.
 * </ul>
 */
public final class SurfaceTestServer {
  private static final DateTimeFormatter MILLIS = DateTimeFormatter.ofPattern("HH:mm:ss.SSS");
  private static final DateTimeFormatter SECONDS = DateTimeFormatter.ofPattern("HH:mm:ss");

  private final String scenario;
  private final StdoutJsonRpc rpc = new StdoutJsonRpc();
  private final AtomicInteger calls = new AtomicInteger();
  private final Map<String, String> resources = new ConcurrentHashMap<>();
  private final Map<String, Object> pendingCalls = new ConcurrentHashMap<>();
  private String target = "";

  private SurfaceTestServer(String scenario) {
    this.scenario = scenario;
  }

  /** Entry point. */
  public static void main(String[] args) throws Exception {
    new SurfaceTestServer(args[0]).serve();
  }

  private void serve() throws Exception {
    StdoutJsonRpc.readStdin(this::onMessage);
  }

  private void onMessage(Object method, Object id, Map<String, Object> params) throws Exception {
    if (method == null) {
      // The client's answer to our request: the held tool call may answer now.
      Object held = pendingCalls.remove(String.valueOf(id));
      if (held != null) {
        rpc.result(held, text("echo: answered after asking"));
      }
      return;
    }
    if (id == null) {
      return;
    }
    switch ((String) method) {
      case "initialize": {
        Map<String, Object> caps = new LinkedHashMap<>();
        caps.put("tools", Map.of());
        if (scenario.equals("resources") || scenario.equals("paged")) {
          caps.put("resources", Map.of());
        }
        rpc.result(id, Map.of("protocolVersion", "2025-06-18", "capabilities", caps,
            "serverInfo", Map.of("name", "surface-test-" + scenario, "version", "1")));
        break;
      }
      case "tools/list":
        rpc.result(id, Map.of("tools", tools()));
        break;
      case "tools/call":
        call(id, params);
        break;
      case "resources/list":
        resourcesList(id, params);
        break;
      case "resources/templates/list":
        rpc.result(id, Map.of("resourceTemplates", List.of()));
        break;
      case "resources/read": {
        String uri = String.valueOf(params.get("uri"));
        String content = resources.get(uri);
        if (content == null) {
          rpc.error(id, -32002, "Resource not found");
        } else {
          rpc.result(id, Map.of("contents", List.of(Map.of("uri", uri, "text", content))));
        }
        break;
      }
      default:
        rpc.error(id, -32601, "Method not found");
    }
  }

  private List<Object> tools() {
    List<Object> tools = new ArrayList<>();
    tools.add(tool("echo", Map.of("text", Map.of("type", "string")), List.of("text"), null));
    switch (scenario) {
      case "plain":
        tools.add(tool("add", Map.of("a", Map.of("type", "number"), "b", Map.of("type", "number")), List.of("a", "b"), null));
        break;
      case "counter":
      case "secret":
        tools.add(tool("next", Map.of(), List.of(), null));
        break;
      case "clock":
        tools.add(tool("now", Map.of(), List.of(), null));
        break;
      case "clock-counter":
        tools.add(tool("tick", Map.of(), List.of(), null));
        break;
      case "remember":
        tools.add(tool("remember", Map.of("target", Map.of("type", "string")), List.of("target"), null));
        break;
      case "destructive":
        tools.add(tool("wipe", Map.of("workspace", Map.of("type", "string")), List.of("workspace"),
            Map.of("destructiveHint", true, "readOnlyHint", false)));
        break;
      case "stall":
        tools.add(tool("stall", Map.of(), List.of(), null));
        break;
      case "failing":
        tools.add(tool("fails", Map.of(), List.of(), null));
        break;
      case "pattern":
        tools.add(tool("code", Map.of("code", Map.of("type", "string", "pattern", "^[0-9]{6}$")), List.of("code"), null));
        break;
      case "resources":
        tools.add(tool("make", Map.of("name", Map.of("type", "string")), List.of("name"), null));
        break;
      default:
        break;
    }
    return tools;
  }

  private static Map<String, Object> tool(String name, Map<String, Object> properties, List<String> required,
      Map<String, Object> annotations) {
    Map<String, Object> t = new LinkedHashMap<>();
    t.put("name", name);
    t.put("inputSchema", Map.of("type", "object", "properties", new java.util.TreeMap<>(properties), "required", required));
    if (annotations != null) {
      t.put("annotations", annotations);
    }
    return t;
  }

  @SuppressWarnings("unchecked")
  private void call(Object id, Map<String, Object> params) throws Exception {
    Map<String, Object> args = params.get("arguments") instanceof Map ? (Map<String, Object>) params.get("arguments") : Map.of();
    Map<String, Object> meta = params.get("_meta") instanceof Map ? (Map<String, Object>) params.get("_meta") : Map.of();
    String name = String.valueOf(params.get("name"));
    switch (name) {
      case "echo":
        if (scenario.equals("log")) {
          rpc.notify("notifications/message", Map.of("level", "info", "data", "echoing " + args.get("text")));
        } else if (scenario.equals("progress")) {
          rpc.notify("notifications/progress", Map.of("progressToken", meta.getOrDefault("progressToken", "none"), "progress", 1));
          rpc.notify("notifications/tools/list_changed", Map.of());
        } else if (scenario.equals("ask")) {
          String ask = "ask-" + calls.incrementAndGet();
          pendingCalls.put(ask, id);
          rpc.write(Map.of("jsonrpc", "2.0", "id", "ping-" + ask, "method", "ping"));
          rpc.write(Map.of("jsonrpc", "2.0", "id", ask, "method", "sampling/createMessage",
              "params", Map.of("messages", List.of(), "maxTokens", 1)));
          return;
        }
        rpc.result(id, text("echo: " + args.get("text")));
        break;
      case "add":
        rpc.result(id, text(String.valueOf(((Number) args.get("a")).doubleValue() + ((Number) args.get("b")).doubleValue())));
        break;
      case "next":
        rpc.result(id, text((scenario.equals("secret") ? "token=" + System.getenv("API_TOKEN") + " " : "")
            + "calls=" + calls.incrementAndGet()));
        break;
      case "now":
        rpc.result(id, text(LocalTime.now().format(MILLIS) + " id=" + UUID.randomUUID()));
        break;
      case "tick":
        rpc.result(id, text(LocalTime.now().format(SECONDS) + " calls=" + calls.incrementAndGet()));
        break;
      case "remember": {
        String previous;
        synchronized (this) {
          previous = target;
          target = String.valueOf(args.get("target"));
        }
        rpc.result(id, text("previous target: " + previous));
        break;
      }
      case "wipe":
        rpc.result(id, text("wiped 0 files in " + args.get("workspace")));
        break;
      case "stall":
        break;
      case "fails":
        rpc.result(id, Map.of("content", List.of(Map.of("type", "text", "text", "this tool needs a credential")), "isError", true));
        break;
      case "code":
        rpc.result(id, text("code " + args.get("code")));
        break;
      case "make": {
        String uri = "mem://" + args.get("name");
        resources.put(uri, "made by a caller");
        rpc.result(id, text("made " + uri));
        break;
      }
      default:
        rpc.error(id, -32602, "Unknown tool " + name);
    }
  }

  private void resourcesList(Object id, Map<String, Object> params) {
    if (scenario.equals("paged")) {
      int page = params.get("cursor") == null ? 0 : Integer.parseInt(String.valueOf(params.get("cursor")));
      Map<String, Object> r = new LinkedHashMap<>();
      r.put("resources", List.of(Map.of("uri", "static://" + page, "name", "page " + page)));
      if (page < 2) {
        r.put("nextCursor", String.valueOf(page + 1));
      }
      rpc.result(id, r);
      return;
    }
    List<Object> list = new ArrayList<>();
    resources.keySet().stream().sorted().forEach(uri -> list.add(Map.of("uri", uri, "name", uri)));
    rpc.result(id, Map.of("resources", list));
  }

  private static Map<String, Object> text(String t) {
    return Map.of("content", List.of(Map.of("type", "text", "text", t)));
  }




}
