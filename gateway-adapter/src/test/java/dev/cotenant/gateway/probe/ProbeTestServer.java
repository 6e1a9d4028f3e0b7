package dev.cotenant.gateway.probe;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import tools.jackson.databind.json.JsonMapper;

/**
 * A scripted MCP server over stdio for the probe's tests: {@code ProbeTestServer <mode> [arg]}.
 * Every mode lists one tool, {@code remember} ({@code target} required, {@code workspace}
 * optional), and answers {@code tools/call} of any name as its mode says.
 *
 * <ul>
 *   <li>{@code echo}: {@code tools/call} answers the JSON of its arguments as text.
 *   <li>{@code silent}: {@code tools/call} answers an empty content list.
 *   <li>{@code global}: one process-global target; {@code tools/call} stores its {@code target}
 *       and answers the target it held before.
 *   <li>{@code barrier <log>}: appends {@code arrived <call>} to the log for every call as it is
 *       read, and answers (echo, logging {@code answered <call>}) only once two calls have
 *       arrived: a client that waits for one answer before writing the second call never gets one.
 *   <li>{@code counting <k>}: every {@code tools/call} of {@code work} runs on its own thread,
 *       counts the calls in flight, and is held until more than {@code k} are in flight or 200 ms
 *       passed, so calls a client lets through overlap for long enough to be counted;
 *       {@code stats} answers {@code max=<most calls ever in flight at once>}.
 *   <li>{@code caller}: declares {@code capabilities.experimental["cotenant.caller-identity"]}
 *       with {@code metaKey "probe/caller"}, stores {@code target} under the block's
 *       {@code session} and answers the target it holds for that session; refuses a call without
 *       a block.
 *   <li>{@code modern}: 2026-07-28 only: {@code server/discover}, per-request {@code _meta}
 *       required on {@code tools/call} (answered like {@code echo}, with the request's
 *       {@code clientInfo.name}); {@code initialize} is refused.
 *   <li>{@code modern-late}: as {@code modern}, but answers {@code server/discover} only after
 *       refusing an {@code initialize} (a server that was slow to start).
 *   <li>{@code mute}: reads every request and answers none, until its standard input closes.
 * </ul>
 */
public final class ProbeTestServer {
  private static final JsonMapper MAPPER = JsonMapper.builder().build();

  private final String mode;
  private final String arg;
  private final StdoutJsonRpc rpc = new StdoutJsonRpc();
  private final Object lock = new Object();
  private String global = "";
  private final Map<String, String> bySession = new LinkedHashMap<>();
  private final List<Map<String, Object>> held = new ArrayList<>();
  private int inFlight;
  private int maxInFlight;
  private Object heldDiscover;
  private final ExecutorService pool = Executors.newCachedThreadPool(r -> {
    Thread t = new Thread(r);
    t.setDaemon(true);
    return t;
  });

  private ProbeTestServer(String mode, String arg) {
    this.mode = mode;
    this.arg = arg;
  }

  /** Entry point. */
  public static void main(String[] args) throws Exception {
    new ProbeTestServer(args[0], args.length > 1 ? args[1] : "").serve();
  }

  private void serve() throws Exception {
    StdoutJsonRpc.readStdin(this::onMessage);
    pool.shutdownNow();
  }

  private void onMessage(Object method, Object id, Map<String, Object> params) throws Exception {
    if (method == null || id == null || mode.equals("mute")) {
      return;
    }
    switch ((String) method) {
      case "initialize":
        if (modern()) {
          rpc.error(id, -32022, "this server speaks 2026-07-28 only");
          if (heldDiscover != null) {
            rpc.result(heldDiscover, discoverResult());
            heldDiscover = null;
          }
        } else {
          Map<String, Object> caps = new LinkedHashMap<>();
          caps.put("tools", Map.of());
          if (mode.equals("caller")) {
            caps.put("experimental", Map.of("cotenant.caller-identity", Map.of("metaKey", "probe/caller", "version", 1)));
          }
          rpc.result(id, Map.of("protocolVersion", "2025-06-18", "capabilities", caps,
              "serverInfo", Map.of("name", "probe-test-" + mode, "version", "1")));
        }
        break;
      case "server/discover":
        if (mode.equals("modern-late")) {
          heldDiscover = id;
        } else if (mode.equals("modern")) {
          rpc.result(id, discoverResult());
        } else {
          rpc.error(id, -32601, "Method not found");
        }
        break;
      case "tools/list":
        rpc.result(id, Map.of("tools", List.of(Map.of("name", "remember", "inputSchema", Map.of("type", "object",
            "properties", properties(),
            "required", List.of("target"))))));
        break;
      case "tools/call":
        if (mode.equals("counting")) {
          pool.execute(() -> counting(id, params));
        } else {
          call(id, params);
        }
        break;
      default:
        rpc.error(id, -32601, "Method not found");
    }
  }

