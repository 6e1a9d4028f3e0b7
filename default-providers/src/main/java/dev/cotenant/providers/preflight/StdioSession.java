package dev.cotenant.providers.preflight;

import dev.cotenant.api.Json;
import dev.cotenant.api.ServerDescription;
import dev.cotenant.spi.HandshakeEra;
import dev.cotenant.spi.Mcp;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import tools.jackson.databind.json.JsonMapper;

/**
 * One MCP conversation with one spawned stdio server, reusable beyond the pre-flight: the same
 * bounded process handling ({@link PreflightSettings}: line length, nesting, message count,
 * teardown waits), one protocol handshake, then any number of requests, several of which may be
 * in flight at once and from several threads.
 *
 * <p>{@link #request} WRITES a request and returns at once with a future of its answer; a
 * dispatcher thread reads stdout, completes the future whose id an answer carries, answers what
 * the server asks in the meantime ({@code ping}, {@code roots/list}; others are declined) and
 * drops notifications. So a caller decides for itself when to wait: it can write several
 * requests before reading any answer.
 *
 * <p>Both protocol eras ({@link HandshakeEra}): {@code initialize} + {@code notifications/initialized}, or
 * {@code server/discover}, after which every request carries
 * {@code io.modelcontextprotocol/*} entries in its {@code _meta} ({@link #eraMeta}).
 *
 * <p>{@link #close} tears the process and its descendants down (close stdin, wait, SIGTERM,
 * wait, SIGKILL) and fails every answer still awaited. {@link #abort} kills at once, from any
 * thread. Thread-safe.
 */
public final class StdioSession implements AutoCloseable {
  /** The error a server's {@code sampling/createMessage} or {@code elicitation/create} is answered with. */
  private static final String DECLINED = "declined: this client has no user to ask";

  /** The handshake the session completed. */
  public enum Handshake {
    /** {@code initialize} + {@code notifications/initialized}. */
    INITIALIZE,
    /** {@code server/discover}; requests carry per-request {@code _meta}. */
    DISCOVER
  }

  private final ServerDescription server;
  private final PreflightSettings settings;
  private final JsonMapper mapper;
  private final String label;
  private final AtomicLong ids = new AtomicLong();
  private final ConcurrentHashMap<Long, CompletableFuture<Map<String, Object>>> pending = new ConcurrentHashMap<>();
  private final Object lifecycle = new Object();
  private volatile ServerProcess process;
  private volatile StdioSessionException ended;
  private volatile boolean closed;
  private volatile Handshake handshake;
  private volatile Map<String, Object> serverAnswer = Map.of();
  private volatile CompletableFuture<Map<String, Object>> pendingDiscover;

  private StdioSession(ServerDescription server, PreflightSettings settings, String label) {
    this.server = server;
    this.settings = settings;
    this.mapper = ServerProcess.mapper(settings);
    this.label = label;
  }

  /**
   * Spawns {@code server} (its env on top of this process's, in its {@code cwd}); no message is
   * sent yet.
   *
   * @param label a short label for thread names
   * @throws StdioSessionException of kind {@code START} when it cannot be started
   */
  public static StdioSession start(ServerDescription server, PreflightSettings settings, String label)
      throws StdioSessionException {
    StdioSession s = new StdioSession(Objects.requireNonNull(server, "server"), Objects.requireNonNull(settings, "settings"),
        Objects.requireNonNull(label, "label"));
    s.spawn();
    return s;
  }

  private void spawn() throws StdioSessionException {
    ServerProcess p;
    try {
      p = ServerProcess.start(server, settings, mapper, label);
    } catch (HandshakeFailure f) {
      throw StdioSessionException.of(f);
    }
    synchronized (lifecycle) {
      process = p;
      ended = null;
      if (closed) {
        p.kill();
      }
    }
    Thread t = new Thread(() -> dispatch(p), "cotenant-session-dispatch-" + label);
    t.setDaemon(true);
    t.start();
  }

  /** The pid of the server process now running. */
  public long pid() {
    return process.pid();
  }

  /** The bounds in force. */
  public PreflightSettings settings() {
    return settings;
  }

