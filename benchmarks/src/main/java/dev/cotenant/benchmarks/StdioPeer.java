package dev.cotenant.benchmarks;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A process spoken to as an MCP client speaks to a stdio server: newline-delimited JSON-RPC on
 * its standard input and output. The peer is either a server started directly or a
 * {@code cotenant connect} shim; the harness cannot tell them apart, which is the point.
 *
 * <p>Answers are matched by their top-level {@code id} (read with {@link EchoServer#members}). A
 * request from the peer ({@code ping} or anything else) is answered on the spot, {@code ping}
 * with an empty result and everything else with "method not found", as a client without
 * capabilities would; notifications are skipped. Not thread-safe: one caller at a time.
 */
final class StdioPeer implements AutoCloseable, ClosingPeer {
  private static final ScheduledExecutorService TIMER = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread t = new Thread(r, "stdio-peer-timer");
    t.setDaemon(true);
    return t;
  });

  /**
   * The protocol version a client asks for in {@code initialize} unless told otherwise: the
   * newest of the initialize era, which the daemon also asks its backends for. A client may share
   * a backend only when it asks for the version that backend negotiated.
   */
  static final String PROTOCOL_VERSION = "2025-11-25";
  /** The stateless era a server without {@code initialize} speaks ({@code server/discover}). */
  static final String STATELESS_VERSION = "2026-07-28";

  final String label;
  final Process process;
  /** {@link System#nanoTime()} just before the process was started. */
  final long startedNanos;
  private final OutputStream in;
  private final BufferedReader out;
  private long nextId;

  private StdioPeer(String label, Process process, long startedNanos) {
    this.label = label;
    this.startedNanos = startedNanos;
    this.process = process;
    this.in = process.getOutputStream();
    this.out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8), 64 * 1024);
  }

  /**
   * Starts {@code command} in {@code cwd} with this JVM's environment changed by {@code env} (a
   * null value removes a variable); its standard error goes to {@code stderr}.
   */
  static StdioPeer start(String label, List<String> command, Path cwd, Map<String, String> env,
      ProcessBuilder.Redirect stderr) throws IOException {
    ProcessBuilder pb = builder(command, cwd, env, stderr);
    long t0 = System.nanoTime();
    return new StdioPeer(label, ProcStats.killOnExit(pb.start()), t0);
  }

  /**
   * A builder for {@code command} in {@code cwd}, with this JVM's environment changed by {@code env}
   * (a null value removes a variable) and standard error to {@code stderr}.
   */
  static ProcessBuilder builder(List<String> command, Path cwd, Map<String, String> env, ProcessBuilder.Redirect stderr) {
    ProcessBuilder pb = new ProcessBuilder(command).directory(cwd.toFile()).redirectError(stderr);
    env.forEach((k, v) -> {
      if (v == null) {
        pb.environment().remove(k);
      } else {
        pb.environment().put(k, v);
      }
    });
    return pb;
  }

  @Override
  public String label() {
    return label;
  }

  @Override
  public long pid() {
    return process.pid();
  }

  /** The next request id. */
  long nextId() {
    return ++nextId;
  }

  /** Writes one message. */
  void send(String json) throws IOException {
    in.write(json.getBytes(StandardCharsets.UTF_8));
    in.write('\n');
    in.flush();
  }

  /**
   * Reads until the answer to request {@code id} and returns its line; no time bound (the hot
   * path of a benchmark; use {@link #request} elsewhere).
   */
  String answer(long id) throws IOException {
    String want = Long.toString(id);
    while (true) {
      String line = out.readLine();
      if (line == null) {
        throw new IOException(label + " (pid " + process.pid() + ") closed its output before answering request " + id
            + (process.isAlive() ? "" : "; it exited with " + exitValue()));
      }
      Map<String, String> m = EchoServer.members(line);
      if (m == null) {
        continue;
      }
      String method = m.get("method");
      String mid = m.get("id");
      if (method == null) {
        if (want.equals(mid)) {
          return line;
        }
      } else if (mid != null) {
        String head = "{\"jsonrpc\":\"2.0\",\"id\":" + mid + ",";
        send("\"ping\"".equals(method) ? head + "\"result\":{}}"
            : head + "\"error\":{\"code\":-32601,\"message\":\"Method not found\"}}");
      }
    }
  }

  private String exitValue() {
    try {
      return Integer.toString(process.exitValue());
    } catch (IllegalThreadStateException e) {
      return "?";
    }
  }

  /**
   * Sends request {@code method} with {@code paramsJson} and waits up to {@code bound} for its
   * answer; when the bound passes, the peer's process tree is killed and this fails.
   */
  String request(String method, String paramsJson, Duration bound) throws IOException {
    long id = nextId();
    AtomicBoolean timedOut = new AtomicBoolean();
    ScheduledFuture<?> guard = TIMER.schedule(() -> {
      timedOut.set(true);
      ProcStats.killTree(process.pid());
    }, bound.toMillis(), TimeUnit.MILLISECONDS);
    try {
      send("{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"" + method + "\",\"params\":" + paramsJson + "}");
      return answer(id);
    } catch (IOException e) {
      if (timedOut.get()) {
        throw new IOException(label + " did not answer " + method + " within " + bound.toMillis() + " ms", e);
      }
      throw e;
    } finally {
      guard.cancel(false);
    }
  }

  /**
   * The client's side of the handshake: {@code initialize} then {@code notifications/initialized};
   * a server that refuses {@code initialize} with an error (a server of the stateless era) gets
   * {@code server/discover} instead. Returns the handshake that was answered, {@code initialize}
   * or {@code server/discover}.
   */
  String initialize(String clientName, String protocolVersion, Duration bound) throws IOException {
    String answer = request("initialize", "{\"protocolVersion\":\"" + protocolVersion + "\",\"capabilities\":{},"
        + "\"clientInfo\":{\"name\":\"" + clientName + "\",\"version\":\"1.0.0\"}}", bound);
    Map<String, String> m = EchoServer.members(answer);
    if (m != null && m.containsKey("result")) {
      send("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
      return "initialize";
    }
    String discover = request("server/discover", "{\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\""
        + STATELESS_VERSION + "\",\"io.modelcontextprotocol/clientCapabilities\":{},"
        + "\"io.modelcontextprotocol/clientInfo\":{\"name\":\"" + clientName + "\",\"version\":\"1.0.0\"}}}", bound);
    Map<String, String> d = EchoServer.members(discover);
    if (d == null || !d.containsKey("result")) {
      throw new IOException(label + " refused initialize (" + answer + ") and server/discover (" + discover + ")");
    }
    return "server/discover";
  }

  /** Closes the peer's standard input, as a client does when it is done. */
  void closeInput() {
    try {
      in.close();
    } catch (IOException e) {
      // Gone already.
    }
  }

  /**
   * Closes the input and waits up to {@code bound} for the process to exit; kills its tree when it
   * does not. Returns true when it exited by itself.
   */
  @Override
  public boolean closeAndAwait(Duration bound) throws InterruptedException {
    closeInput();
    boolean exited = process.waitFor(bound.toMillis(), TimeUnit.MILLISECONDS);
    if (!exited) {
      ProcStats.killTree(process.pid());
      process.waitFor(5, TimeUnit.SECONDS);
    }
    try {
      out.close();
    } catch (IOException e) {
      // Nothing to do.
    }
    return exited;
  }

  /**
   * {@link #closeAndAwait} on each of {@code peers} in turn, failing at the first that does not
   * exit with status 0 within {@code bound}.
   */
  static void closeAllExpectingZero(List<StdioPeer> peers, Duration bound) throws InterruptedException {
    for (StdioPeer p : peers) {
      if (!p.closeAndAwait(bound) || p.process.exitValue() != 0) {
        throw new IllegalStateException(p.label + " did not exit 0 when its input closed");
      }
    }
  }

  /** {@link #closeAndAwait} on each of {@code peers}, whether or not it exits by itself. */
  static void closeAll(List<StdioPeer> peers, Duration bound) throws InterruptedException {
    for (StdioPeer p : peers) {
      p.closeAndAwait(bound);
    }
  }

  @Override
  public void close() throws InterruptedException {
    closeAndAwait(Duration.ofSeconds(10));
  }
}