  /** {@code target} then {@code workspace}, in that order. */
  private static Map<String, Object> properties() {
    Map<String, Object> p = new LinkedHashMap<>();
    p.put("target", Map.of("type", "string"));
    p.put("workspace", Map.of("type", "string"));
    return p;
  }

  private boolean modern() {
    return mode.equals("modern") || mode.equals("modern-late");
  }

  private static Map<String, Object> discoverResult() {
    return Map.of("resultType", "complete", "supportedVersions", List.of("2026-07-28"),
        "protocolVersion", "2026-07-28", "capabilities", Map.of("tools", Map.of()),
        "serverInfo", Map.of("name", "probe-test-modern", "version", "1"));
  }

  @SuppressWarnings("unchecked")
  private void call(Object id, Map<String, Object> params) throws IOException {
    Map<String, Object> arguments = params.get("arguments") instanceof Map ? (Map<String, Object>) params.get("arguments") : Map.of();
    Map<String, Object> meta = params.get("_meta") instanceof Map ? (Map<String, Object>) params.get("_meta") : Map.of();
    String target = String.valueOf(arguments.getOrDefault("target", ""));
    switch (mode) {
      case "silent":
        rpc.result(id, Map.of("content", List.of()));
        break;
      case "global": {
        String previous;
        synchronized (lock) {
          previous = global;
          global = target;
        }
        rpc.result(id, text("previous target: " + previous));
        break;
      }
      case "caller": {
        Object block = meta.get("probe/caller");
        if (!(block instanceof Map) || !(((Map<?, ?>) block).get("session") instanceof String)) {
          rpc.result(id, Map.of("content", List.of(Map.of("type", "text", "text", "no caller block under probe/caller")),
              "isError", true));
          break;
        }
        String session = (String) ((Map<?, ?>) block).get("session");
        if (!target.isEmpty()) {
          bySession.put(session, target);
        }
        rpc.result(id, text("target of " + session + ": " + bySession.getOrDefault(session, "")));
        break;
      }
      case "modern":
      case "modern-late": {
        if (!"2026-07-28".equals(meta.get("io.modelcontextprotocol/protocolVersion"))) {
          rpc.error(id, -32602, "_meta io.modelcontextprotocol/protocolVersion is required");
          break;
        }
        Object info = meta.get("io.modelcontextprotocol/clientInfo");
        Object name = info instanceof Map ? ((Map<?, ?>) info).get("name") : "";
        rpc.result(id, text(name + " " + MAPPER.writeValueAsString(arguments)));
        break;
      }
      case "barrier": {
        Path log = Path.of(arg);
        String call = String.valueOf(arguments.getOrDefault("text", ""));
        append(log, "arrived " + call);
        held.add(Map.of("id", id, "call", call, "arguments", arguments));
        if (held.size() == 2) {
          for (Map<String, Object> h : held) {
            append(log, "answered " + h.get("call"));
            rpc.result(h.get("id"), text(MAPPER.writeValueAsString(h.get("arguments"))));
          }
          held.clear();
        }
        break;
      }
      default:
        rpc.result(id, text(MAPPER.writeValueAsString(arguments)));
    }
  }

  private void counting(Object id, Map<String, Object> params) {
    if ("stats".equals(params.get("name"))) {
      synchronized (lock) {
        rpc.result(id, text("max=" + maxInFlight));
      }
      return;
    }
    int k = Integer.parseInt(arg);
    synchronized (lock) {
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      lock.notifyAll();
      long until = System.nanoTime() + 200_000_000L;
      while (inFlight <= k && System.nanoTime() < until) {
        try {
          lock.wait(Math.max(1, (until - System.nanoTime()) / 1_000_000));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          break;
        }
      }
    }
    synchronized (lock) {
      inFlight--;
    }
    rpc.result(id, text("ok"));
  }

  private static Map<String, Object> text(String t) {
    return Map.of("content", List.of(Map.of("type", "text", "text", t)));
  }

  private static void append(Path log, String line) throws IOException {
    Files.writeString(log, line + "\n", StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
  }



}