  /**
   * Performs the handshake of the era the settings name ({@link HandshakeEra#AUTO}: {@code server/discover}
   * first, {@code initialize} when that fails or is not answered in time, on a fresh process if
   * the first one exited; when that {@code initialize} is refused, a late answer to the
   * {@code server/discover} is still taken), presenting {@code clientInfo} and {@code capabilities}.
   *
   * @return the server's answer ({@code initialize} result, or {@code server/discover} result)
   * @throws StdioSessionException when no handshake completes within the settings' timeout
   */
  public Map<String, Object> handshake(Map<String, Object> clientInfo, Map<String, Object> capabilities)
      throws StdioSessionException, InterruptedException {
    long deadline = System.nanoTime() + settings.timeout().toNanos();
    switch (settings.era()) {
      case INITIALIZE:
        return initialize(clientInfo, capabilities, deadline);
      case DISCOVER:
        return discover(clientInfo, capabilities, deadline);
      case AUTO:
      default:
        long discoverDeadline = JsonRpc.discoverDeadline(settings, deadline);
        try {
          return discover(clientInfo, capabilities, discoverDeadline);
        } catch (StdioSessionException f) {
          if (!JsonRpc.fallsBackAfterDiscover(HandshakeFailure.Kind.valueOf(f.kind().name()), deadline) || closed) {
            throw f;
          }
          CompletableFuture<Map<String, Object>> late = null;
          if (f.kind() == StdioSessionException.Kind.EXITED || !process.alive()) {
            process.teardown();
            spawn();
          } else if (f.kind() == StdioSessionException.Kind.TIMEOUT) {
            // A server slower to start than the discover timeout may still answer it.
            late = pendingDiscover;
          }
          try {
            return initialize(clientInfo, capabilities, deadline);
          } catch (StdioSessionException refused) {
            if (late == null || refused.kind() != StdioSessionException.Kind.ANSWER || closed) {
              throw refused;
            }
            try {
              long until = JsonRpc.discoverDeadline(settings, deadline);
              return discovered(result(await(late, until, "server/discover"), "server/discover"));
            } catch (StdioSessionException stillNot) {
              throw refused;
            }
          }
        }
    }
  }

  private Map<String, Object> discover(Map<String, Object> clientInfo, Map<String, Object> capabilities, long deadline)
      throws StdioSessionException, InterruptedException {
    CompletableFuture<Map<String, Object>> answer =
        request("server/discover", JsonRpc.discoverParams(clientInfo, capabilities));
    pendingDiscover = answer;
    return discovered(result(await(answer, deadline, "server/discover"), "server/discover"));
  }

  /** Completes the discover handshake with {@code result}, when it offers {@value Mcp#MODERN_VERSION}. */
  private Map<String, Object> discovered(Map<String, Object> result) throws StdioSessionException {
    try {
      JsonRpc.offersModern(result);
    } catch (HandshakeFailure f) {
      throw StdioSessionException.of(f);
    }
    handshake = Handshake.DISCOVER;
    serverAnswer = result;
    return result;
  }

  private Map<String, Object> initialize(Map<String, Object> clientInfo, Map<String, Object> capabilities, long deadline)
      throws StdioSessionException, InterruptedException {
    Map<String, Object> params = JsonRpc.initializeParams(clientInfo, capabilities);
    Map<String, Object> result = result(await(request("initialize", params), deadline, "initialize"), "initialize");
    send(JsonRpc.initialized(), "after answering initialize");
    handshake = Handshake.INITIALIZE;
    serverAnswer = result;
    return result;
  }

  /** The handshake completed, if any. */
  public Optional<Handshake> completedHandshake() {
    return Optional.ofNullable(handshake);
  }

  /** The server's handshake answer ({@code initialize} or {@code server/discover} result); empty before one. */
  public Map<String, Object> serverAnswer() {
    return serverAnswer;
  }

  /**
   * The per-request {@code _meta} entries the handshake's era requires of every request: for
   * {@link Handshake#DISCOVER} the protocol version, client capabilities and client info (so each
   * request may name a different caller); nothing for {@link Handshake#INITIALIZE}.
   */
  public Map<String, Object> eraMeta(Map<String, Object> clientInfo, Map<String, Object> capabilities) {
    return handshake == Handshake.DISCOVER ? Mcp.modernMeta(clientInfo, capabilities) : Map.of();
  }

  /**
   * Writes one request now and returns a future of its answer (the whole response object, with
   * {@code result} or {@code error}). The future fails with a {@link StdioSessionException} when
   * the server goes away or the session is closed first.
   *
   * @throws StdioSessionException when the request cannot be written (the server has gone)
   */
  public CompletableFuture<Map<String, Object>> request(String method, Map<String, Object> params)
      throws StdioSessionException {
    long id = ids.incrementAndGet();
    CompletableFuture<Map<String, Object>> answer = new CompletableFuture<>();
    pending.put(id, answer);
    StdioSessionException over = ended;
    if (over != null || closed) {
      pending.remove(id);
      throw over != null ? over : new StdioSessionException(StdioSessionException.Kind.EXITED, "the session is closed");
    }
    try {
      send(JsonRpc.request(id, method, params), "before answering " + method);
    } catch (StdioSessionException e) {
      pending.remove(id);
      throw e;
    }
    return answer;
  }

