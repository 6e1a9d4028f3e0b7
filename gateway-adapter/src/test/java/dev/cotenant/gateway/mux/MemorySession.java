package dev.cotenant.gateway.mux;

import dev.cotenant.spi.HandshakeEra;
import dev.cotenant.spi.ServerMessageHandler;
import dev.cotenant.spi.ServerSession;
import dev.cotenant.spi.SessionException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.stream.Collectors;

/**
 * A backend session in memory: it records what is written to it and answers only when a test
 * says so, so that every interleaving a race needs can be forced. Ids are its own, counting from
 * 1000. Thread-safe.
 */
final class MemorySession implements ServerSession {
  /** One request written to the backend. */
  record Sent(long id, String method, Map<String, Object> params, CompletableFuture<Map<String, Object>> answer) {
    /** Answers it with {@code result}. */
    void result(Map<String, Object> result) {
      answer.complete(Map.of("jsonrpc", "2.0", "id", id, "result", result));
    }

    /** Answers it with an error. */
    void error(int code, String message) {
      answer.complete(Map.of("jsonrpc", "2.0", "id", id, "error", Map.of("code", code, "message", message)));
    }

    @SuppressWarnings("unchecked")
    Map<String, Object> meta() {
      return (Map<String, Object>) params.getOrDefault("_meta", Map.of());
    }
  }

  /** One cancellation written to the backend. */
  record Cancel(CompletableFuture<Map<String, Object>> answer, String reason) {}

  /** One notification written to the backend. */
  record Notice(String method, Map<String, Object> params) {}

  final List<Sent> requests = new CopyOnWriteArrayList<>();
  final List<Cancel> cancels = new CopyOnWriteArrayList<>();
  final List<Notice> notifications = new CopyOnWriteArrayList<>();
  private final HandshakeEra era;
  private final AtomicLong ids = new AtomicLong(999);
  /** Runs inside {@link #request} after the request is recorded, before it returns. */
  volatile Consumer<Sent> whileWriting = s -> {};
  /** When set, {@link #cancel} records but leaves the answer to come (a late answer). */
  volatile boolean lateAnswers;
  /** When set, writes fail as if the process had gone. */
  volatile boolean gone;
  volatile boolean closed;

  MemorySession(HandshakeEra era) {
    this.era = era;
  }

  @Override
  public Map<String, Object> handshake(HandshakeEra era, Map<String, Object> clientInfo, Map<String, Object> capabilities,
      Duration timeout) {
    throw new UnsupportedOperationException("bound with a handshake answer");
  }

  @Override
  public Optional<HandshakeEra> completedHandshake() {
    return Optional.of(era);
  }

  @Override
  public CompletableFuture<Map<String, Object>> request(String method, Map<String, Object> params) throws SessionException {
    if (gone) {
      throw new SessionException(SessionException.Kind.EXITED, "exited 3 before answering " + method);
    }
    Sent s = new Sent(ids.incrementAndGet(), method, params, new CompletableFuture<>());
    requests.add(s);
    whileWriting.accept(s);
    return s.answer();
  }

  @Override
  public boolean cancel(CompletableFuture<Map<String, Object>> answer, String reason) throws SessionException {
    if (gone) {
      throw new SessionException(SessionException.Kind.EXITED, "exited 3");
    }
    if (answer.isDone()) {
      return false;
    }
    cancels.add(new Cancel(answer, reason));
    if (!lateAnswers) {
      answer.cancel(false);
    }
    return true;
  }

  @Override
  public void notify(String method, Map<String, Object> params) throws SessionException {
    if (gone) {
      throw new SessionException(SessionException.Kind.EXITED, "exited 3");
    }
    notifications.add(new Notice(method, params));
  }

  @Override
  public OptionalLong pid() {
    return OptionalLong.empty();
  }

  @Override
  public void abort(String reason) {
    gone = true;
  }

  @Override
  public void close() {
    closed = true;
  }

  /** The requests of {@code method}, in order. */
  List<Sent> sent(String method) {
    return requests.stream().filter(s -> s.method().equals(method)).collect(Collectors.toList());
  }

  /** The only request of {@code method}. */
  Sent only(String method) {
    List<Sent> s = sent(method);
    if (s.size() != 1) {
      throw new AssertionError("expected one " + method + ", the backend got " + s.size() + ": " + requests);
    }
    return s.get(0);
  }

  /** The request of {@code method} whose {@code arguments.marker} is {@code marker}. */
  Sent withMarker(String method, String marker) {
    return sent(method).stream()
        .filter(s -> marker.equals(((Map<?, ?>) s.params().getOrDefault("arguments", Map.of())).get("marker")))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no " + method + " with marker " + marker + " in " + requests));
  }

  /** Sends a notification from the backend through {@code handler}. */
  static void notifyFrom(ServerMessageHandler handler, String method, Map<String, Object> params) {
    handler.onNotification(method, params);
  }
}
