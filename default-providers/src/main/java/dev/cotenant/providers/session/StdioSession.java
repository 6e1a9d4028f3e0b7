package dev.cotenant.providers.session;

import dev.cotenant.api.ServerDescription;
import dev.cotenant.spi.HandshakeEra;
import dev.cotenant.spi.Mcp;
import dev.cotenant.spi.ServerMessageHandler;
import dev.cotenant.spi.ServerSession;
import dev.cotenant.spi.SessionException;
import dev.cotenant.spi.rpc.Envelope;
import dev.cotenant.spi.rpc.ErrorCode;
import dev.cotenant.spi.rpc.RequestId;
import dev.cotenant.spi.rpc.RpcMessage;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.json.JsonMapper;

/**
 * The {@link ServerSession} of the {@code stdio} session transport ({@link StdioSessionTransport}):
 * one spawned server process spoken to in newline-delimited JSON-RPC, under the bounds of
 * {@link SessionSettings} (message length, nesting, non-JSON lines, the totals when a caller set
 * them, teardown waits, the discover timeout of {@link HandshakeEra#AUTO}).
 *
 * <p>{@link #request} writes a request and returns at once with a future of its answer; the
 * session's dispatcher takes what the process's reader read from stdout, in order, completes the
 * future whose id an answer carries, and hands what the server sends on its own initiative to
 * the {@link ServerMessageHandler}. The dispatcher runs on a thread of a pool every session shares
 * ({@value #DISPATCH_THREADS}-N), held only while the session has something to dispatch: an idle
 * session holds no thread for it. A request is
 * answered with the handler's reply ({@link ErrorCode#INTERNAL_ERROR} when the handler throws), a
 * notification is passed on. Every message is classified once, as it is taken from the reader
 * ({@link RpcMessage#read}); one that is not JSON-RPC is dropped, and so are responses to ids
 * nobody awaits (wrong or duplicate ids; ids compare as {@link RequestId}s, so {@code 1.0}
 * answers {@code 1}).
 *
 * <p>Failures say what happened and, past the handshake, what was awaited: {@code "exited 1 before
 * answering: <the last line it wrote to stderr>"}, {@code "exited 3 before answering tools/list:
 * ..."}, {@code "no answer in 15 s"} (the handshake's whole timeout, in seconds when whole). After
 * {@link #abort} every awaited answer fails with kind {@code TIMEOUT} and the abort's reason.
 * Thread-safe.
 */
final class StdioSession implements ServerSession {
  private static final Logger LOG = LoggerFactory.getLogger(StdioSession.class);

  /** An awaited answer and the method it answers, for the failure message when the server goes away. */
  private record Pending(String method, CompletableFuture<Map<String, Object>> answer) {}

  /** The reply to a server's request the handler failed on. */
  private static final ServerMessageHandler.Error INTERNAL_ERROR =
      new ServerMessageHandler.Error(ErrorCode.INTERNAL_ERROR.code(), ErrorCode.INTERNAL_ERROR.title());

  /** The name prefix of the dispatchers' threads. */
  static final String DISPATCH_THREADS = "cotenant-session-dispatch";

  /** Where every session's dispatcher runs; an idle thread ends after 30 s. */
  private static final ExecutorService DISPATCH = dispatchPool();

