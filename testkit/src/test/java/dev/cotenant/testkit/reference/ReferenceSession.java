package dev.cotenant.testkit.reference;

import dev.cotenant.api.Json;
import dev.cotenant.spi.HandshakeEra;
import dev.cotenant.spi.Mcp;
import dev.cotenant.spi.ServerMessageHandler;
import dev.cotenant.spi.ServerSession;
import dev.cotenant.spi.SessionException;
import dev.cotenant.spi.rpc.Envelope;
import dev.cotenant.spi.rpc.RequestId;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.json.JsonMapper;

/** The session of {@link ReferenceStdioTransport}; its methods are overridable for the bite tests. */
public class ReferenceSession implements ServerSession {
  private static final JsonMapper MAPPER = JsonMapper.builder().build();

  protected final Process process;
  private final ServerMessageHandler handler;
  private final Duration grace;
  private final Writer stdin;
  private final AtomicLong ids = new AtomicLong();
  protected final Map<Long, CompletableFuture<Map<String, Object>>> pending = new ConcurrentHashMap<>();
  private final AtomicBoolean closed = new AtomicBoolean();
  private final Thread reader;
  private volatile boolean gone;
  private volatile String goneReason = "";
  private volatile Optional<HandshakeEra> completed = Optional.empty();

  protected ReferenceSession(Process process, String label, ServerMessageHandler handler, Duration grace) {
    this.process = process;
    this.handler = handler;
    this.grace = grace;
    this.stdin = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
    this.reader = new Thread(this::read, "reference-session-" + label);
    reader.setDaemon(true);
    reader.start();
  }

