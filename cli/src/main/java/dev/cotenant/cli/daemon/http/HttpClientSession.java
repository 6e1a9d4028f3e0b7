package dev.cotenant.cli.daemon.http;

import dev.cotenant.api.LogSafe;
import dev.cotenant.gateway.mux.ClientSink;
import dev.cotenant.gateway.sharing.ClientSession;
import dev.cotenant.spi.rpc.Envelope;
import dev.cotenant.spi.rpc.ErrorCode;
import dev.cotenant.spi.rpc.RequestId;
import dev.cotenant.spi.rpc.RpcMessage;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP adapter of one client session: its {@link ClientSession} to the sharing runtime, and where
 * each message the backend sends it goes.
 *
 * <ol>
 *   <li>An answer goes to the POST stream awaiting its id.
 *   <li>{@code notifications/progress} goes to the POST stream of the request that gave its
 *       progress token, while that request is in flight.
 *   <li>Any other message goes to the stream of the most recent request in flight, else to the
 *       standalone GET stream, else into a queue of at most {@value #QUEUE_LIMIT} messages (the
 *       oldest dropped, with a warning), delivered when a GET stream opens.
 * </ol>
 *
 * <p>Thread-safe: the backend's messages arrive on any thread; routing decisions and the queue
 * are kept under one lock, and writes to streams never block.
 */
final class HttpClientSession implements ClientSink {
  private static final Logger LOG = LoggerFactory.getLogger(HttpClientSession.class);

  /** The most messages kept for a session with no stream to carry them. */
  static final int QUEUE_LIMIT = 1000;

  private final String id;
  private final String serverName;
  private final Object lock = new Object();
  /** Each request in flight to its pending POST, in the order the requests came. */
  private final LinkedHashMap<RequestId, Pending> awaiting = new LinkedHashMap<>();
  /** Each progress token (read with the ids' equality rule) to the request that gave it. */
  private final Map<RequestId, RequestId> progress = new HashMap<>();
  private final ArrayDeque<String> queue = new ArrayDeque<>();
  private @Nullable EventStream standalone;
  private @Nullable ClientSession connection;
  private boolean closed;
  private volatile long lastActive = System.nanoTime();

  /** A request in flight: the stream awaiting its answer, and what to do with the answer first. */
  private record Pending(RequestId requestId, EventStream stream, @Nullable RequestId progressKey,
      Consumer<RpcMessage.Response> onAnswer) {}

  HttpClientSession(String id, String serverName) {
    this.id = id;
    this.serverName = serverName;
  }

  String id() {
    return id;
  }

  String serverName() {
    return serverName;
  }

  /** Sets the connection once {@code Sharing#connect} returned it. */
  void attach(ClientSession c) {
    synchronized (lock) {
      connection = c;
    }
  }

  /** The session's connection. */
  ClientSession connection() {
    synchronized (lock) {
      return Objects.requireNonNull(connection, "not connected");
    }
  }

  /** What {@link #await} decided. */
  enum Await {
    AWAITING,
    DUPLICATE_ID,
    CLOSED
  }

  /**
   * Registers {@code stream} as the one awaiting the answer to {@code request}, before the request
   * is handed to the connection (which may answer it on this very thread).
   *
   * @param onAnswer runs with the answer just before it is written
   */
  Await await(RpcMessage.Request request, EventStream stream, Consumer<RpcMessage.Response> onAnswer) {
    RequestId key = request.id();
    RequestId progressKey = RequestId.parse(meta(request.params()).get("progressToken"));
    synchronized (lock) {
      lastActive = System.nanoTime();
      if (closed) {
        return Await.CLOSED;
      }
      if (awaiting.containsKey(key)) {
        return Await.DUPLICATE_ID;
      }
      awaiting.put(key, new Pending(key, stream, progressKey, onAnswer));
      if (progressKey != null) {
        progress.put(progressKey, key);
      }
      return Await.AWAITING;
    }
  }

  /** Forgets a request whose stream will not carry its answer (the client went away, the hand-over failed). */
  void forget(RequestId requestId, EventStream stream) {
    synchronized (lock) {
      Pending p = awaiting.get(requestId);
      if (p != null && p.stream() == stream) {
        awaiting.remove(requestId);
        if (p.progressKey() != null) {
          progress.remove(p.progressKey());
        }
      }
    }
  }

  /**
   * Opens the standalone stream, made by {@code streams}, and hands it what was queued; false
   * (and nothing made) when one is open already or the session is closed.
   */
  boolean openStandalone(Supplier<EventStream> streams) {
    synchronized (lock) {
      lastActive = System.nanoTime();
      if (closed || (standalone != null && standalone.isOpen())) {
        return false;
      }
      EventStream s = streams.get();
      standalone = s;
      s.open();
      while (!queue.isEmpty()) {
        s.send(queue.poll());
      }
      return true;
    }
  }

  /** Called when a stream has ended or failed. */
  void streamGone(EventStream stream) {
    synchronized (lock) {
      lastActive = System.nanoTime();
      if (standalone == stream) {
        standalone = null;
      }
      awaiting.values().removeIf(p -> p.stream() == stream && forgetProgress(p));
    }
  }

  private boolean forgetProgress(Pending p) {
    if (p.progressKey() != null) {
      progress.remove(p.progressKey());
    }
    return true;
  }

