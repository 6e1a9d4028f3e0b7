package dev.cotenant.gateway.probe;

import dev.cotenant.api.ServerDescription;
import dev.cotenant.spi.HandshakeEra;
import dev.cotenant.spi.ServerMessageHandler;
import dev.cotenant.spi.ServerSession;
import dev.cotenant.spi.SessionException;
import dev.cotenant.spi.SessionTransport;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jspecify.annotations.Nullable;

/**
 * A session transport whose servers are scripts in this JVM, for probe tests that need no
 * process: each session answers every request at once with what its {@link Script} returns, or
 * never (a hung call) when the script returns null, or with a failed answer ({@link #failing}).
 * A script may also block, as a write to a server that stopped reading does; once the session is
 * aborted meanwhile, the request fails with the abort's reason, as the write to a killed process
 * would. Each session keeps the state its script wants ({@link Scripted#state}), records what it
 * was sent, and whether it was closed or aborted. Thread-safe enough for the probe, which drives
 * each session from one thread.
 */
final class ScriptedSessions implements SessionTransport {
  /** A server: the whole response to one request, or null for none. */
  @FunctionalInterface
  interface Script {
    @Nullable Map<String, Object> answer(Scripted session, String method, Map<String, Object> params);
  }

  /** Every session opened, in order. */
  final List<Scripted> opened = new CopyOnWriteArrayList<>();
  /** For each session opened, how many earlier ones were still open then. */
  final List<Long> stillOpen = new CopyOnWriteArrayList<>();
  private final Map<String, Object> handshake;
  private final Script script;
  /** What {@link #runsCommandLocally()} says: true lets a sandbox wrap these scripted servers. */
  volatile boolean local;

  /** Servers answering the handshake with {@code handshake} and every request with {@code script}. */
  ScriptedSessions(Map<String, Object> handshake, Script script) {
    this.handshake = handshake;
    this.script = script;
  }

  /** A response carrying {@code result}. */
  static Map<String, Object> result(Map<String, Object> result) {
    return Map.of("jsonrpc", "2.0", "id", 1, "result", result);
  }

  /** A response carrying a JSON-RPC error. */
  static Map<String, Object> error(int code, String message) {
    return Map.of("jsonrpc", "2.0", "id", 1, "error", Map.of("code", code, "message", message));
  }

  /** The key under which {@link #failing} carries its cause. */
  private static final String FAILURE = "scripted failure";

  /** An answer that fails with {@code cause} instead of arriving. */
  static Map<String, Object> failing(Throwable cause) {
    return Map.of(FAILURE, cause);
  }

  /** A tool call's result holding one text item. */
  static Map<String, Object> text(String text) {
    return result(Map.of("content", List.of(Map.of("type", "text", "text", text))));
  }

  /** The {@code arguments} of a {@code tools/call}. */
  @SuppressWarnings("unchecked")
  static Map<String, Object> arguments(Map<String, Object> params) {
    return (Map<String, Object>) params.getOrDefault("arguments", Map.of());
  }

  @Override
  public boolean runsCommandLocally() {
    return local;
  }

  @Override
  public ServerSession open(ServerDescription server, String label, ServerMessageHandler handler) {
    stillOpen.add(opened.stream().filter(o -> !o.closed).count());
    Scripted s = new Scripted(opened.size(), label, server, handler);
    opened.add(s);
    return s;
  }

  /** One scripted server. */
  final class Scripted implements ServerSession {
    final int index;
    final String label;
    final ServerDescription server;
    final ServerMessageHandler handler;
    final Map<String, Object> state = new HashMap<>();
    /** Each request as {@code method} and params, in order. */
    final List<Map.Entry<String, Map<String, Object>>> requests = new CopyOnWriteArrayList<>();
    private final List<CompletableFuture<Map<String, Object>>> hung = new CopyOnWriteArrayList<>();
    volatile boolean handshaken;
    /** The client capabilities the handshake declared. */
    volatile Map<String, Object> capabilities = Map.of();
    volatile boolean closed;
    volatile @Nullable String aborted;

    Scripted(int index, String label, ServerDescription server, ServerMessageHandler handler) {
      this.index = index;
      this.label = label;
      this.server = server;
      this.handler = handler;
    }

    /** The number held under {@code key}, then one more. */
    int next(String key) {
      int n = (Integer) state.getOrDefault(key, 0) + 1;
      state.put(key, n);
      return n;
    }

    @Override
    public Map<String, Object> handshake(HandshakeEra era, Map<String, Object> clientInfo, Map<String, Object> capabilities,
        Duration timeout) {
      handshaken = true;
      this.capabilities = Map.copyOf(capabilities);
      return handshake;
    }

    @Override
    public Optional<HandshakeEra> completedHandshake() {
      return handshaken ? Optional.of(HandshakeEra.INITIALIZE) : Optional.empty();
    }

    @Override
    public CompletableFuture<Map<String, Object>> request(String method, Map<String, Object> params)
        throws SessionException {
      if (closed || aborted != null) {
        throw new SessionException(SessionException.Kind.EXITED, "the scripted server has gone");
      }
      requests.add(Map.entry(method, params));
      Map<String, Object> answer = script.answer(this, method, params);
      String abortedMeanwhile = aborted;
      if (abortedMeanwhile != null) {
        throw new SessionException(SessionException.Kind.TIMEOUT, abortedMeanwhile);
      }
      if (answer != null && answer.get(FAILURE) instanceof Throwable cause) {
        return CompletableFuture.failedFuture(cause);
      }
      if (answer == null) {
        CompletableFuture<Map<String, Object>> f = new CompletableFuture<>();
        hung.add(f);
        return f;
      }
      return CompletableFuture.completedFuture(answer);
    }

    @Override
    public boolean cancel(CompletableFuture<Map<String, Object>> answer, String reason) {
      return hung.remove(answer) && answer.cancel(false);
    }

    @Override
    public void notify(String method, Map<String, Object> params) {}

    @Override
    public OptionalLong pid() {
      return OptionalLong.empty();
    }

    @Override
    public void abort(String reason) {
      aborted = reason;
      hung.forEach(f -> f.completeExceptionally(new SessionException(SessionException.Kind.TIMEOUT, reason)));
    }

    @Override
    public void close() {
      closed = true;
      hung.forEach(f -> f.completeExceptionally(new SessionException(SessionException.Kind.EXITED, "closed")));
    }
  }
}
