package dev.cotenant.benchmarks;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * One MCP client session over stdio as a real client holds it: it sends its own {@code initialize}
 * (protocol version, capabilities, client information), answers what the server asks of it as that
 * client would ({@code roots/list} with its workspace when it declared {@code roots};
 * {@code sampling/createMessage} declined and {@code elicitation/create} answered {@code decline}, as
 * a user who says no; {@code ping}; anything else "method not found"), and matches answers by id.
 * The process is a server started directly or a {@code cotenant connect} shim: the client cannot
 * tell them apart. A thread reads the process's output; requests are made one at a time.
 */
final class ClientPeer implements AutoCloseable, ClosingPeer {
  /** What a client is: how it opens a session. */
  record Kind(String label, String name, String version, String protocolVersion, Map<String, Object> capabilities) {
    /** The {@code initialize} params it sends. */
    Map<String, Object> initializeParams() {
      Map<String, Object> p = new LinkedHashMap<>();
      p.put("protocolVersion", protocolVersion);
      p.put("capabilities", capabilities);
      p.put("clientInfo", Map.of("name", name, "version", version));
      return p;
    }
  }

  final String label;
  final Kind kind;
  final Process process;
  private final OutputStream in;
  private final Path workspace;
  private final BlockingQueue<Map<String, Object>> answers = new LinkedBlockingQueue<>();
  private final Thread reader;
  private long nextId;

  private ClientPeer(String label, Kind kind, Process process, Path workspace) {
    this.label = label;
    this.kind = kind;
    this.process = process;
    this.in = process.getOutputStream();
    this.workspace = workspace;
    this.reader = new Thread(this::read, "client-peer-" + label);
    this.reader.setDaemon(true);
    this.reader.start();
  }

  /** Starts {@code command} in {@code cwd} with this JVM's environment changed by {@code env} (null removes). */
  static ClientPeer start(String label, Kind kind, List<String> command, Path cwd, Map<String, String> env,
      Path workspace, ProcessBuilder.Redirect stderr) throws IOException {
    return new ClientPeer(label, kind, ProcStats.killOnExit(StdioPeer.builder(command, cwd, env, stderr).start()),
        workspace);
  }

  @Override
  public String label() {
    return label;
  }

  @Override
  public long pid() {
    return process.pid();
  }

  private void read() {
    try (BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8),
        64 * 1024)) {
      String line;
      while ((line = out.readLine()) != null) {
        Map<String, Object> m;
        try {
          @SuppressWarnings("unchecked")
          Map<String, Object> parsed = DaemonProcess.JSON.readValue(line, Map.class);
          m = parsed;
        } catch (RuntimeException e) {
          continue;
        }
        Object method = m.get("method");
        if (method == null) {
          answers.add(m);
        } else if (m.containsKey("id")) {
          answerServer(m.get("id"), String.valueOf(method));
        }
      }
    } catch (IOException e) {
      // The process ended.
    }
  }

  /** What this client answers a request of its server. */
  private void answerServer(Object id, String method) {
    Map<String, Object> reply = new LinkedHashMap<>();
    reply.put("jsonrpc", "2.0");
    reply.put("id", id);
    switch (method) {
      case "ping":
        reply.put("result", Map.of());
        break;
      case "roots/list":
        if (kind.capabilities().containsKey("roots")) {
          reply.put("result", Map.of("roots", List.of(Map.of("uri", workspace.toUri().toString(),
              "name", workspace.getFileName().toString()))));
        } else {
          reply.put("error", Map.of("code", -32601, "message", "Method not found"));
        }
        break;
      case "elicitation/create":
        reply.put("result", Map.of("action", "decline"));
        break;
      case "sampling/createMessage":
        reply.put("error", Map.of("code", -1, "message", "the user declined"));
        break;
      default:
        reply.put("error", Map.of("code", -32601, "message", "Method not found"));
    }
    try {
      send(reply);
    } catch (IOException e) {
      // The process ended.
    }
  }

  private synchronized void send(Map<String, Object> message) throws IOException {
    in.write(DaemonProcess.JSON.writeValueAsBytes(message));
    in.write('\n');
    in.flush();
  }

  /** Sends request {@code method} and waits up to {@code bound} for its answer (the whole response object). */
  Map<String, Object> request(String method, Map<String, Object> params, Duration bound)
      throws IOException, InterruptedException {
    long id = ++nextId;
    Map<String, Object> r = new LinkedHashMap<>();
    r.put("jsonrpc", "2.0");
    r.put("id", id);
    r.put("method", method);
    r.put("params", params);
    send(r);
    long deadline = System.nanoTime() + bound.toNanos();
    while (true) {
      long left = deadline - System.nanoTime();
      Map<String, Object> a = left <= 0 ? null : answers.poll(left, TimeUnit.NANOSECONDS);
      if (a == null) {
        ProcStats.killTree(process.pid());
        throw new IOException(label + " did not answer " + method + " within " + bound.toMillis() + " ms");
      }
      if (a.get("id") instanceof Number n && n.longValue() == id) {
        return a;
      }
    }
  }

  /** Sends a notification. */
  void notify(String method) throws IOException {
    send(Map.of("jsonrpc", "2.0", "method", method));
  }

  /** The client's handshake: its {@code initialize}, then {@code notifications/initialized}; returns the result. */
  @SuppressWarnings("unchecked")
  Map<String, Object> initialize(Duration bound) throws IOException, InterruptedException {
    Map<String, Object> a = request("initialize", kind.initializeParams(), bound);
    if (!(a.get("result") instanceof Map<?, ?> result)) {
      throw new IOException(label + " refused initialize: " + a);
    }
    notify("notifications/initialized");
    return (Map<String, Object>) result;
  }

  /** Closes the input and waits up to {@code bound} for the process to exit; kills its tree when it does not. */
  @Override
  public boolean closeAndAwait(Duration bound) throws InterruptedException {
    try {
      in.close();
    } catch (IOException e) {
      // Gone already.
    }
    boolean exited = process.waitFor(bound.toMillis(), TimeUnit.MILLISECONDS);
    if (!exited) {
      ProcStats.killTree(process.pid());
      process.waitFor(5, TimeUnit.SECONDS);
    }
    reader.join(5_000);
    return exited;
  }

  @Override
  public void close() throws InterruptedException {
    closeAndAwait(Duration.ofSeconds(10));
  }
}
