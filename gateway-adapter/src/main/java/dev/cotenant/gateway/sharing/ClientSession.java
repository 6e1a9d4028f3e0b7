package dev.cotenant.gateway.sharing;

import dev.cotenant.api.ServerDescription;
import dev.cotenant.gateway.mux.Attach;
import dev.cotenant.gateway.mux.ClientChannel;
import dev.cotenant.gateway.mux.ClientSink;
import dev.cotenant.gateway.mux.Multiplexer;
import dev.cotenant.gateway.pool.Lease;
import dev.cotenant.gateway.pool.Placement;
import dev.cotenant.gateway.pool.PoolException;
import dev.cotenant.spi.ConcurrencyLimiter.Permit;
import dev.cotenant.spi.Mcp;
import dev.cotenant.spi.rpc.Envelope;
import dev.cotenant.spi.rpc.ErrorCode;
import dev.cotenant.spi.rpc.RequestId;
import dev.cotenant.spi.rpc.RpcMessage;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * One client session of one server, connected through {@link Sharing}: what the client sends goes
 * in through {@link #fromClient(RpcMessage)}; what the backend sends it reaches the
 * {@link ClientSink} it was connected with. Close it when the client leaves. The transports that
 * carry a client (the daemon's socket, its Streamable HTTP endpoint) each hold one.
 *
 * <p>Before each message it checks that its backend is still the one to use: after a restart it
 * re-attaches to the new generation; after a hazard on its shared backend it moves to a dedicated
 * backend of its own. A {@code tools/call} to a server whose concurrency record sets
 * {@code maxConcurrent} waits for a slot ({@link SharingSettings#admitTimeout()}) and is answered
 * {@link ErrorCode#BUSY} {@code "busy: ..."} when none came; the slot is freed when the answer
 * reaches the client. When the limiter fails (it cannot be asked), the call is answered
 * {@link ErrorCode#REFUSED} {@code "refused: ..."} with its message, and never forwarded. A
 * message that finds no backend is answered {@link ErrorCode#NO_BACKEND}.
 *
 * <p><b>Deferred start.</b> A session whose start the records answer ({@link StartDecision}) has no
 * backend at first: its {@code initialize}, {@code notifications/initialized}, {@code ping}, the
 * recorded listings and {@code logging/setLevel} are answered from the records, and its backend is
 * started (or attached to) at its first other message, which is then forwarded. That start is the
 * session's own (its {@code initialize} params start a dedicated backend; a shared one is attached
 * to with them), and the level it asked for is set. When the live backend answers its start
 * otherwise than the records did, the session is sent {@code notifications/<kind>/list_changed}
 * for each listing it was answered from the records whose server promised such notifications. A
 * start that fails answers the message that needed it with {@link ErrorCode#NO_BACKEND} naming
 * the server and why; the session stays deferred, and its next such message tries again.
 *
 * <p>A message handed in belongs to the session from then on (see {@link ClientChannel}); the
 * session keeps the ids of what is outstanding between the client and its backend as
 * {@link RequestId}s. Thread-safe.
 */
public final class ClientSession implements AutoCloseable {
  /**
   * How long the calls a client has in flight when it closes its input are waited for
   * ({@link #closeWhenAnswered}): as long as an MCP client waits for an answer by default (the
   * TypeScript SDK's request timeout), since a call carries no deadline of its own.
   */
  public static final Duration ANSWER_WAIT = Duration.ofSeconds(60);

  /** The slot of a call admitted without a limit. */
  private static final Permit NO_SLOT = () -> {};

  private final SessionHost host;
  private final ServerDescription server;
  private final String sessionId;
  private final Map<String, Object> initializeParams;
  private final ClientShape shape;
  private final ClientSink toClient;
  private final ClientSink realSink;
  /** The client's requests awaiting answers on the current channel, each with its slot. */
  private final Map<RequestId, Permit> calls = new ConcurrentHashMap<>();
  /** The backend's requests routed to the client, awaiting its answers. */
  private final Set<RequestId> asked = ConcurrentHashMap.newKeySet();
  private final Object lock = new Object();
  private @Nullable PlacementDecision decision;
  private @Nullable Lease<MuxBackend> lease;
  /**
   * How a session that left its backend is placed at its next message when that failed the first
   * time (a start that failed, the spawn budget, a pool still draining): it tries again at each
   * message until a backend is had.
   */
  private Supplier<PlacementDecision> replace = () -> new PlacementDecision(Placement.DEDICATED,
      false, "its shared backend had a hazard; moved once a backend of its own could be started");
  private @Nullable ClientChannel channel;
  /**
   * The start answered from the records until the backend starts; null once it has, or when never
   * deferred. Written under the lock; read without it by {@link #deferred()}, which a status reads
   * while a start may hold the lock.
   */
  private volatile @Nullable DeferredStart deferred;
  private volatile StartDecision start = StartDecision.eager("not placed yet");
  /** Completed once no call is in flight, after the client closed its input ({@link #closeWhenAnswered}). */
  private volatile @Nullable CompletableFuture<Void> drained;
  /** Told each time the session lands on a backend ({@link #onPlaced}). */
  private volatile Consumer<PlacementDecision> placed = d -> {};
  /** Requests the session wrote on the client's behalf (a level set again at a deferred start): their answers are its own. */
  private final Set<RequestId> own = ConcurrentHashMap.newKeySet();
  private int replayed;
  private int generation;
  private boolean closed;
  /** The records' revision ({@link Sharing#recordsChanged}) at which the verdict was last asked. */
  private long recordsChecked;

  ClientSession(SessionHost host, ServerDescription server, String sessionId, Map<String, Object> initializeParams,
      ClientShape shape, ClientSink toClient) {
    this.host = host;
    this.server = server;
    this.sessionId = sessionId;
    this.initializeParams = initializeParams;
    this.shape = shape;
    this.toClient = this::toClient;
    this.realSink = toClient;
  }

  /** The session's id. */
  public String sessionId() {
    return sessionId;
  }

  /** The configured name of the session's server. */
  public String serverName() {
    return server.name();
  }

  /** What the client negotiates: the protocol version it asked for and the capabilities it declared. */
  public ClientShape shape() {
    return shape;
  }

  /** Where the session is placed now, and why. */
  public PlacementDecision placement() {
    synchronized (lock) {
      return Objects.requireNonNull(decision, "not placed");
    }
  }

  /**
   * Tells {@code listener} where the session lands each time from now on that it is attached to a
   * backend: a deferred session's start, a move after a hazard or a drain, a shared backend that
   * would not take it. Called under the session's lock, on the thread handing in the client's
   * message that placed it, before that message is forwarded; must not block.
   */
  public void onPlaced(Consumer<PlacementDecision> listener) {
    placed = Objects.requireNonNull(listener, "listener");
  }

  /** Whether the session's start was answered from the records, and why (or why not). Never blocks. */
  public StartDecision start() {
    return start;
  }

  /** True while the session's start is answered from the records and it has no backend yet. Never blocks. */
  public boolean deferred() {
    return deferred != null;
  }

  /** The pid of the backend process the session is attached to now, when there is one. */
  public OptionalLong backendPid() {
    synchronized (lock) {
      try {
        return lease == null ? OptionalLong.empty() : lease.backend().pid();
      } catch (PoolException e) {
        return OptionalLong.empty();
      }
    }
  }

  /**
   * Places the session by {@code wanted}: at once when {@code s} is not deferred, otherwise at its
   * first message the records cannot answer ({@link #startDeferred}).
   */
  void place(PlacementDecision wanted, StartDecision s) throws PoolException, InterruptedException {
    synchronized (lock) {
      start = s;
      if (s.deferred()) {
        decision = wanted;
        deferred = new DeferredStart(wanted, s.start().orElseThrow(), ClientShape.of(initializeParams).protocolVersion());
        return;
      }
    }
    place(wanted);
  }

  /** Places the session and attaches it, trying a dedicated backend when a shared one refuses it. */
  void place(PlacementDecision wanted) throws PoolException, InterruptedException {
    synchronized (lock) {
      PlacementDecision d = wanted;
      for (int attempt = 0; attempt < 3; attempt++) {
        Lease<MuxBackend> l = host.acquire(server, sessionId, d, initializeParams, shape);
        MuxBackend b;
        try {
          b = l.backend();
        } catch (PoolException e) {
          l.release();
          throw e;
        }
        Attach a = b.mux.attach(sessionId, attachParams(b), d.group().flatMap(ShapeGroup::answeredVersion), toClient);
        if (a instanceof Attach.Attached attached) {
          lease = l;
          channel = attached.channel();
          generation = b.generation;
          decision = d;
          recordsChecked = host.recordsRevision();
          placed.accept(d);
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
   * backend negotiated, as a server of its own would answer it; a session of a group its evidence
   * covers ({@link ShapeGroup}) is answered the version the server negotiates for the one it asked
   * ({@link Multiplexer#attach(String, Map, Optional, ClientSink)}). Not a 2026-07-28 backend
   * ({@code server/discover}): its client keeps its own version, so the multiplexer gives its
   * requests the {@code _meta} synthesised from its own initialize.
   */
  private Map<String, Object> attachParams(MuxBackend b) {
    Map<String, Object> params = initializeParams;
    if (!b.protocolVersion().isEmpty() && !Mcp.MODERN_VERSION.equals(b.protocolVersion())
        && params.containsKey("protocolVersion")) {
      params = new LinkedHashMap<>(params);
      params.put("protocolVersion", b.protocolVersion());
    }
    return params;
  }

  /**
   * Classifies one JSON-RPC message from the client ({@link RpcMessage#read}) and hands it to its
   * backend as {@link #fromClient(RpcMessage)} does; one that is not a JSON-RPC message goes to
   * {@link #invalid}. For transports that did not classify it where they read it.
   */
  public void fromClient(Map<String, Object> message) throws InterruptedException {
    Objects.requireNonNull(message, "message");
    RpcMessage m;
    try {
      m = RpcMessage.read(message);
    } catch (RpcMessage.InvalidMessage e) {
      invalid(message, e);
      return;
    }
    fromClient(m);
  }

  /** Hands one JSON-RPC message from the client, classified where it was read, to its backend. */
  public void fromClient(RpcMessage message) throws InterruptedException {
    Objects.requireNonNull(message, "message");
    synchronized (lock) {
      DeferredStart d = deferred;
      if (d != null && !closed) {
        if (d.answer(message, realSink)) {
          return;
        }
        try {
          startDeferred(d);
        } catch (PoolException e) {
          if (message instanceof RpcMessage.Request r) {
            realSink.send(Envelope.error(r.id(), ErrorCode.NO_BACKEND, "no backend for " + server.name() + ": "
                + e.getMessage()));
          }
          return;
        }
      }
    }
    boolean starts = !(message instanceof RpcMessage.Response);
    ClientChannel c;
    try {
      c = current(starts);
    } catch (PoolException e) {
      if (message instanceof RpcMessage.Request r) {
        realSink.send(Envelope.error(r.id(), ErrorCode.NO_BACKEND, "no backend for " + server.name() + ": "
            + e.getMessage()));
      }
      return;
    }
    if (message instanceof RpcMessage.Request r) {
      Permit slot = NO_SLOT;
      if ("tools/call".equals(r.method())) {
        SessionHost.Admission admission = host.admit(server);
        if (admission.refusal() != null) {
          realSink.send(Envelope.error(r.id(), admission.refusal(), admission.message()));
          return;
        }
        slot = admission.permit() == null ? NO_SLOT : admission.permit();
      }
      Permit previous = calls.put(r.id(), slot);
      if (previous != null) {
        close(previous);
      }
    } else if (message instanceof RpcMessage.Response a) {
      if (a.id() != null) {
        asked.remove(a.id());
      }
    } else if (message instanceof RpcMessage.Notification n && "notifications/cancelled".equals(n.method())
        && n.params() != null) {
      // A cancelled call gets no answer: its slot is freed now.
      RequestId cancelled = RequestId.parse(n.params().get("requestId"));
      if (cancelled != null) {
        answered(cancelled);
        drainedIfIdle();
      }
    }
    c.fromClient(message);
  }

  /**
   * A message from the client that is not a JSON-RPC message: passed to the backend's channel,
   * which answers a request whose id it cannot read ({@link ClientChannel#invalid}).
   */
  public void invalid(Map<String, Object> json, RpcMessage.InvalidMessage why) throws InterruptedException {
    ClientChannel c;
    boolean request = json.get("method") instanceof String;
    synchronized (lock) {
      if (deferred != null) {
        // As the backend's channel would answer it, without starting the backend for it.
        if (request) {
          realSink.send(Envelope.error(null, ErrorCode.INVALID_REQUEST,
              "Invalid Request: a request id must be a string or a number"));
        }
        return;
      }
    }
    try {
      c = current(request);
    } catch (PoolException e) {
      if (request) {
        realSink.send(Envelope.error(null, ErrorCode.NO_BACKEND, "no backend for " + server.name() + ": "
            + e.getMessage()));
      }
      return;
    }
    c.invalid(json, why);
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
      boolean movable = d.placement() == Placement.SHARED && starts && calls.isEmpty() && asked.isEmpty();
      if (movable && host.hazardous(l.key())) {
        // A hazard was observed on this shared backend: this session leaves it, placed as a new
        // session would be now (a backend of its own while the hazard stands; a fresh shared one
        // once it was cleared, never this one).
        PlacementDecision now = host.placement(server, shape);
        return moveTo(new PlacementDecision(now.placement(), now.forced(), "a hazard was observed on its shared backend; "
            + now.why(), now.group()));
      }
      if (movable && recordsChecked != host.recordsRevision()) {
        // The records changed (a hazard from the API, another terminal, another replica): the
        // verdict is asked again, and a session whose server no longer shares moves.
        recordsChecked = host.recordsRevision();
        PlacementDecision now = host.placement(server, shape);
        if (now.placement() != Placement.SHARED) {
          return moveTo(new PlacementDecision(Placement.DEDICATED, false, "the records changed: " + now.why()));
        }
      }
      Duration wait = host.backendTimeout();
      MuxBackend b;
      try {
        b = l.awaitBackend(wait);
      } catch (PoolException e) {
        if (e.kind() != PoolException.Kind.CLOSED || !starts) {
          throw e;
        }
        // The pool closed the entry under the session (the backends were drained): it is placed
        // again, as a new session of its server would be now.
        replace = () -> host.placement(server, shape);
        return moveTo(replace.get());
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
        } catch (ExecutionException | TimeoutException e) {
          // The process watch did not report in time: the lease says what is current.
        }
        b = l.awaitBackend(wait);
      }
      if (b.generation != generation) {
        Objects.requireNonNull(channel).close();
        Attach a = b.mux.attach(sessionId, attachParams(b), d.group().flatMap(ShapeGroup::answeredVersion), toClient);
        if (!(a instanceof Attach.Attached attached)) {
          return moveTo(new PlacementDecision(Placement.DEDICATED, false, "the restarted backend cannot take it"));
        }
        channel = attached.channel();
        generation = b.generation;
      }
      return Objects.requireNonNull(channel);
    }
  }

  /**
   * Starts the backend of a deferred session (attaches it to a shared one): placed as it was
   * decided, the level it asked for set, and told when the live backend answers its start
   * otherwise than the records did. Under the lock.
   */
  private void startDeferred(DeferredStart d) throws PoolException, InterruptedException {
    // Placed as a new session would be now: a hazard observed since the session connected counts.
    place(host.placement(server, shape));
    deferred = null;
    ClientChannel c = Objects.requireNonNull(channel);
    if (d.level != null) {
      RequestId id = RequestId.of("cotenant-replay-" + (++replayed));
      own.add(id);
      c.fromClient(RpcMessage.Request.of(id, "logging/setLevel", Map.of("level", d.level.wire())));
    }
    Lease<MuxBackend> l = Objects.requireNonNull(lease);
    MuxBackend b = l.backend();
    Set<String> served = Set.copyOf(d.served);
    b.checked.thenAccept(differs -> {
      Set<String> tell = new java.util.TreeSet<>();
      for (String part : differs) {
        if (served.contains(part)) {
          StartCheck.listChanged(part, b.capabilities()).ifPresent(tell::add);
        }
      }
      tell.forEach(method -> realSink.send(Envelope.notification(method, null)));
    });
  }

  /** Leaves the backend and is placed by {@code d}. Under the lock. */
  private ClientChannel moveTo(PlacementDecision d) throws PoolException, InterruptedException {
    leave();
    place(d);
    return Objects.requireNonNull(channel);
  }

  private void leave() {
    if (channel != null) {
      channel.close();
      channel = null;
    }
    if (lease != null) {
      if (decision != null && decision.placement() == Placement.DEDICATED) {
        host.forget(lease.key());
      }
      lease.release();
      lease = null;
    }
  }

  /**
   * What the backend sends the client; an answer to a call frees its slot. The multiplexer hands
   * plain envelopes to its sink, so each is classified here, where the session reads it.
   */
  private void toClient(Map<String, Object> message) {
    RequestId answer = null;
    try {
      RpcMessage m = RpcMessage.read(message);
      if (m instanceof RpcMessage.Request r) {
        asked.add(r.id());
      } else if (m instanceof RpcMessage.Response a && a.id() != null) {
        if (own.remove(a.id())) {
          return;
        }
        answer = a.id();
        answered(answer);
      }
    } catch (RpcMessage.InvalidMessage e) {
      // Not one of the multiplexer's envelopes: passed on, nothing to account.
    }
    realSink.send(message);
    if (answer != null) {
      // Once the answer is on its way: the last one ends a session whose client closed its input.
      drainedIfIdle();
    }
  }

  /** The call {@code id} is answered or cancelled: it is no longer outstanding, and its slot is freed. */
  private void answered(RequestId id) {
    Permit p = calls.remove(id);
    if (p != null) {
      close(p);
    }
  }

  /** Completes {@link #drained} once no call is in flight. */
  private void drainedIfIdle() {
    CompletableFuture<Void> d = drained;
    if (d != null && calls.isEmpty()) {
      d.complete(null);
    }
  }

  /**
   * The client has closed its input: the session is closed once every call it has in flight has
   * been answered (the answers reach the client as before), or, after {@code bound}, once each
   * call still unanswered has been answered {@link ErrorCode#CALL_INTERRUPTED} {@code "call
   * interrupted: ..."}; a message that arrives after that is not the client's any more. The
   * future completes when the session is closed. Nothing the client sends is taken meanwhile by
   * its transport, which has read its end.
   */
  public CompletableFuture<Void> closeWhenAnswered(Duration bound) {
    CompletableFuture<Void> d = new CompletableFuture<>();
    drained = d;
    drainedIfIdle();
    return d.completeOnTimeout(null, Math.max(0, bound.toMillis()), TimeUnit.MILLISECONDS).thenRun(() -> {
      List<RequestId> unanswered = List.copyOf(calls.keySet());
      close();
      for (RequestId id : unanswered) {
        realSink.send(Envelope.error(id, ErrorCode.CALL_INTERRUPTED, "call interrupted: the client closed its input,"
            + " and no answer came within " + bound.toSeconds() + " s"));
      }
    });
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
      deferred = null;
      leave();
    }
    host.closed(this);
    List.copyOf(calls.values()).forEach(ClientSession::close);
    calls.clear();
  }
}