  private void read() {
    try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = r.readLine()) != null) {
        dispatch(line);
      }
    } catch (IOException e) {
      // The pipe broke: the same as the end of output.
    }
    outputClosed();
  }

  /** The server closed its output (it exited): every awaited answer fails. */
  protected void outputClosed() {
    markGone("the server closed its output");
  }

  @SuppressWarnings("unchecked")
  private void dispatch(String line) {
    Object parsed;
    try {
      parsed = MAPPER.readValue(line, Object.class);
    } catch (JacksonException e) {
      return;
    }
    if (!(parsed instanceof Map<?, ?>)) {
      return;
    }
    Map<String, Object> m = Json.freezeMap((Map<String, Object>) parsed);
    Object method = m.get("method");
    Object id = m.get("id");
    if (method instanceof String) {
      Map<String, Object> params = m.get("params") instanceof Map<?, ?> ? (Map<String, Object>) m.get("params") : Map.of();
      if (m.containsKey("id")) {
        answerServerRequest(id, (String) method, params);
      } else {
        try {
          handler.onNotification((String) method, params);
        } catch (RuntimeException e) {
          // A handler's failure is not the server's.
        }
      }
    } else if (id instanceof Number) {
      deliver(((Number) id).longValue(), m);
    }
  }

  /** Hands a response to the request awaiting it. */
  protected void deliver(long id, Map<String, Object> response) {
    CompletableFuture<Map<String, Object>> f = pending.remove(id);
    if (f != null) {
      f.complete(response);
    }
  }

  /** Asks the handler and writes its reply. */
  protected void answerServerRequest(Object id, String method, Map<String, Object> params) {
    java.util.concurrent.CompletionStage<ServerMessageHandler.Reply> later;
    try {
      later = handler.onRequestAsync(method, params);
    } catch (RuntimeException e) {
      later = CompletableFuture.completedFuture(new ServerMessageHandler.Error(-32603, "the client failed to answer " + method));
    }
    later.whenComplete((r, failure) -> {
      ServerMessageHandler.Reply reply = r != null && failure == null
          ? r : new ServerMessageHandler.Error(-32603, "the client failed to answer " + method);
      Map<String, Object> response = new LinkedHashMap<>();
      response.put("jsonrpc", "2.0");
      response.put("id", id);
      if (reply instanceof ServerMessageHandler.Result) {
        response.put("result", ((ServerMessageHandler.Result) reply).value());
      } else {
        ServerMessageHandler.Error e = (ServerMessageHandler.Error) reply;
        response.put("error", Map.of("code", e.code(), "message", e.message()));
      }
      try {
        write(response);
      } catch (IOException e) {
        markGone("the server stopped reading");
      }
    });
  }

  @Override
  public boolean cancel(CompletableFuture<Map<String, Object>> answer, String reason) throws SessionException {
    for (Map.Entry<Long, CompletableFuture<Map<String, Object>>> e : pending.entrySet()) {
      if (e.getValue() == answer && pending.remove(e.getKey(), answer)) {
        answer.cancel(false);
        notify("notifications/cancelled", Map.of("requestId", e.getKey(), "reason", reason));
        return true;
      }
    }
    return false;
  }

  /** Fails every awaited answer; later requests are refused. */
  protected void markGone(String reason) {
    if (!gone) {
      goneReason = reason;
      gone = true;
    }
    for (Long id : new ArrayList<>(pending.keySet())) {
      CompletableFuture<Map<String, Object>> f = pending.remove(id);
      if (f != null) {
        f.completeExceptionally(new SessionException(SessionException.Kind.EXITED, goneReason));
      }
    }
  }

  private void write(Map<String, Object> message) throws IOException {
    String line = MAPPER.writeValueAsString(Json.thaw(message));
    synchronized (stdin) {
      stdin.write(line);
      stdin.write('\n');
      stdin.flush();
    }
  }

  @Override
  public Map<String, Object> handshake(
      HandshakeEra era, Map<String, Object> clientInfo, Map<String, Object> capabilities, Duration timeout)
      throws SessionException, InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    switch (era) {
      case INITIALIZE:
        return initialize(clientInfo, capabilities, deadline);
      case DISCOVER:
        return discover(clientInfo, capabilities, deadline);
      case AUTO:
      default:
        long discoverDeadline = System.nanoTime() + Math.min(timeout.toNanos() / 2, TimeUnit.SECONDS.toNanos(5));
        CompletableFuture<Map<String, Object>> discovering = sendDiscover(clientInfo, capabilities);
        SessionException notDiscovered;
        try {
          return discovered(await(discovering, discoverDeadline, "server/discover"));
        } catch (SessionException e) {
          if (e.kind() == SessionException.Kind.EXITED || e.kind() == SessionException.Kind.START) {
            throw e;
          }
          notDiscovered = e;
        }
        try {
          return initialize(clientInfo, capabilities, deadline);
        } catch (SessionException refused) {
          // A server only slow to answer server/discover refuses initialize: its late answer counts.
          if (notDiscovered.kind() != SessionException.Kind.TIMEOUT || refused.kind() != SessionException.Kind.ANSWER) {
            throw refused;
          }
          return discovered(await(discovering, deadline, "server/discover"));
        }
    }
  }

  private Map<String, Object> discover(Map<String, Object> clientInfo, Map<String, Object> capabilities, long deadline)
      throws SessionException, InterruptedException {
    return discovered(await(sendDiscover(clientInfo, capabilities), deadline, "server/discover"));
  }

  private CompletableFuture<Map<String, Object>> sendDiscover(Map<String, Object> clientInfo, Map<String, Object> capabilities)
      throws SessionException {
    return request("server/discover", Map.of("_meta", Mcp.modernMeta(clientInfo, capabilities)));
  }

  @SuppressWarnings("unchecked")
  private Map<String, Object> discovered(Map<String, Object> response) throws SessionException {
    Map<String, Object> result = result(response, "server/discover");
    Object versions = result.get("supportedVersions");
    if (!(versions instanceof List<?>) || !((List<Object>) versions).contains(Mcp.MODERN_VERSION)) {
      throw new SessionException(SessionException.Kind.ANSWER, "server/discover does not offer " + Mcp.MODERN_VERSION);
    }
    completed = Optional.of(HandshakeEra.DISCOVER);
    return result;
  }

  private Map<String, Object> initialize(Map<String, Object> clientInfo, Map<String, Object> capabilities, long deadline)
      throws SessionException, InterruptedException {
    Map<String, Object> params = new LinkedHashMap<>();
    params.put("protocolVersion", Mcp.LEGACY_VERSION);
    params.put("capabilities", capabilities);
    params.put("clientInfo", clientInfo);
    Map<String, Object> result = result(await(request("initialize", params), deadline, "initialize"), "initialize");
    notify("notifications/initialized", Map.of());
    completed = Optional.of(HandshakeEra.INITIALIZE);
    return result;
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> result(Map<String, Object> response, String method) throws SessionException {
    Object r = response.get("result");
    if (!(r instanceof Map<?, ?>)) {
      throw new SessionException(SessionException.Kind.ANSWER, method + " was answered with " + response.get("error"));
    }
    return (Map<String, Object>) r;
  }

  private static Map<String, Object> await(CompletableFuture<Map<String, Object>> f, long deadline, String method)
      throws SessionException, InterruptedException {
    try {
      return f.get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      throw new SessionException(SessionException.Kind.TIMEOUT, "no answer to " + method + " in time");
    } catch (ExecutionException e) {
      if (e.getCause() instanceof SessionException) {
        throw (SessionException) e.getCause();
      }
      throw new SessionException(SessionException.Kind.ANSWER, method + " failed: " + e.getCause());
    }
  }

  @Override
  public Optional<HandshakeEra> completedHandshake() {
    return completed;
  }

  @Override
  public CompletableFuture<Map<String, Object>> request(String method, Map<String, Object> params) throws SessionException {
    if (gone) {
      throw new SessionException(SessionException.Kind.EXITED, goneReason);
    }
    long id = ids.incrementAndGet();
    CompletableFuture<Map<String, Object>> f = new CompletableFuture<>();
    pending.put(id, f);
    try {
      write(Envelope.request(RequestId.of(id), method, params));
    } catch (IOException e) {
      pending.remove(id);
      throw new SessionException(SessionException.Kind.EXITED, "cannot write " + method + ": the server has gone");
    }
    if (gone) {
      markGone(goneReason);
    }
    return f;
  }

  @Override
  public void notify(String method, Map<String, Object> params) throws SessionException {
    try {
      write(Envelope.notification(method, params));
    } catch (IOException e) {
      throw new SessionException(SessionException.Kind.EXITED, "cannot write " + method + ": the server has gone");
    }
  }

  @Override
  public OptionalLong pid() {
    return OptionalLong.of(process.pid());
  }

  @Override
  public void abort(String reason) {
    markGone("aborted: " + reason);
    process.descendants().forEach(ProcessHandle::destroyForcibly);
    process.destroyForcibly();
  }

  /**
   * Fails awaited answers, then: SIGTERM to the server's descendants (so the server, still alive,
   * reaps them), stdin closed, a wait, SIGTERM, a wait, SIGKILL over whatever of the tree still
   * runs.
   */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    markGone("the session was closed");
    List<ProcessHandle> tree = new ArrayList<>();
    process.descendants().forEach(tree::add);
    tree.forEach(ProcessHandle::destroy);
    awaitAll(tree);
    closeStdin();
    if (!waitFor(process)) {
      process.destroy();
      if (!waitFor(process)) {
        process.destroyForcibly();
        waitFor(process);
      }
    }
    process.descendants().forEach(tree::add);
    tree.stream().filter(ProcessHandle::isAlive).forEach(ProcessHandle::destroyForcibly);
    awaitAll(tree);
    try {
      reader.join(grace.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Closes the server's stdin; the bite tests' close does only this. */
  protected void closeStdin() {
    try {
      synchronized (stdin) {
        stdin.close();
      }
    } catch (IOException e) {
      // Already gone.
    }
  }

  /** Waits the grace period for {@code p} to exit; true when it did. */
  protected boolean waitFor(Process p) {
    try {
      return p.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return !p.isAlive();
    }
  }

  private void awaitAll(List<ProcessHandle> handles) {
    for (ProcessHandle h : handles) {
      try {
        h.onExit().get(grace.toMillis(), TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } catch (ExecutionException | TimeoutException e) {
        // Escalated below.
      }
    }
  }
}
