package dev.cotenant.gateway.sharing;

import dev.cotenant.api.ConcurrencyRecord;
import dev.cotenant.api.ExecutionIdentity;
import dev.cotenant.api.HazardCode;
import dev.cotenant.api.Json;
import dev.cotenant.api.LogSafe;
import dev.cotenant.api.ServerDescription;
import dev.cotenant.api.Verdict;
import dev.cotenant.gateway.identity.IdentityResolver;
import dev.cotenant.gateway.mux.ClientSink;
import dev.cotenant.gateway.mux.Multiplexer;
import dev.cotenant.gateway.mux.MuxSettings;
import dev.cotenant.gateway.pool.BackendEvents;
import dev.cotenant.gateway.pool.DrainResult;
import dev.cotenant.gateway.pool.EntrySnapshot;
import dev.cotenant.gateway.pool.Lease;
import dev.cotenant.gateway.pool.Placement;
import dev.cotenant.gateway.pool.PoolException;
import dev.cotenant.gateway.pool.PoolKey;
import dev.cotenant.gateway.pool.PoolSettings;
import dev.cotenant.gateway.pool.RestartResult;
import dev.cotenant.gateway.pool.TransportPool;
import dev.cotenant.spi.ConcurrencyLimiter.Permit;
import dev.cotenant.spi.HandshakeEra;
import dev.cotenant.spi.HazardLedger;
import dev.cotenant.spi.PreflightRecord;
import dev.cotenant.spi.ServerSession;
import dev.cotenant.spi.SessionTransport;
import dev.cotenant.spi.rpc.ErrorCode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sharing backends (docs/pool.md), assembled over the SPIs: each client session of a server is
 * placed on a shared or a dedicated backend ({@link PlacementDecision}), backends live in a
 * {@link TransportPool} and route their sessions through a {@link Multiplexer}, calls are admitted
 * within the server's {@code maxConcurrent} ({@link ConcurrencyLimits}), and every frame a shared
 * backend's multiplexer could not route is recorded in the hazard ledger under the backend's
 * launch identity with the number of sessions attached, and flushed.
 *
 * <ul>
 *   <li><b>Verdicts take effect for new sessions.</b> Each {@link #connect} asks for the server's
 *       verdict afresh, so a hazard observed (or a measurement landing) changes where the NEXT
 *       session goes.
 *   <li><b>Attached sessions move.</b> After a hazard on a shared backend, each session attached
 *       to it moves to a dedicated backend of its own at its next message; calls it has in
 *       flight on the shared backend finish there. A hazard recorded elsewhere (an API, another
 *       process, another replica) moves them too, once the host says the records changed
 *       ({@link #recordsChanged}). The shared backend drains once the last
 *       session has left (the pool's grace and idle cap).
 *   <li><b>Restarts.</b> When a backend dies, calls in flight fail with "call interrupted"
 *       ({@link dev.cotenant.spi.rpc.ErrorCode#CALL_INTERRUPTED}) and are never replayed; the pool restarts the
 *       backend for the sessions still attached, and each session re-attaches to the new
 *       generation at its next message.
 *   <li><b>Clients share with clients of their shape.</b> Sessions share a backend only with
 *       sessions whose {@code initialize} asked for the same protocol version and declared the
 *       same capabilities ({@link ClientShape}); the backend's handshake asks for that version
 *       and presents those capabilities (and the first session's {@code clientInfo}), so each
 *       client is answered the version and capabilities its backend negotiated, as a server of
 *       its own would answer it.
 *   <li><b>Deferred starts.</b> A session whose start the records answer ({@link StartDecision})
 *       gets its handshake and listings from them, and its backend starts at its first other
 *       message ({@link ClientSession}). When a backend starts for a client the recorded start
 *       covers, what it answers is compared with the recording ({@link StartCheck}); a difference is
 *       recorded in the hazard ledger ({@link HazardCode#DEFERRED_ANSWER_CHANGED}), which ends
 *       deferring under that identity, and the deferred sessions on it are told.
 *   <li><b>A backend that asks its client.</b> A request the backend sends before its first
 *       session attached waits for it; a shared backend that has asked its only session
 *       something (roots, sampling, elicitation) takes no other session
 *       ({@link Multiplexer#markShared}).
 * </ul> Built by {@code Cotenant#sharing()}. Thread-safe.
 */
public final class Sharing implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Sharing.class);

  /** How long after a backend's start its answers are compared with the recorded start ({@link StartCheck}). */
  static final long CHECK_DELAY_MS = 250;

  /** Who the backend's handshake names when no client has said who it is. */
  static final Map<String, Object> GATEWAY = Map.of("name", "cotenant-gateway", "version", "1");

  private final SessionTransport sessions;
  private final Function<ServerDescription, Verdict> verdicts;
  private final HazardLedger ledger;
  private final IdentityResolver identities;
  private final Function<String, Optional<ConcurrencyRecord>> records;
  private final Function<ServerDescription, Optional<PreflightRecord>> preflights;
  private final ConcurrencyLimits limits;
  private final SharingSettings settings;
  private final MuxSettings muxSettings;
  private final HandshakeEra era;
  private final Duration handshakeTimeout;
  private final TransportPool<MuxBackend> pool;
  private final ScheduledExecutorService timers;
  private final ExecutorService workers;
  private final ExecutorService flusher;
  /** How each entry's backend starts: the first session that asked for it; a dedicated one is forgotten with its session. */
  private final Map<String, Start> starts = new ConcurrentHashMap<>();
  /**
   * The connection ids of shared backends on which a hazard was observed. Never taken by a new
   * session: a shared key is never handed out again once in here ({@link #sharedClients}).
   */
  private final Set<String> hazardous = ConcurrentHashMap.newKeySet();
  /**
   * Per server, the round of its shared backends new sessions join ({@link #sharedClients}): a
   * round ends when the server was seen refuted ({@link #refuted}), so once the hazard is cleared
   * its next shared session starts a fresh backend, never one that was running when it was refuted.
   */
  private final Map<String, Integer> rounds = new ConcurrentHashMap<>();
  /** The servers seen refuted (a hazard observed or recorded) since their last shared backend was acquired. */
  private final Set<String> refuted = ConcurrentHashMap.newKeySet();
  /** Counts {@link #recordsChanged} calls: a session on a shared backend asks its verdict again when it moved. */
  private final java.util.concurrent.atomic.AtomicLong recordsRevision = new java.util.concurrent.atomic.AtomicLong();
  private final SessionHost host = new Host();
  /** The client sessions connected and not closed yet. */
  private final Set<ClientSession> connected = ConcurrentHashMap.newKeySet();

  /**
   * @param sessions opens backends
   * @param verdicts a server's current verdict
   * @param ledger where hazards are recorded
   * @param identities a server's launch identity (the ledger key)
   * @param records a server's concurrency record
   * @param preflights a server's pre-flight row under its current launch identity
   * @param limits admission under {@code maxConcurrent}
   * @param settings when to share
   * @param poolSettings the pool's bounds
   * @param muxSettings the multiplexer's bounds
   * @param era the backends' handshake era
   * @param handshakeTimeout each backend handshake's time limit
   */
  public Sharing(
      SessionTransport sessions, Function<ServerDescription, Verdict> verdicts, HazardLedger ledger,
      IdentityResolver identities, Function<String, Optional<ConcurrencyRecord>> records,
      Function<ServerDescription, Optional<PreflightRecord>> preflights, ConcurrencyLimits limits,
      SharingSettings settings, PoolSettings poolSettings, MuxSettings muxSettings, HandshakeEra era,
      Duration handshakeTimeout) {
    this.sessions = Objects.requireNonNull(sessions, "sessions");
    this.verdicts = Objects.requireNonNull(verdicts, "verdicts");
    this.ledger = Objects.requireNonNull(ledger, "ledger");
    this.identities = Objects.requireNonNull(identities, "identities");
    this.records = Objects.requireNonNull(records, "records");
    this.preflights = Objects.requireNonNull(preflights, "preflights");
    this.limits = Objects.requireNonNull(limits, "limits");
    this.settings = Objects.requireNonNull(settings, "settings");
    this.muxSettings = Objects.requireNonNull(muxSettings, "muxSettings");
    this.era = Objects.requireNonNull(era, "era");
    this.handshakeTimeout = Objects.requireNonNull(handshakeTimeout, "handshakeTimeout");
    this.timers = Executors.newSingleThreadScheduledExecutor(daemon("cotenant-pool-timers"));
    // Restarts and closes: a drain closes every backend in parallel.
    this.workers = Executors.newCachedThreadPool(daemon("cotenant-pool-worker"));
    this.flusher = Executors.newSingleThreadExecutor(daemon("cotenant-hazard-flush"));
    this.pool = new TransportPool<>(this::start, poolSettings, timers, workers, System::currentTimeMillis);
  }

  private static java.util.concurrent.ThreadFactory daemon(String name) {
    return r -> {
      Thread t = new Thread(r, name);
      t.setDaemon(true);
      return t;
    };
  }

  /** The sharing settings. */
  public SharingSettings settings() {
    return settings;
  }

  /**
   * Says the records changed outside this runtime's own observations: a hazard recorded through
   * a host's API, a ledger another process or replica wrote and this runtime reloaded, a
   * registration cleared. Each session on a shared backend (not forced) asks its server's verdict
   * again at its next message that starts something, once nothing is outstanding between it and
   * the backend, and moves to a backend of its own when the verdict no longer shares. Cheap; call
   * it after every reload.
   */
  public void recordsChanged() {
    recordsRevision.incrementAndGet();
  }

  /**
   * Where a new session of {@code server} would go now, and why, for a client declaring no
   * capability a server asks its client about.
   */
  public PlacementDecision placement(ServerDescription server) {
    Verdict verdict = verdicts.apply(server);
    if (verdict.strength() == dev.cotenant.api.Strength.REFUTED) {
      refuted.add(server.name());
    }
    return PlacementDecision.decide(server.name(), verdict, settings);
  }

  /**
   * The clients text of the shared key a session of {@code server} whose clients are
   * {@code clients} acquires: the round of the server's shared backends is in it (from the second
   * round on), and a server seen refuted since its last shared acquire starts a new round. A key
   * on whose backend a hazard was observed is skipped, so a new session never joins a backend
   * that saw a hazard, even when the hazard has been cleared since.
   */
  private synchronized String sharedClients(ServerDescription server, String clients) {
    int round = rounds.getOrDefault(server.name(), 0) + (refuted.remove(server.name()) ? 1 : 0);
    String c = clients;
    while (true) {
      c = round == 0 ? clients : clients + "#round " + round;
      if (!hazardous.contains(PoolKey.shared(server, c).connectionId())) {
        break;
      }
      round++;
    }
    rounds.put(server.name(), round);
    return c;
  }

  /**
   * Where a new session of {@code server} from a client of {@code shape} would go now, and why: as
   * {@link #placement(ServerDescription)}, and a client declaring {@code roots}, {@code sampling}
   * or {@code elicitation} is shared only on a whole-surface probe, under the server's current
   * identity, that passed as clients declaring them too ({@link PlacementDecision#forClient}).
   */
  public PlacementDecision placement(ServerDescription server, ClientShape shape) {
    PlacementDecision base = placement(server);
    if (base.placement() != Placement.SHARED) {
      return base;
    }
    ExecutionIdentity id = identities.identify(server);
    Optional<dev.cotenant.api.ProbePass> probe =
        records.apply(server.name()).filter(r -> r.probedUnder(id.ledgerKey())).flatMap(ConcurrencyRecord::probe);
    PlacementDecision d = base.forced() || shape.askedOfClients().isEmpty() ? base
        : PlacementDecision.forClient(base, server.name(), shape, probe);
    return d.in(ShapeGroup.of(shape, preflights.apply(server), ledger.codesFor(server.name(), id.ledgerKey()),
        probe.filter(dev.cotenant.api.ProbePass::wholeSurface)));
  }

  /**
   * Whether a new session of {@code server} whose client's {@code initialize} had
   * {@code initializeParams} is answered its start from the records, and why
   * ({@link StartDecision}).
   */
  public StartDecision start(ServerDescription server, Map<String, Object> initializeParams) {
    return host.start(server, initializeParams);
  }

  /** The client sessions connected now and not closed. */
  public List<ClientSession> sessions() {
    return List.copyOf(connected);
  }

  /**
   * Connects one client session to {@code server}: places it, and acquires its backend (starting it
   * when none runs) and attaches it, unless its start is answered from the records
   * ({@link StartDecision}): then its backend starts at its first other message. What the client
   * sends goes to {@link ClientSession#fromClient}; what the backend sends it arrives at
   * {@code toClient}.
   *
   * @param initializeParams the client's {@code initialize} params ({@code protocolVersion},
   *     {@code capabilities}, {@code clientInfo}); empty for a client of the 2026-07-28 era
   * @throws PoolException when no backend can be had (spawn failure, budget, a pool closed)
   */
  public ClientSession connect(ServerDescription server, String sessionId, Map<String, Object> initializeParams,
      ClientSink toClient) throws PoolException, InterruptedException {
    Objects.requireNonNull(server, "server");
    Objects.requireNonNull(sessionId, "sessionId");
    Objects.requireNonNull(initializeParams, "initializeParams");
    Objects.requireNonNull(toClient, "toClient");
    // Kept for the session's life (a restart attaches it again): frozen, as the client's message
    // that carried them is not the session's to keep.
    ClientSession c = new ClientSession(host, server, sessionId, Json.freezeMap(initializeParams),
        ClientShape.of(initializeParams), toClient);
    c.place(placement(server, c.shape()), host.start(server, initializeParams));
    connected.add(c);
    return c;
  }

  /** The pool's accounting: one entry per backend. */
  public List<EntrySnapshot> accounting() {
    return pool.accounting();
  }

  /** Restarts every backend of {@code serverName}. */
  public List<RestartResult> restartByName(String serverName) throws InterruptedException {
    return pool.restartByName(serverName);
  }

  /**
   * Drains every backend and stops accepting sessions for good; see {@link TransportPool#drainAll}.
   * For shutting down.
   */
  public DrainResult drainAll(boolean force, Duration timeout) throws InterruptedException {
    return pool.drainAll(force, timeout);
  }

  /**
   * Drains every backend, then accepts sessions again: the next session of each server starts a
   * backend afresh. See {@link TransportPool#drainAndReopen}.
   */
  public DrainResult drainBackends(boolean force, Duration timeout) throws InterruptedException {
    return pool.drainAndReopen(force, timeout);
  }

  /** Releases every backend {@code sessionId} holds. */
  public void releaseSession(String sessionId) {
    pool.releaseSession(sessionId);
  }

  /**
   * Drains every backend at once, stops the pool's threads, and waits (up to the pool's close
   * timeout) for the ledger flushes of what was observed to finish, so nothing observed is left
   * unwritten.
   */
  @Override
  public void close() {
    try {
      pool.close();
    } finally {
      timers.shutdownNow();
      workers.shutdown();
      flusher.shutdown();
      try {
        flusher.awaitTermination(pool.settings().closeTimeout().toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** The whole of what a {@link ClientSession} asks of this runtime. */
  private final class Host implements SessionHost {
    @Override
    public Lease<MuxBackend> acquire(ServerDescription server, String sessionId, PlacementDecision d,
        Map<String, Object> initializeParams, ClientShape shape) throws PoolException, InterruptedException {
      String group = d.group().map(ShapeGroup::key).orElse(shape.key());
      String clients = d.placement() == Placement.SHARED ? sharedClients(server, group) : group;
      // Before the acquire, which starts a backend that is not running: the backend initializes
      // with the capabilities of its first client (sampling, roots, elicitation), as a server of
      // the client's own would.
      starts.putIfAbsent(PoolKey.of(server, sessionId, d.placement(), clients).connectionId(),
          new Start(initializeParams, shape, d.placement() == Placement.SHARED));
      return pool.acquire(server, sessionId, d.placement(), clients, d.forced(), d.why());
    }

    @Override
    public StartDecision start(ServerDescription server, Map<String, Object> initializeParams) {
      if (!settings.defer()) {
        return StartDecision.decide(false, initializeParams, Optional.empty(), Set.of(), Optional.empty());
      }
      ExecutionIdentity id = identities.identify(server);
      HazardLedger.Snapshot ledgerNow = ledger.snapshot();
      return StartDecision.decide(true, initializeParams, preflights.apply(server),
          ledger.codesFor(server.name(), id.ledgerKey()), ledgerNow.incomplete());
    }

    @Override
    public void closed(ClientSession session) {
      connected.remove(session);
    }

    @Override
    public void forget(PoolKey key) {
      starts.remove(key.connectionId());
    }

    @Override
    public boolean hazardous(PoolKey key) {
      return hazardous.contains(key.connectionId());
    }

    @Override
    public long recordsRevision() {
      return recordsRevision.get();
    }

    @Override
    public PlacementDecision placement(ServerDescription server, ClientShape shape) {
      return Sharing.this.placement(server, shape);
    }

    @Override
    public Duration backendTimeout() {
      return pool.settings().closeTimeout();
    }

    @Override
    public Admission admit(ServerDescription server) throws InterruptedException {
      Optional<ConcurrencyRecord> record = records.apply(server.name());
      if (record.isEmpty() || record.get().maxConcurrent().isEmpty()) {
        return Admission.UNLIMITED;
      }
      long timeout = settings.admitTimeout().toMillis();
      Optional<Permit> permit;
      try {
        permit = limits.admit(record.get(), timeout, TimeUnit.MILLISECONDS);
      } catch (RuntimeException e) {
        return new Admission(null, ErrorCode.REFUSED,
            "refused: " + (e.getMessage() == null ? e.toString() : e.getMessage()));
      }
      return permit.map(p -> new Admission(p, null, "")).orElseGet(() -> new Admission(null, ErrorCode.BUSY,
          "busy: " + server.name() + " already serves its maxConcurrent of " + record.get().maxConcurrent().getAsInt()
              + " calls, and no slot came free in " + timeout + " ms"));
    }
  }

  /** How a backend starts: its first client's initialize params and shape, and whether it is meant for several. */
  private record Start(Map<String, Object> params, ClientShape shape, boolean shared) {}

  /** Starts one backend: the session with its multiplexer as handler, the handshake, the bind, an exit watch. */
  private MuxBackend start(PoolKey key, ServerDescription server, int generation, BackendEvents events) throws Exception {
    String identity = identities.identify(server).ledgerKey();
    Multiplexer mux = new Multiplexer(server.name(),
        (code, attached, detail) -> observed(key, server.name(), identity, code, attached, detail), muxSettings);
    Start start = starts.getOrDefault(key.connectionId(), new Start(Map.of(), ClientShape.of(Map.of()), false));
    if (start.shared()) {
      mux.markShared();
    }
    // A start the records cover was answered in the initialize era: no server/discover is tried.
    StartDecision covered = host.start(server, start.params());
    HandshakeEra handshakeEra = era == HandshakeEra.AUTO && covered.deferred() ? HandshakeEra.INITIALIZE : era;
    ServerSession session = sessions.open(server, "backend " + key.connectionId() + " #" + generation, mux);
    try {
      Map<String, Object> first = start.params();
      Map<String, Object> clientInfo = map(first.get("clientInfo"), GATEWAY);
      Map<String, Object> capabilities = map(first.get("capabilities"), Map.of());
      String version = start.shape().protocolVersion();
      // The backend asks for the version its clients asked for, and negotiates what a server of
      // their own would; a 2026-07-28 client sends no initialize, and a fallback asks the default.
      Map<String, Object> answer = dev.cotenant.spi.Mcp.MODERN_VERSION.equals(version)
          ? session.handshake(handshakeEra, clientInfo, capabilities, handshakeTimeout)
          : session.handshake(handshakeEra, clientInfo, capabilities, version, handshakeTimeout);
      mux.bind(session, answer, session.completedHandshake().orElse(HandshakeEra.INITIALIZE));
      MuxBackend backend = new MuxBackend(session, mux, generation, answer);
      check(key, server, identity, start, covered, backend);
      session.pid().stream().boxed().findFirst().flatMap(ProcessHandle::of).ifPresent(h -> h.onExit().thenRun(() -> {
        String why = "its process " + h.pid() + " exited";
        mux.backendExited(why);
        events.exited(why);
        backend.exited.complete(why);
      }));
      return backend;
    } catch (Exception | Error e) {
      session.close();
      throw e;
    }
  }

  /**
   * Compares, off the starting thread, what a backend just started answers with the start the
   * records hold for its first client's shape, when they cover it; completes
   * {@link MuxBackend#checked} with what differs (empty when nothing was compared). A difference
   * is an observation: {@link HazardCode#DEFERRED_ANSWER_CHANGED} under the backend's identity.
   */
  private void check(PoolKey key, ServerDescription server, String identity, Start start, StartDecision covered,
      MuxBackend backend) {
    if (covered.start().isEmpty()) {
      backend.checked.complete(List.of());
      return;
    }
    try {
      // After the first message the backend was started for has gone out: the listings asked
      // again must not queue that message behind them.
      timers.schedule(() -> {
        try {
          workers.execute(() -> compare(key, server, identity, start, covered, backend));
        } catch (java.util.concurrent.RejectedExecutionException closing) {
          backend.checked.complete(List.of());
        }
      }, CHECK_DELAY_MS, TimeUnit.MILLISECONDS);
    } catch (java.util.concurrent.RejectedExecutionException closing) {
      backend.checked.complete(List.of());
    }
  }

  /** Compares a started backend's answers with the recorded start; see {@link #check}. */
  private void compare(PoolKey key, ServerDescription server, String identity, Start start, StartDecision covered,
      MuxBackend backend) {
    List<String> differs = List.of();
    try {
      differs = StartCheck.differences(backend.session, backend.handshake, start.shape().protocolVersion(),
          covered.start().get(), handshakeTimeout).orElse(List.of());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) {
      LOG.debug("the start of {} could not be compared with its records: {}", LogSafe.escape(server.name()),
          e.toString());
    }
    if (!differs.isEmpty()) {
      observed(key, server.name(), identity, HazardCode.DEFERRED_ANSWER_CHANGED, backend.mux.attached(),
          "its live " + String.join(", ", differs) + " differ from the start its pre-flight recorded; its sessions"
              + " are no longer answered from the records");
    }
    backend.checked.complete(differs);
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> map(Object value, Map<String, Object> fallback) {
    return value instanceof Map<?, ?> ? new LinkedHashMap<>((Map<String, Object>) value) : fallback;
  }

  /** Records a hazard the multiplexer of a backend observed, and flushes the ledger off the caller's thread. */
  private void observed(PoolKey key, String name, String identity, HazardCode code, int attached, String detail) {
    if (code.refutesSharing()) {
      hazardous.add(key.connectionId());
      refuted.add(name);
    }
    ledger.record(name, identity, code, attached);
    LOG.info("backend of {}: observed {} with {} sessions attached: {}", LogSafe.escape(name), code.wireName(),
        attached, LogSafe.escape(detail, 300));
    try {
      flusher.execute(() -> {
        try {
          ledger.flush();
        } catch (IOException | UncheckedIOException e) {
          LOG.warn("the hazard ledger could not be written after {} for {}: {}", code.wireName(), LogSafe.escape(name),
              LogSafe.escape(String.valueOf(e.getMessage()), 300));
        }
      });
    } catch (java.util.concurrent.RejectedExecutionException closed) {
      // Closing: the observation stays in the runtime's ledger for its owner's flush.
    }
  }
}
