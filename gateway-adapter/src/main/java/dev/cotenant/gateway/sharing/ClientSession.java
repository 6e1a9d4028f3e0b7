package dev.cotenant.gateway.sharing;

import dev.cotenant.api.ConcurrencyRecord;
import dev.cotenant.api.ServerDescription;
import dev.cotenant.gateway.mux.Attach;
import dev.cotenant.gateway.mux.ClientChannel;
import dev.cotenant.gateway.mux.ClientSink;
import dev.cotenant.gateway.pool.Lease;
import dev.cotenant.gateway.pool.Placement;
import dev.cotenant.gateway.pool.PoolException;
import dev.cotenant.spi.ConcurrencyLimiter.Permit;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * One client session connected to one server through {@link Sharing}: what the client sends goes
 * in through {@link #fromClient}; what the backend sends it reaches the {@link ClientSink} it was
 * connected with. Close it when the client leaves.
 *
 * <p>Before each message it checks that its backend is still the one to use: after a restart it
 * re-attaches to the new generation; after a hazard on its shared backend it moves to a dedicated
 * backend of its own. A {@code tools/call} to a server whose concurrency record sets
 * {@code maxConcurrent} waits for a slot ({@link SharingSettings#admitTimeout()}) and is answered
 * {@value #BUSY} {@code "busy: ..."} when none came; the slot is freed when the answer reaches the
 * client. When the limiter fails (it cannot be asked), the call is answered {@value #REFUSED}
 * {@code "refused: ..."} with its message, and never forwarded. Thread-safe.
 */
public final class Connection implements AutoCloseable {
  /** The JSON-RPC error code of a call that found no slot under {@code maxConcurrent} in time. */
  public static final int BUSY = -32002;

  /** The JSON-RPC error code of a message that found no backend (a start that failed, a pool closed). */
  public static final int NO_BACKEND = -32003;

  /**
   * The JSON-RPC error code of a call refused because the limiter could not be asked (a fleet's
   * limiter that cannot reach its store fails closed): the call is never forwarded.
   */
  public static final int REFUSED = -32004;

  private final Sharing owner;
  private final ServerDescription server;
  private final String sessionId;
  private final Map<String, Object> initializeParams;
  private final ClientShape shape;
  private final ClientSink toClient;
  private final Map<Object, Permit> permits = new ConcurrentHashMap<>();
  /** The client's requests awaiting answers on the current channel. */
  private final java.util.Set<Object> calls = ConcurrentHashMap.newKeySet();
  /** The backend's requests routed to the client, awaiting its answers. */
  private final java.util.Set<Object> asked = ConcurrentHashMap.newKeySet();
  private final Object lock = new Object();
  private @Nullable PlacementDecision decision;
  private @Nullable Lease<MuxBackend> lease;
  /**
   * How a session that left its backend is placed at its next message when that failed the first
   * time (a start that failed, the spawn budget, a pool still draining): it tries again at each
   * message until a backend is had.
   */
  private java.util.function.Supplier<PlacementDecision> replace = () -> new PlacementDecision(Placement.DEDICATED,
      false, "its shared backend had a hazard; moved once a backend of its own could be started");
  private @Nullable ClientChannel channel;
  private int generation;
  private boolean closed;
  /** The records' revision ({@link Sharing#recordsChanged}) at which the verdict was last asked. */
  private long recordsChecked;

  Connection(Sharing owner, ServerDescription server, String sessionId, Map<String, Object> initializeParams,
      ClientShape shape, ClientSink toClient) {
    this.owner = owner;
    this.server = server;
    this.sessionId = sessionId;
    this.initializeParams = initializeParams;
    this.shape = shape;
    this.toClient = this::toClient;
    this.realSink = toClient;
  }

  private final ClientSink realSink;

  /** The session's id. */
  public String sessionId() {
    return sessionId;
  }

  /** Where the session is placed now, and why. */
  public PlacementDecision placement() {
    synchronized (lock) {
      return Objects.requireNonNull(decision, "not placed");
    }
  }

  /** The pid of the backend process the session is attached to now, when there is one. */
  public java.util.OptionalLong backendPid() {
    synchronized (lock) {
      try {
        return lease == null ? java.util.OptionalLong.empty() : lease.backend().pid();
      } catch (PoolException e) {
        return java.util.OptionalLong.empty();
      }
    }
  }

  /** Places the session and attaches it, trying a dedicated backend when a shared one refuses it. */
  void place(PlacementDecision wanted) throws PoolException, InterruptedException {
    synchronized (lock) {
      PlacementDecision d = wanted;
      String clients = shape.key();
      for (int attempt = 0; attempt < 3; attempt++) {
        // Before the acquire, which starts a backend that is not running: the backend initializes
        // with the capabilities of its first client (sampling, roots, elicitation), as a server of
        // the client's own would.
        owner.rememberFirstClient(dev.cotenant.gateway.pool.PoolKey.of(server, sessionId, d.placement(), clients),
            initializeParams, shape, d.placement() == Placement.SHARED);
        Lease<MuxBackend> l = owner.pool().acquire(server, sessionId, d.placement(), clients, d.forced(), d.why());
        MuxBackend b;
        try {
          b = l.backend();
        } catch (PoolException e) {
          l.release();
          throw e;
        }
        Attach a = b.mux.attach(sessionId, attachParams(b), toClient);
        if (a instanceof Attach.Attached) {
          lease = l;
          channel = ((Attach.Attached) a).channel();
          generation = b.generation;
          decision = d;
          recordsChecked = owner.recordsRevision();
          return;
        }
        l.release();
        d = new PlacementDecision(Placement.DEDICATED, false,
            "the shared backend cannot take it: " + ((Attach.NeedsDedicated) a).why());
      }
      throw new PoolException(PoolException.Kind.FAILED, "no backend of " + server.name() + " would take session "
          + sessionId, null);
    }
  }

  /**
   * The initialize params the session attaches to {@code b} with. The backend was started asking
   * for the version this session's clients asked for ({@link ClientShape}); a server that chose
   * another answers every such client with it, so the session is answered with the version its
   * backend negotiated, as a server of its own would answer it. Not a 2026-07-28 backend
   * ({@code server/discover}): its client keeps its own version, so the multiplexer gives its
   * requests the {@code _meta} synthesised from its own initialize.
   */
  private Map<String, Object> attachParams(MuxBackend b) {
    Map<String, Object> params = initializeParams;
    if (!b.protocolVersion().isEmpty() && !dev.cotenant.spi.Mcp.MODERN_VERSION.equals(b.protocolVersion())
        && params.containsKey("protocolVersion")) {
      params = new LinkedHashMap<>(params);
      params.put("protocolVersion", b.protocolVersion());
    }
    return params;
  }

  /** Hands one JSON-RPC message from the client to its backend. */
  public void fromClient(Map<String, Object> message) throws InterruptedException {
    Objects.requireNonNull(message, "message");
    ClientChannel c;
    try {
      c = current(message.containsKey("method"));
    } catch (PoolException e) {
      answerError(message, NO_BACKEND, "no backend for " + server.name() + ": " + e.getMessage());
      return;
    }
    if (isCall(message) && !admit(message)) {
      return;
    }
    if (message.containsKey("id")) {
      if (message.containsKey("method")) {
        calls.add(message.get("id"));
      } else {
        asked.remove(message.get("id"));
      }
    }
    if ("notifications/cancelled".equals(message.get("method")) && message.get("params") instanceof Map<?, ?>) {
      calls.remove(((Map<?, ?>) message.get("params")).get("requestId"));
      // A cancelled call gets no answer: its slot is freed now.
      Permit p = permits.remove(((Map<?, ?>) message.get("params")).get("requestId"));
      if (p != null) {
        close(p);
      }
    }
    c.fromClient(message);
  }

  /**
   * The channel to use now: re-attached after a restart; moved to a dedicated backend after a
   * hazard on its shared backend, at a message that starts something ({@code starts}) once nothing
   * is outstanding between the session and the shared backend (the session's calls have been
   * answered, and it has answered what the backend asked it).
   */
  private ClientChannel current(boolean starts) throws PoolException, InterruptedException {
    synchronized (lock) {
      if (closed) {
        throw new PoolException(PoolException.Kind.CLOSED, "the connection is closed", null);
      }
      if (lease == null) {
        // An earlier move failed (a start that failed, the spawn budget, a drain in progress):
        // the session has no backend; it tries again at each message until one is had.
        place(replace.get());
        return Objects.requireNonNull(channel);
      }
      Lease<MuxBackend> l = lease;
      PlacementDecision d = Objects.requireNonNull(decision);
      if (d.placement() == Placement.SHARED && owner.hazardous(l.key()) && starts
          && calls.isEmpty() && asked.isEmpty()) {
        // A hazard was observed on this shared backend: this session moves to one of its own.
        leave();
        place(new PlacementDecision(Placement.DEDICATED, false, "a hazard was observed on its shared backend"));
        return Objects.requireNonNull(channel);
      }
      if (d.placement() == Placement.SHARED && starts && calls.isEmpty() && asked.isEmpty()
          && recordsChecked != owner.recordsRevision()) {
        // The records changed (a hazard from the API, another terminal, another replica): the
        // verdict is asked again, and a session whose server no longer shares moves.
        recordsChecked = owner.recordsRevision();
        PlacementDecision now = owner.placement(server);
        if (now.placement() != Placement.SHARED) {
          leave();
          place(new PlacementDecision(Placement.DEDICATED, false, "the records changed: " + now.why()));
          return Objects.requireNonNull(channel);
        }
      }
      Duration wait = owner.pool().settings().closeTimeout();
      MuxBackend b;
      try {
        b = l.awaitBackend(wait);
      } catch (PoolException e) {
        if (e.kind() != PoolException.Kind.CLOSED || !starts) {
          throw e;
        }
        // The pool closed the entry under the session (the backends were drained): it is placed
        // again, as a new session of its server would be now.
        replace = () -> owner.placement(server);
        leave();
        place(replace.get());
        return Objects.requireNonNull(channel);
      }
      if (b.generation == generation && b.mux.ended().isPresent()) {
        // The multiplexer saw the backend end before the pool heard of it. A session that ended
        // while its process lives (a bound of the session transport reached, a write that failed)
        // is ended for good: its process is killed, so the pool restarts it. Then wait for the
        // pool to have been told, and for the restarted backend.
        if (!b.exited.isDone()) {
          b.session.abort("the backend's session ended: " + b.mux.ended().get());
        }
        try {
          b.exited.get(wait.toMillis(), TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
          // The process watch did not report in time: the lease says what is current.
        }
        b = l.awaitBackend(wait);
      }
      if (b.generation != generation) {
        Objects.requireNonNull(channel).close();
        Attach a = b.mux.attach(sessionId, attachParams(b), toClient);
        if (!(a instanceof Attach.Attached)) {
          leave();
          place(new PlacementDecision(Placement.DEDICATED, false, "the restarted backend cannot take it"));
          return Objects.requireNonNull(channel);
        }
        channel = ((Attach.Attached) a).channel();
        generation = b.generation;
      }
      return Objects.requireNonNull(channel);
    }
  }

  private void leave() {
    if (channel != null) {
      channel.close();
      channel = null;
    }
    if (lease != null) {
      if (decision != null && decision.placement() == Placement.DEDICATED) {
        owner.forget(lease.key());
      }
      lease.release();
      lease = null;
    }
  }

  private static boolean isCall(Map<String, Object> message) {
    return "tools/call".equals(message.get("method")) && message.containsKey("id");
  }

  /** Waits for a slot under the server's {@code maxConcurrent}; answers the client when none came. */
  private boolean admit(Map<String, Object> message) throws InterruptedException {
    Optional<ConcurrencyRecord> record = owner.record(server.name());
    if (record.isEmpty() || record.get().maxConcurrent().isEmpty()) {
      return true;
    }
    Optional<Permit> permit;
    try {
      permit = owner.limits().admit(record.get(), owner.settings().admitTimeout().toMillis(), TimeUnit.MILLISECONDS);
    } catch (RuntimeException e) {
      answerError(message, REFUSED, "refused: " + (e.getMessage() == null ? e.toString() : e.getMessage()));
      return false;
    }
    if (permit.isEmpty()) {
      answerError(message, BUSY, "busy: " + server.name() + " already serves its maxConcurrent of "
          + record.get().maxConcurrent().getAsInt() + " calls, and no slot came free in "
          + owner.settings().admitTimeout().toMillis() + " ms");
      return false;
    }
    Permit previous = permits.put(message.get("id"), permit.get());
    if (previous != null) {
      close(previous);
    }
    return true;
  }

  /** What the backend sends the client; an answer to an admitted call frees its slot. */
  private void toClient(Map<String, Object> message) {
    if (message.containsKey("method") && message.containsKey("id")) {
      asked.add(message.get("id"));
    }
    if (!message.containsKey("method") && message.containsKey("id")) {
      calls.remove(message.get("id"));
      Permit p = permits.remove(message.get("id"));
      if (p != null) {
        close(p);
      }
    }
    realSink.send(message);
  }

  private void answerError(Map<String, Object> message, int code, String text) {
    if (message.containsKey("id") && message.containsKey("method")) {
      Map<String, Object> error = new LinkedHashMap<>();
      error.put("jsonrpc", "2.0");
      error.put("id", message.get("id"));
      error.put("error", Map.of("code", code, "message", text));
      realSink.send(error);
    }
  }

  private static void close(Permit p) {
    try {
      p.close();
    } catch (Exception e) {
      // A permit that cannot be closed is the limiter's to report.
    }
  }

  /** Closes the session's channel, frees its slots and releases its backend. */
  @Override
  public void close() {
    synchronized (lock) {
      if (closed) {
        return;
      }
      closed = true;
      leave();
    }
    List.copyOf(permits.values()).forEach(Connection::close);
    permits.clear();
  }
}