  private static ExecutorService dispatchPool() {
    AtomicLong n = new AtomicLong();
    return new ThreadPoolExecutor(0, Integer.MAX_VALUE, 30, TimeUnit.SECONDS, new SynchronousQueue<>(), r -> {
      Thread t = new Thread(r, DISPATCH_THREADS + "-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    });
  }

  private static final Function<String, SessionException> CLOSED =
      when -> new SessionException(SessionException.Kind.EXITED, "the session was closed");

  private final ServerDescription server;
  private final SessionSettings settings;
  private final JsonMapper mapper;
  private final String label;
  private final ServerMessageHandler handler;
  private final AtomicLong ids = new AtomicLong();
  private final ConcurrentHashMap<RequestId, Pending> pending = new ConcurrentHashMap<>();
  private final AtomicBoolean handshakeStarted = new AtomicBoolean();
  private final Object lifecycle = new Object();
  private volatile ServerProcess process;
  /** Why the session can no longer be used, given what was being done when it is used; null while it can. */
  private volatile Function<String, SessionException> ended;
  private volatile boolean closed;
  private volatile String abortReason;
  private volatile HandshakeEra completed;

  private StdioSession(
      ServerDescription server, SessionSettings settings, JsonMapper mapper, String label, ServerMessageHandler handler) {
    this.server = server;
    this.settings = settings;
    this.mapper = mapper;
    this.label = label;
    this.handler = handler;
  }

  /**
   * Spawns {@code server} (its env on top of this process's, in its {@code cwd}); no message is
   * sent yet.
   *
   * @param mapper the transport's mapper, enforcing the settings' JSON bounds
   * @throws SessionException of kind {@code START} when it cannot be started
   */
  static StdioSession open(
      ServerDescription server, SessionSettings settings, JsonMapper mapper, String label, ServerMessageHandler handler)
      throws SessionException {
    StdioSession s = new StdioSession(server, settings, mapper, label, handler);
    s.spawn();
    return s;
  }

  private void spawn() throws SessionException {
    ServerProcess p = ServerProcess.start(server, settings, mapper, label);
    boolean unwanted;
    synchronized (lifecycle) {
      process = p;
      unwanted = closed || abortReason != null;
      if (!unwanted) {
        ended = null;
      }
    }
    p.onEvents(new Dispatcher(p)::schedule);
    if (unwanted) {
      p.kill();
    }
  }

  /**
   * Performs the handshake of {@code era}. {@link HandshakeEra#AUTO}: {@code server/discover}
   * first, waiting at most the settings' discover timeout; {@code initialize} when that fails or
   * is not answered in time, on a fresh process if the first one exited; when that
   * {@code initialize} is refused after a discover timeout, a late answer to the
   * {@code server/discover} is still taken. One handshake per session. An {@code initialize}
   * asks for {@value Mcp#LEGACY_VERSION}.
   *
   * @param timeout the whole handshake, fallback and respawn included
   * @throws IllegalStateException when a handshake was already attempted on this session
   */
  @Override
  public Map<String, Object> handshake(
      HandshakeEra era, Map<String, Object> clientInfo, Map<String, Object> capabilities, Duration timeout)
      throws SessionException, InterruptedException {
    return handshake(era, clientInfo, capabilities, Mcp.LEGACY_VERSION, timeout);
  }

  /**
   * Performs the handshake of {@code era} as {@link #handshake(HandshakeEra, Map, Map, Duration)}
   * does, with an {@code initialize} that asks for {@code protocolVersion}.
   *
   * @throws IllegalStateException when a handshake was already attempted on this session
   */
  @Override
  public Map<String, Object> handshake(HandshakeEra era, Map<String, Object> clientInfo,
      Map<String, Object> capabilities, String protocolVersion, Duration timeout)
      throws SessionException, InterruptedException {
    Objects.requireNonNull(protocolVersion, "protocolVersion");
    Objects.requireNonNull(era, "era");
    Objects.requireNonNull(clientInfo, "clientInfo");
    Objects.requireNonNull(capabilities, "capabilities");
    Objects.requireNonNull(timeout, "timeout");
    if (!handshakeStarted.compareAndSet(false, true)) {
      throw new IllegalStateException("a session performs one handshake");
    }
    long limit = millis(timeout);
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(limit);
    switch (era) {
      case INITIALIZE:
        return initialize(clientInfo, capabilities, protocolVersion, deadline, limit);
      case DISCOVER:
        return discovered(JsonRpc.result(await(discover(clientInfo, capabilities), deadline, limit),
            "server/discover"));
      case AUTO:
      default:
        return auto(clientInfo, capabilities, protocolVersion, deadline, limit);
    }
  }

  /** {@code d} in milliseconds, at least 0 and at most a year (so a deadline cannot overflow). */
  private static long millis(Duration d) {
    long year = TimeUnit.DAYS.toMillis(365);
    if (d.isNegative()) {
      return 0;
    }
    return d.compareTo(Duration.ofMillis(year)) > 0 ? year : d.toMillis();
  }

  private Map<String, Object> auto(Map<String, Object> clientInfo, Map<String, Object> capabilities, String version,
      long deadline, long limit)
      throws SessionException, InterruptedException {
    long discoverDeadline = JsonRpc.discoverDeadline(settings.discoverTimeout(), deadline);
    long discoverWait = discoverDeadline == deadline ? limit : settings.discoverTimeout().toMillis();
    CompletableFuture<Map<String, Object>> discover = null;
    try {
      discover = discover(clientInfo, capabilities);
      return discovered(JsonRpc.result(await(discover, discoverDeadline, discoverWait), "server/discover"));
    } catch (SessionException f) {
      if (!JsonRpc.fallsBackAfterDiscover(f.kind(), deadline) || closed || abortReason != null) {
        throw f;
      }
      CompletableFuture<Map<String, Object>> late = null;
      if (f.kind() == SessionException.Kind.EXITED || !process.alive()) {
        respawn();
      } else if (f.kind() == SessionException.Kind.TIMEOUT) {
        // A server slower to start than the discover timeout may still answer it.
        late = discover;
      }
      try {
        return initialize(clientInfo, capabilities, version, deadline, limit);
      } catch (SessionException refused) {
        if (late == null || refused.kind() != SessionException.Kind.ANSWER || closed || abortReason != null) {
          throw refused;
        }
        try {
          long until = JsonRpc.discoverDeadline(settings.discoverTimeout(), deadline);
          return discovered(JsonRpc.result(JsonRpc.await(late, until, "no late answer"), "server/discover"));
        } catch (SessionException stillNot) {
          throw refused;
        }
      }
    }
  }

  /** Replaces a process that exited on {@code server/discover} with a fresh one. */
  private void respawn() throws SessionException, InterruptedException {
    if (Thread.interrupted()) {
      throw new InterruptedException();
    }
    process.teardown();
    // Whatever the old process left unanswered is abandoned.
    failPending(when -> new SessionException(SessionException.Kind.EXITED, "the server was restarted"));
    spawn();
  }

  private CompletableFuture<Map<String, Object>> discover(Map<String, Object> clientInfo, Map<String, Object> capabilities)
      throws SessionException {
    return request("server/discover", JsonRpc.discoverParams(clientInfo, capabilities));
  }

  /** Completes the discover handshake with {@code result}, when it offers {@value Mcp#MODERN_VERSION}. */
  private Map<String, Object> discovered(Map<String, Object> result) throws SessionException {
    JsonRpc.offersModern(result);
    completed = HandshakeEra.DISCOVER;
    return result;
  }

  private Map<String, Object> initialize(
      Map<String, Object> clientInfo, Map<String, Object> capabilities, String version, long deadline, long limit)
      throws SessionException, InterruptedException {
    Map<String, Object> params = JsonRpc.initializeParams(clientInfo, capabilities, version);
    Map<String, Object> result =
        JsonRpc.result(await(request("initialize", params), deadline, limit), "initialize");
    send(Envelope.notification("notifications/initialized", null), "after answering initialize");
    completed = HandshakeEra.INITIALIZE;
    return result;
  }

  /** Waits for a handshake answer; past {@code deadline}, {@code "no answer in <waitedMillis>"}. */
  private static Map<String, Object> await(
      CompletableFuture<Map<String, Object>> answer, long deadline, long waitedMillis)
      throws SessionException, InterruptedException {
    return JsonRpc.await(answer, deadline, "no answer in " + JsonRpc.duration(waitedMillis));
  }

  @Override
  public Optional<HandshakeEra> completedHandshake() {
    return Optional.ofNullable(completed);
  }

  @Override
  public CompletableFuture<Map<String, Object>> request(String method, Map<String, Object> params)
      throws SessionException {
    Objects.requireNonNull(method, "method");
    RequestId id = RequestId.of(ids.incrementAndGet());
    CompletableFuture<Map<String, Object>> answer = new CompletableFuture<>();
    pending.put(id, new Pending(method, answer));
    String when = JsonRpc.beforeAnswering(method);
    Function<String, SessionException> over = ended;
    if (over != null) {
      pending.remove(id);
      throw over.apply(when);
    }
    try {
      send(Envelope.request(id, method, params), when);
    } catch (SessionException e) {
      pending.remove(id);
      throw e;
    }
    return answer;
  }

  @Override
  public boolean cancel(CompletableFuture<Map<String, Object>> answer, String reason) throws SessionException {
    Objects.requireNonNull(answer, "answer");
    Objects.requireNonNull(reason, "reason");
    for (Map.Entry<RequestId, Pending> e : pending.entrySet()) {
      if (e.getValue().answer() == answer && pending.remove(e.getKey(), e.getValue())) {
        answer.cancel(false);
        notify("notifications/cancelled", Map.of("requestId", e.getKey().json(), "reason", reason));
        return true;
      }
    }
    return false;
  }

  @Override
  public void notify(String method, Map<String, Object> params) throws SessionException {
    Objects.requireNonNull(method, "method");
    String when = "before reading " + method;
    Function<String, SessionException> over = ended;
    if (over != null) {
      throw over.apply(when);
    }
    send(Envelope.notification(method, params), when);
  }

  private void send(Map<String, Object> message, String when) throws SessionException {
    process.send(message, when);
  }

  @Override
  public OptionalLong pid() {
    return OptionalLong.of(process.pid());
  }

  /** Kills the server now, from any thread; awaited answers fail with kind {@code TIMEOUT} and {@code reason}. */
  @Override
  public void abort(String reason) {
    Objects.requireNonNull(reason, "reason");
    ServerProcess p;
    synchronized (lifecycle) {
      if (abortReason == null) {
        abortReason = reason;
      }
      p = process;
    }
    fail(when -> new SessionException(SessionException.Kind.TIMEOUT, reason));
    p.kill();
  }

  /**
   * Tears the process, its descendants and every process carrying its spawn cookie down (close
   * stdin, wait, SIGTERM, wait, SIGKILL, sweep for cookie carriers); idempotent.
   */
  @Override
  public void close() {
    ServerProcess p;
    synchronized (lifecycle) {
      closed = true;
      p = process;
    }
    // Before the teardown, so an awaited answer fails as closed, not as the exit the teardown causes.
    // The dispatcher ends with the end of the process's output, which the teardown brings.
    fail(CLOSED);
    p.teardown();
  }

  /** Ends the session with {@code cause} unless it already ended, and fails every awaited answer with the first cause. */
  private void fail(Function<String, SessionException> cause) {
    Function<String, SessionException> first;
    synchronized (lifecycle) {
      if (ended == null) {
        ended = cause;
      }
      first = ended;
    }
    failPending(first);
  }

  private void failPending(Function<String, SessionException> cause) {
    for (RequestId id : List.copyOf(pending.keySet())) {
      Pending p = pending.remove(id);
      if (p != null) {
        p.answer().completeExceptionally(cause.apply(JsonRpc.beforeAnswering(p.method())));
      }
    }
  }

  /** The end of process {@code p}'s output; ignored when {@code p} was already replaced by a respawn. */
  private void endOf(ServerProcess p, Function<String, SessionException> cause) {
    Function<String, SessionException> first;
    synchronized (lifecycle) {
      if (process != p) {
        return;
      }
      if (ended == null) {
        ended = cause;
      }
      first = ended;
    }
    failPending(first);
  }

  /**
   * The dispatcher of one process: its events, in order and one at a time, on a thread of
   * {@link #DISPATCH} while there are some; it ends at the end of the process's output.
   */
  private final class Dispatcher {
    private final ServerProcess p;
    private final AtomicBoolean running = new AtomicBoolean();
    private volatile boolean done;

    Dispatcher(ServerProcess p) {
      this.p = p;
    }

    /** An event arrived: dispatches it unless this runs already. On the reader's thread: never blocks. */
    void schedule() {
      if (!done && running.compareAndSet(false, true)) {
        DISPATCH.execute(this::drain);
      }
    }

    private void drain() {
      while (true) {
        Optional<ServerProcess.Event> e;
        while (!done && (e = p.poll()).isPresent()) {
          if (!dispatch(p, e.get())) {
            // The end: `running` stays set, nothing is dispatched after it.
            done = true;
            return;
          }
        }
        running.set(false);
        if (done || !p.hasEvents() || !running.compareAndSet(false, true)) {
          return;
        }
      }
    }
  }

  /** Dispatches one event of {@code p}; false at the end of its output. */
  private boolean dispatch(ServerProcess p, ServerProcess.Event e) {
    try {
      if (e instanceof ServerProcess.Fatal) {
        SessionException garbage = new SessionException(SessionException.Kind.GARBAGE, ((ServerProcess.Fatal) e).reason());
        endOf(p, when -> garbage);
        return false;
      }
      if (e instanceof ServerProcess.Eof) {
        endOf(p, p.exit()::failure);
        return false;
      }
      RpcMessage message;
      try {
        message = RpcMessage.read(((ServerProcess.Message) e).json());
      } catch (RpcMessage.InvalidMessage invalid) {
        LOG.debug("session {}: dropped a message that is not JSON-RPC: {}", label, invalid.getMessage());
        return true;
      }
      if (message instanceof RpcMessage.Response response) {
        Pending f = response.id() == null ? null : pending.remove(response.id());
        if (f != null) {
          f.answer().complete(response.json());
        }
      } else {
        fromServer(p, message);
      }
      return true;
    } catch (RuntimeException | Error failure) {
      SessionException broken = new SessionException(SessionException.Kind.GARBAGE,
          "the session's reader failed: " + failure.getClass().getSimpleName());
      endOf(p, when -> broken);
      throw failure;
    }
  }

  /** Hands a message the server sent on its own initiative to the handler, answering it when it is a request. */
  private void fromServer(ServerProcess p, RpcMessage message) {
    if (message instanceof RpcMessage.Notification n) {
      try {
        handler.onNotification(n.method(), n.paramsOrEmpty());
      } catch (RuntimeException | StackOverflowError e) {
        LOG.debug("session {}: the message handler threw {} on a notification", label, e.getClass().getName());
      }
      return;
    }
    RpcMessage.Request request = (RpcMessage.Request) message;
    CompletionStage<ServerMessageHandler.Reply> later;
    try {
      later = Objects.requireNonNull(handler.onRequestAsync(request.method(), request.paramsOrEmpty()),
          "the handler's reply");
    } catch (RuntimeException | StackOverflowError e) {
      LOG.debug("session {}: the message handler threw {} on a request", label, e.getClass().getName());
      later = CompletableFuture.completedFuture(INTERNAL_ERROR);
    }
    later.whenComplete((reply, failure) -> {
      ServerMessageHandler.Reply r = reply != null && failure == null ? reply : INTERNAL_ERROR;
      try {
        p.send(reply(request.id(), r), "while a request was pending");
      } catch (SessionException gone) {
        // The server went away; the reader reports it.
      }
    });
  }

  /** The answer to the server's request {@code id}: a {@code result}, or an {@code error} with code and message. */
  static Map<String, Object> reply(RequestId id, ServerMessageHandler.Reply reply) {
    if (reply instanceof ServerMessageHandler.Result result) {
      return Envelope.result(id, result.value());
    }
    ServerMessageHandler.Error e = (ServerMessageHandler.Error) reply;
    return Envelope.error(id, e.code(), e.message());
  }
}