  /**
   * Waits for {@code answer} until {@code deadlineNanos} ({@link System#nanoTime()} based).
   *
   * @param what names the request in a timeout message
   * @throws StdioSessionException of kind {@code TIMEOUT}, or the session's failure
   */
  public Map<String, Object> await(CompletableFuture<Map<String, Object>> answer, long deadlineNanos, String what)
      throws StdioSessionException, InterruptedException {
    long wait = Math.max(0, deadlineNanos - System.nanoTime());
    try {
      return answer.get(wait, TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      throw new StdioSessionException(StdioSessionException.Kind.TIMEOUT, "no answer to " + what + " in time");
    } catch (ExecutionException e) {
      if (e.getCause() instanceof StdioSessionException) {
        throw (StdioSessionException) e.getCause();
      }
      throw new StdioSessionException(StdioSessionException.Kind.GARBAGE, String.valueOf(e.getCause()));
    }
  }

  /**
   * The {@code result} object of a response.
   *
   * @throws StdioSessionException of kind {@code ANSWER} for an error or a result that is not an object
   */
  public static Map<String, Object> result(Map<String, Object> response, String method) throws StdioSessionException {
    try {
      return JsonRpc.result(response, method);
    } catch (HandshakeFailure f) {
      throw StdioSessionException.of(f);
    }
  }

  /** JSON text of a plain JSON value (as answers hold them: {@link Json#NULL} for null), with the session's mapper. */
  public String toJson(Object value) {
    return mapper.writeValueAsString(thaw(value));
  }

  private static Object thaw(Object v) {
    if (v == Json.NULL) {
      return null;
    }
    if (v instanceof Map<?, ?>) {
      Map<String, Object> out = new LinkedHashMap<>();
      ((Map<?, ?>) v).forEach((k, x) -> out.put(String.valueOf(k), thaw(x)));
      return out;
    }
    if (v instanceof List<?>) {
      List<Object> out = new java.util.ArrayList<>();
      ((List<?>) v).forEach(x -> out.add(thaw(x)));
      return out;
    }
    return v;
  }

  private void send(Map<String, Object> message, String when) throws StdioSessionException {
    try {
      process.send(message, when);
    } catch (HandshakeFailure f) {
      throw StdioSessionException.of(f);
    }
  }

  /** Kills the server now, from any thread; awaited answers fail. Teardown still follows in {@link #close}. */
  public void abort(String reason) {
    fail(new StdioSessionException(StdioSessionException.Kind.TIMEOUT, reason));
    process.kill();
  }

  /** Tears the server process and its descendants down; idempotent. */
  @Override
  public void close() {
    synchronized (lifecycle) {
      closed = true;
    }
    try {
      process.teardown();
    } finally {
      fail(new StdioSessionException(StdioSessionException.Kind.EXITED, "the session was closed"));
    }
  }

  private void fail(StdioSessionException e) {
    if (ended == null) {
      ended = e;
    }
    for (Long id : List.copyOf(pending.keySet())) {
      CompletableFuture<Map<String, Object>> f = pending.remove(id);
      if (f != null) {
        f.completeExceptionally(e);
      }
    }
  }

  private void dispatch(ServerProcess p) {
    try {
      while (true) {
        Optional<ServerProcess.Event> event = p.next(System.nanoTime() + TimeUnit.HOURS.toNanos(1));
        if (event.isEmpty()) {
          continue;
        }
        ServerProcess.Event e = event.get();
        if (e instanceof ServerProcess.Fatal) {
          endOf(p, new StdioSessionException(StdioSessionException.Kind.GARBAGE, ((ServerProcess.Fatal) e).reason()));
          return;
        }
        if (e instanceof ServerProcess.Eof) {
          endOf(p, StdioSessionException.of(p.exited("before answering")));
          return;
        }
        Map<String, Object> json = ((ServerProcess.Message) e).json();
        if (fromServer(p, json)) {
          continue;
        }
        Optional<Long> id = JsonRpc.responseId(json);
        if (id.isPresent()) {
          CompletableFuture<Map<String, Object>> f = pending.remove(id.get());
          if (f != null) {
            f.complete(json);
          }
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void endOf(ServerProcess p, StdioSessionException e) {
    synchronized (lifecycle) {
      if (process != p) {
        return;
      }
    }
    fail(e);
  }

  /** Answers the server's own request, if {@code json} is one; true when it came from the server. */
  private static boolean fromServer(ServerProcess p, Map<String, Object> json) {
    try {
      return JsonRpc.answerIfFromServer(p, json, DECLINED, "while a request was pending");
    } catch (HandshakeFailure f) {
      // The server went away; the reader reports it.
      return true;
    }
  }
}