  /** Routes one message from the backend. */
  @Override
  public void send(Map<String, Object> message) {
    String json;
    try {
      json = JsonRpc.encode(message);
    } catch (RuntimeException e) {
      LOG.warn("session {} of {}: a message from the backend could not be written as JSON and was dropped: {}",
          id, LogSafe.escape(serverName), LogSafe.escape(String.valueOf(e.getMessage()), 200));
      return;
    }
    RpcMessage read;
    try {
      read = RpcMessage.read(message);
    } catch (RpcMessage.InvalidMessage e) {
      // Not for this adapter to judge: it goes where a message outside any answer goes.
      LOG.debug("session {} of {}: a message from the backend is not JSON-RPC ({}); passed on", id,
          LogSafe.escape(serverName), LogSafe.escape(String.valueOf(e.getMessage()), 100));
      read = null;
    }
    if (read instanceof RpcMessage.Response answer) {
      Pending p;
      synchronized (lock) {
        p = answer.id() == null ? null : awaiting.remove(answer.id());
        if (p != null && p.progressKey() != null) {
          progress.remove(p.progressKey());
        }
      }
      if (p == null) {
        LOG.debug("session {} of {}: an answer to id {} has no request awaiting it; dropped", id,
            LogSafe.escape(serverName), LogSafe.escape(String.valueOf(answer.id()), 60));
        return;
      }
      try {
        p.onAnswer().accept(answer);
      } finally {
        p.stream().finish(json);
      }
      return;
    }
    synchronized (lock) {
      if (route(read).map(s -> s.send(json)).orElse(false)) {
        return;
      }
      if (standalone != null && standalone.send(json)) {
        return;
      }
      if (closed) {
        return;
      }
      if (queue.size() >= QUEUE_LIMIT) {
        queue.poll();
        LOG.warn("session {} of {}: {} messages wait for a GET stream to carry them; the oldest was dropped", id,
            LogSafe.escape(serverName), QUEUE_LIMIT);
      }
      queue.add(json);
    }
  }

  /** The POST stream a request-scoped message goes to, if any (under the lock). */
  private java.util.Optional<EventStream> route(@Nullable RpcMessage message) {
    if (message instanceof RpcMessage.Notification n && "notifications/progress".equals(n.method())) {
      RequestId token = RequestId.parse(n.paramsOrEmpty().get("progressToken"));
      RequestId request = token == null ? null : progress.get(token);
      Pending p = request == null ? null : awaiting.get(request);
      if (p != null && p.stream().isOpen()) {
        return java.util.Optional.of(p.stream());
      }
    }
    List<Pending> inFlight = new ArrayList<>(awaiting.values());
    for (int i = inFlight.size() - 1; i >= 0; i--) {
      if (inFlight.get(i).stream().isOpen()) {
        return java.util.Optional.of(inFlight.get(i).stream());
      }
    }
    return java.util.Optional.empty();
  }

  /** Writes a keep-alive comment on every open stream. */
  void keepAlive() {
    List<EventStream> open = new ArrayList<>();
    synchronized (lock) {
      awaiting.values().forEach(p -> open.add(p.stream()));
      if (standalone != null) {
        open.add(standalone);
      }
    }
    open.forEach(EventStream::keepAlive);
  }

  /** Whether nothing is in flight, no stream is open, and nothing happened since {@code cutoffNanos}. */
  boolean idleSince(long cutoffNanos) {
    synchronized (lock) {
      return awaiting.isEmpty() && (standalone == null || !standalone.isOpen()) && lastActive - cutoffNanos < 0;
    }
  }

  /** Marks the session used now. */
  void touch() {
    lastActive = System.nanoTime();
  }

  /**
   * Ends the session its client ended ({@code DELETE}): each request in flight is answered on its
   * stream first, as {@link ClientSession#closeWhenAnswered} waits for it (at most
   * {@link ClientSession#ANSWER_WAIT}, then answered "call interrupted"), and then the session is
   * closed ({@link #close}).
   */
  void closeWhenAnswered(String why) {
    ClientSession c;
    synchronized (lock) {
      if (closed) {
        return;
      }
      c = connection;
    }
    if (c == null) {
      close(why);
      return;
    }
    c.closeWhenAnswered(ClientSession.ANSWER_WAIT).whenComplete((v, e) -> close(why));
  }

  /**
   * Ends the session: closes its connection, answers each request in flight
   * {@link ErrorCode#CALL_INTERRUPTED} and ends the standalone stream. Idempotent.
   */
  void close(String why) {
    List<Pending> pending;
    EventStream s;
    ClientSession c;
    synchronized (lock) {
      if (closed) {
        return;
      }
      closed = true;
      pending = new ArrayList<>(awaiting.values());
      awaiting.clear();
      progress.clear();
      queue.clear();
      s = standalone;
      standalone = null;
      c = connection;
    }
    try {
      if (c != null) {
        c.close();
      }
    } catch (RuntimeException e) {
      LOG.warn("session {} of {}: closing its connection failed: {}", id, LogSafe.escape(serverName),
          LogSafe.escape(String.valueOf(e.getMessage()), 200));
    }
    for (Pending p : pending) {
      p.stream().finish(JsonRpc.encode(Envelope.error(p.requestId(), ErrorCode.CALL_INTERRUPTED,
          "call interrupted: the session was closed: " + why)));
    }
    if (s != null) {
      s.end();
    }
  }

  @Override
  public String toString() {
    return "HttpClientSession[" + id + " of " + serverName + "]";
  }

  /** The {@code _meta} of a message's params, or an empty map. */
  @SuppressWarnings("unchecked")
  static Map<String, Object> meta(@Nullable Map<String, Object> params) {
    return params != null && params.get("_meta") instanceof Map<?, ?> m ? (Map<String, Object>) m : Map.of();
  }
}
