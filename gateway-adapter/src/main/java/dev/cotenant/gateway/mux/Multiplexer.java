package dev.cotenant.gateway.mux;

import dev.cotenant.api.HazardCode;
import dev.cotenant.api.Json;
import dev.cotenant.api.LogSafe;
import dev.cotenant.spi.HandshakeEra;
import dev.cotenant.spi.Mcp;
import dev.cotenant.spi.ServerMessageHandler;
import dev.cotenant.spi.ServerSession;
import dev.cotenant.spi.SessionException;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Many client sessions over ONE backend {@link ServerSession} (docs/pool.md): the multiplexing half
 * of a shared backend. The pool places a client here only when sharing is allowed; this class
 * keeps each client's conversation its own and reports, through a {@link HazardSink}, every frame
 * it could not keep apart.
 *
 * <p><b>Lifecycle.</b> Create it first, open the backend with it as the session's
 * {@link ServerMessageHandler}, perform the handshake, then {@link #bind} the session with the
 * handshake's answer. {@link #attach} each client (it may be told to take a dedicated backend
 * instead, {@link Attach.NeedsDedicated}) and hand what it sends to its {@link ClientChannel}.
 * The last client leaving does not close the backend, and neither does {@link #close}: the owner
 * of the session (the pool) decides when it ends, and calls {@link #backendExited} when it dies.
 *
 * <p><b>Routing.</b>
 *
 * <ol>
 *   <li><b>Ids.</b> A client request is written to the backend under an id the backend session
 *       allocates ({@link ServerSession#request}); its answer goes back to that client under the
 *       client's ORIGINAL id, the very value it sent (a number stays a number, a string a string).
 *       Clients using the same id values at once each get their own answer. A client reusing an
 *       id still in flight on its session is answered {@value #INVALID_REQUEST} and not forwarded;
 *       one with more than {@link MuxSettings#maxInFlightPerSession()} calls awaiting answers is
 *       answered {@value #INTERNAL_ERROR} {@code "too many calls in flight ..."}.
 *   <li><b>Cancellation and progress.</b> {@code notifications/cancelled} from a client naming one
 *       of its calls in flight cancels the backend's request ({@link ServerSession#cancel}, which
 *       writes the backend's own id), and the client gets no answer to it afterwards. A
 *       cancellation naming a request that was answered locally, or is not in flight, is ignored.
 *       A client's {@code params._meta.progressToken} is replaced by a backend-unique token
 *       ({@code "cotenant-<n>"}); {@code notifications/progress} carrying it goes to that client
 *       alone, with the client's own token. A progress token nobody owns is routed as in 7.
 *       Other client notifications ({@code notifications/roots/list_changed}, ...) are forwarded
 *       to the backend unchanged.
 *   <li><b>Legacy era ({@link HandshakeEra#INITIALIZE}).</b> The backend was initialized once, by
 *       whoever opened it. A client's {@code initialize} is answered locally with the cached
 *       initialize result, as often as it asks; {@code notifications/initialized} from a client is
 *       swallowed (the backend had one). A client whose {@code initialize} asks for a protocol
 *       version other than the one the backend negotiated, or a client of the 2026-07-28 era, is
 *       told to take a dedicated backend by {@link #attach}.
 *   <li><b>2026-07-28 era ({@link HandshakeEra#DISCOVER}).</b> Each request's {@code _meta} is
 *       forwarded unchanged (the client names itself in every request). For a client that
 *       attached with {@code initialize} params, the era's entries are built from its own
 *       {@code clientInfo} and {@code capabilities} ({@link Mcp#modernMeta}) and added to its
 *       {@code _meta}; its {@code initialize} is answered locally with the discover answer's
 *       {@code capabilities}, {@code serverInfo} and {@code instructions} under the protocol version
 *       it asked for. {@code server/discover} from a client is answered with the cached discover
 *       answer.
 *   <li><b>Local answers.</b> {@code ping} and {@code logging/setLevel} are answered locally with
 *       {@code {}}. The backend runs at the finest level any attached client asked for: when that
 *       level changes (a client asks, or the client holding it leaves), {@code logging/setLevel}
 *       is sent to the backend, if it advertises {@code logging}. Each client receives only the
 *       {@code notifications/message} at or above its own level (RFC 5424: debug &lt; info &lt;
 *       notice &lt; warning &lt; error &lt; critical &lt; alert &lt; emergency); a client that never
 *       set a level receives every one routed to it. An unknown level is refused with
 *       {@value #INVALID_PARAMS}. When no client holds a level any more, the backend keeps the
 *       last one (its own default cannot be restored).
 *   <li><b>Server requests.</b> {@code ping} is answered locally. Any other request
 *       ({@code sampling/createMessage}, {@code elicitation/create}, {@code roots/list}, ...) goes
 *       to its owner, and a backend request names none: the owner is the only attached session.
 *       It reaches that client under a client-side id ({@code "cotenant-<n>"}), and the backend's
 *       reply is written when the client answers ({@link #onRequestAsync}; a client's error
 *       answer is passed on with its code and message; a session that closes first makes it
 *       {@value #INTERNAL_ERROR}). A request that comes before any session has attached (a
 *       {@code roots/list} right after the handshake) waits for the first session, for which
 *       the backend was started. A backend {@linkplain #markShared meant for several sessions}
 *       that has asked its only session something takes no other session from then on (the
 *       server would never ask a later one for its own). With two or more sessions attached it goes to nobody, whatever
 *       calls are in flight (timing is not evidence of whom it is for): it is answered
 *       {@value #INTERNAL_ERROR} {@code "cannot route <method>: <N> sessions share this backend
 *       and nothing in it names one"}, and {@link HazardCode#UNROUTABLE_SERVER_REQUEST} is
 *       observed.
 *   <li><b>Request-scoped notifications</b> ({@code notifications/message},
 *       {@code notifications/progress} with a token nobody owns, and every notification not named
 *       in 8) go to the owner as in 6: with one session attached, to it, and nothing is observed
 *       (a backend serving one session legitimately owns it); with two or more, they are dropped
 *       and {@link HazardCode#UNATTRIBUTABLE_NOTIFICATION} is observed. {@code notifications/cancelled} from the backend names one
 *       of its own requests by an id this class never sees, so it is dropped, unobserved.
 *   <li><b>Broadcasts and subscriptions.</b> {@code notifications/<kind>/list_changed} (tools,
 *       prompts, resources, roots, any kind) goes to every attached client.
 *       {@code resources/subscribe} is counted per URI: the backend receives it for the first
 *       subscriber only, and each subscriber is answered with the backend's answer (an error
 *       answer unsubscribes every waiting subscriber, and the next subscribe asks the backend
 *       again); {@code resources/unsubscribe} is answered locally, and the backend receives it when
 *       the last subscriber leaves, by unsubscribing or closing.
 *       {@code notifications/resources/updated} goes only to the subscribers of its URI.
 *   <li><b>Leaving.</b> {@link ClientChannel#close} cancels the client's calls in flight at the
 *       backend, answers the server requests routed to it with an error, releases its
 *       subscriptions and its logging level.
 *   <li><b>Backend death.</b> When the backend ends ({@link #backendExited}, a request's answer
 *       failing with a {@link SessionException}, a write failing), every call in flight (and every
 *       subscribe awaiting the backend's answer) is answered with {@value #CALL_INTERRUPTED} and
 *       a message starting {@code "call interrupted:"} that names the server and the reason, with
 *       {@code data: {"server", "reason"}}. Nothing is ever replayed: the backend may have acted on the call. Every later
 *       request on any channel is answered the same way, and {@link #attach} says
 *       {@link Attach.NeedsDedicated}, until the caller moves its clients to a new backend.
 *   <li><b>Counting.</b> {@link #calls()} counts the requests written to the backend for clients;
 *       {@link #hazards()} the observations made.
 * </ol>
 *
 * <p><b>Threading.</b> Thread-safe. Client messages may arrive on many threads at once, on one
 * channel or several; backend messages arrive on the session's reading thread; answers are
 * delivered on whichever thread completes them (usually that reader). Routing state is kept under
 * one lock, held only for map updates: no backend write and no {@link ClientSink#send} happens
 * under it. Subscriptions and the logging level each have their own lock, held while their
 * backend request is written so that those requests reach the backend in the order they were
 * decided. A request counts as in flight from just before it is written until its answer has
 * been taken.
 */
public final class Multiplexer implements ServerMessageHandler, AutoCloseable {
  /**
   * The JSON-RPC error code of a call interrupted by the backend's end. Not -32001, which the MCP
   * SDKs' Streamable HTTP servers (and the daemon's) answer for a session that is not found: a
   * client over HTTP must be able to tell the two apart.
   */
  public static final int CALL_INTERRUPTED = -32005;

  /** How the message of every {@link #CALL_INTERRUPTED} error starts. */
  public static final String CALL_INTERRUPTED_PREFIX = "call interrupted:";

  /** JSON-RPC {@code Invalid Request}: an id already in flight, or an id of the wrong type. */
  public static final int INVALID_REQUEST = -32600;

  /** JSON-RPC {@code Method not found}: {@code server/discover} on an initialize-era backend. */
  public static final int METHOD_NOT_FOUND = -32601;

  /** JSON-RPC {@code Invalid params}: an unknown logging level, a subscription without a URI. */
  public static final int INVALID_PARAMS = -32602;

  /** JSON-RPC {@code Internal error}: an unroutable server request, too many calls in flight. */
  public static final int INTERNAL_ERROR = -32603;

  /** The client info of the multiplexer's own requests in the discover era, when no client's applies. */
  static final Map<String, Object> OWN_CLIENT_INFO = Map.of("name", "cotenant", "version", "1");

  private static final Logger LOG = LoggerFactory.getLogger(Multiplexer.class);
  private static final String PROGRESS = "notifications/progress";
  private static final String MESSAGE = "notifications/message";
  private static final String CLOSED_REASON = "the multiplexer was closed";

  /** The bound backend and what its handshake said. */
  private record Bound(ServerSession backend, Map<String, Object> handshake, HandshakeEra era, String version,
      boolean logging) {}

  /** A server request routed to a client, awaiting its answer. */
  private record Routed(String method, CompletableFuture<Reply> reply) {}

  /** One client request forwarded to the backend. */
  private static final class InFlight {
    final Channel channel;
    final Object id;
    final String key;
    final @Nullable String backendToken;
    final @Nullable Object clientToken;
    /** Guarded by the lock; null until the request is written. */
    @Nullable CompletableFuture<Map<String, Object>> future;
    /** Guarded by the lock. */
    boolean cancelled;
    /** Guarded by the lock. */
    String cancelReason = "";

    InFlight(Channel channel, Object id, String key, @Nullable String backendToken, @Nullable Object clientToken) {
      this.channel = channel;
      this.id = id;
      this.key = key;
      this.backendToken = backendToken;
      this.clientToken = clientToken;
    }
  }

  /** The subscribers of one URI; guarded by the subscription lock. */
  private static final class Subscription {
    final String uri;
    final Set<Channel> members = new LinkedHashSet<>();
    final CompletableFuture<Map<String, Object>> ready = new CompletableFuture<>();
    /** Null while the backend has not answered the subscribe; then whether it accepted it. */
    @Nullable Boolean accepted;
    /** The member that left last, whose era entries the unsubscribe carries. */
    @Nullable Channel lastLeft;

    Subscription(String uri) {
      this.uri = uri;
    }
  }

  private final String serverName;
  private final HazardSink hazardSink;
  private final MuxSettings settings;
  // Lock order: the level lock, then the subscription lock, then the routing lock; never back.
  private final Object lock = new Object();
  private final Object subscriptionLock = new Object();
  private final Object levelLock = new Object();
  /** Guarded by the lock. */
  private final Map<String, Channel> channels = new LinkedHashMap<>();
  /** Backend progress token to the call that owns it; guarded by the lock. */
  private final Map<String, InFlight> progressOwners = new HashMap<>();
  /** Guarded by the subscription lock. */
  private final Map<String, Subscription> subscriptions = new HashMap<>();
  /** The level last sent to the backend; guarded by the level lock. */
  private @Nullable LogLevel upstreamLevel;
  /** Why the backend can no longer be used; null while it can. Written under the lock. */
  private volatile @Nullable String ended;
  /** Written under the lock. */
  private volatile @Nullable Bound bound;
  private final AtomicLong progressTokens = new AtomicLong();
  private final AtomicLong serverRequestIds = new AtomicLong();
  private final AtomicLong calls = new AtomicLong();
  private final AtomicInteger hazards = new AtomicInteger();
  /** Server requests that came while no session was attached, for the first one; guarded by the lock. */
  private final List<Parked> parked = new ArrayList<>();
  /** True once a session has attached; guarded by the lock. */
  private boolean everAttached;
  /** True when this backend is meant for several sessions ({@link #markShared}). */
  private volatile boolean shared;
  /** The first server request a shared backend sent its only session; null while none. Written under the lock. */
  private volatile @Nullable String askedClient;

  /** A server request awaiting the first session to attach. */
  private record Parked(String method, Map<String, Object> params, CompletableFuture<Reply> reply) {}

  /**
   * A multiplexer for a backend of {@code serverName}, not yet bound: pass it as the handler when
   * opening the backend session, then {@link #bind} it.
   *
   * @param serverName the configured server name, quoted in errors and logs
   * @param hazards receives what could not be routed or attributed
   * @param settings the bounds
   */
  public Multiplexer(String serverName, HazardSink hazards, MuxSettings settings) {
    this.serverName = Objects.requireNonNull(serverName, "serverName");
    this.hazardSink = Objects.requireNonNull(hazards, "hazards");
    this.settings = Objects.requireNonNull(settings, "settings");
  }

  /**
   * Binds the backend session, after its handshake.
   *
   * @param backend the session opened with this multiplexer as its handler
   * @param initializeResultOrDiscover the handshake's answer: the {@code initialize} result (its
   *     {@code protocolVersion} is the one clients must ask for) or the {@code server/discover}
   *     result
   * @param era the era of the handshake completed; {@link HandshakeEra#AUTO} takes the session's
   *     {@link ServerSession#completedHandshake()}
   * @throws IllegalArgumentException when the era cannot be told, or an initialize result has no
   *     {@code protocolVersion}
   * @throws IllegalStateException when already bound
   */
  public void bind(ServerSession backend, Map<String, Object> initializeResultOrDiscover, HandshakeEra era) {
    Objects.requireNonNull(backend, "backend");
    Objects.requireNonNull(initializeResultOrDiscover, "initializeResultOrDiscover");
    Objects.requireNonNull(era, "era");
    HandshakeEra e = era == HandshakeEra.AUTO
        ? backend.completedHandshake().orElseThrow(() -> new IllegalArgumentException(
            "era AUTO needs a session whose handshake has completed"))
        : era;
    if (e == HandshakeEra.AUTO) {
      throw new IllegalArgumentException("the session reports its completed handshake as AUTO");
    }
    Map<String, Object> handshake = Json.freezeMap(initializeResultOrDiscover);
    String version = handshake.get("protocolVersion") instanceof String ? (String) handshake.get("protocolVersion") : "";
    if (e == HandshakeEra.INITIALIZE && version.isEmpty()) {
      throw new IllegalArgumentException("an initialize result without a protocolVersion cannot be replayed to clients");
    }
    boolean logging = object(handshake.get("capabilities")).containsKey("logging");
    synchronized (lock) {
      if (bound != null) {
        throw new IllegalStateException("the multiplexer of " + serverName + " is already bound to a backend");
      }
      bound = new Bound(backend, handshake, e, version, logging);
    }
  }

  /**
   * Says this backend is meant for several sessions. A server request other than {@code ping}
   * names no session, so once this backend has asked its only session something (its roots, a
   * sampling, an elicitation), a later session would never be asked for its own: {@link #attach}
   * says {@link Attach.NeedsDedicated} from then on, and the sessions attached stay.
   */
  public void markShared() {
    shared = true;
  }

  /**
   * The method of the first request this shared backend sent its only session, after which it
   * takes no other session; empty while none.
   */
  public java.util.Optional<String> askedClient() {
    return java.util.Optional.ofNullable(askedClient);
  }

  /**
   * Attaches a client session, or says why it needs a dedicated backend: in the initialize era, a
   * client asking for another protocol version than the backend negotiated, or a client of the
   * 2026-07-28 era; in any era, a backend already serving {@link MuxSettings#maxSessions()}
   * sessions, or a backend that has ended (or a closed multiplexer).
   *
   * @param sessionId the client session's id, unique among the attached ones
   * @param clientInitializeParams the params of the client's {@code initialize} (its
   *     {@code protocolVersion}, {@code clientInfo}, {@code capabilities}); empty for a client of
   *     the 2026-07-28 era, which names itself in each request's {@code _meta}
   * @param toClient where the client's answers, routed requests and notifications go
   * @throws IllegalStateException before {@link #bind}
   * @throws IllegalArgumentException when {@code sessionId} is attached already
   */
  public Attach attach(String sessionId, Map<String, Object> clientInitializeParams, ClientSink toClient) {
    Objects.requireNonNull(sessionId, "sessionId");
    Objects.requireNonNull(clientInitializeParams, "clientInitializeParams");
    Objects.requireNonNull(toClient, "toClient");
    Bound b = bound;
    if (b == null) {
      throw new IllegalStateException("bind the backend of " + serverName + " before attaching clients");
    }
    Object v = clientInitializeParams.get("protocolVersion");
    String requested = v instanceof String && !((String) v).isEmpty() ? (String) v : Mcp.MODERN_VERSION;
    boolean legacyClient = !Mcp.MODERN_VERSION.equals(requested);
    if (b.era() == HandshakeEra.INITIALIZE && !requested.equals(b.version())) {
      return new Attach.NeedsDedicated(legacyClient
          ? "the client asks for protocol version " + LogSafe.escape(requested, 40) + "; the shared backend of "
              + name() + " negotiated " + LogSafe.escape(b.version(), 40)
          : "the client speaks " + Mcp.MODERN_VERSION + " per request; the shared backend of " + name()
              + " was initialized with protocol version " + LogSafe.escape(b.version(), 40));
    }
    Channel c = new Channel(sessionId, toClient, legacyClient, requested,
        Json.freezeMap(object(clientInitializeParams.get("clientInfo"))),
        Json.freezeMap(object(clientInitializeParams.get("capabilities"))));
    List<Parked> early;
    synchronized (lock) {
      String over = ended;
      if (over != null) {
        return new Attach.NeedsDedicated("the shared backend of " + name() + " has ended: " + over);
      }
      String asked = askedClient;
      if (asked != null) {
        return new Attach.NeedsDedicated("the shared backend of " + name() + " asked its session for "
            + LogSafe.escape(asked, 80) + ", and would never ask another session for its own");
      }
      if (channels.containsKey(sessionId)) {
        throw new IllegalArgumentException("session " + LogSafe.escape(sessionId, 80) + " is already attached to "
            + serverName);
      }
      if (channels.size() >= settings.maxSessions()) {
        return new Attach.NeedsDedicated("the shared backend of " + name() + " already serves " + channels.size()
            + " sessions (" + MuxSettings.MAX_SESSIONS + ")");
      }
      channels.put(sessionId, c);
      everAttached = true;
      early = channels.size() == 1 ? List.copyOf(parked) : List.of();
      if (!early.isEmpty()) {
        parked.clear();
      }
    }
    LOG.debug("session {} attached to the backend of {}", LogSafe.escape(sessionId, 80), name());
    // What the backend asked before any session attached (a roots/list right after its handshake)
    // is the first session's: the backend was started for it.
    early.forEach(r -> onRequestAsync(r.method(), r.params()).whenComplete((reply, failure) -> r.reply().complete(
        failure == null ? reply : new Error(INTERNAL_ERROR, "Internal error"))));
    return new Attach.Attached(c);
  }

  /**
   * Why the backend ended, once the multiplexer has seen it end ({@link #backendExited}, a failed
   * write or answer); empty while it serves.
   */
  public java.util.Optional<String> ended() {
    return java.util.Optional.ofNullable(ended);
  }

  /** The client sessions attached now. */
  public int attached() {
    synchronized (lock) {
      return channels.size();
    }
  }

  /** The requests written to the backend for clients so far (forwarded calls and first subscribes). */
  public long calls() {
    return calls.get();
  }

  /** The hazards observed so far (each one handed to the {@link HazardSink}). */
  public int hazards() {
    return hazards.get();
  }

  /**
   * Says the backend has died: every call in flight is answered {@value #CALL_INTERRUPTED}
   * {@code "call interrupted: ..."} naming the server and {@code reason}, and so is every later
   * request. Nothing is replayed. Idempotent; the first reason stays.
   */
  public void backendExited(String reason) {
    ended(Objects.requireNonNull(reason, "reason"));
  }

  /**
   * Stops multiplexing: every call in flight is cancelled at the backend and answered
   * {@value #CALL_INTERRUPTED} ({@code "the multiplexer was closed"}), every channel is closed,
   * and {@link #attach} says {@link Attach.NeedsDedicated} from now on. Does not close the backend
   * session: its owner does. Idempotent.
   */
  @Override
  public void close() {
    List<CompletableFuture<Map<String, Object>>> open = new ArrayList<>();
    boolean live;
    List<Channel> all;
    synchronized (lock) {
      live = ended == null;
      for (Channel c : channels.values()) {
        for (InFlight r : c.inFlight.values()) {
          if (r.future != null) {
            open.add(r.future);
          }
        }
      }
      all = new ArrayList<>(channels.values());
    }
    ended(CLOSED_REASON);
    Bound b = bound;
    if (live && b != null) {
      for (CompletableFuture<Map<String, Object>> f : open) {
        try {
          b.backend().cancel(f, CLOSED_REASON);
        } catch (SessionException e) {
          break;
        }
      }
    }
    all.forEach(Channel::close);
  }

  // ---- the backend's own messages ----

  /**
   * Answers a server request at once where it can ({@code ping}, an unroutable request) and
   * otherwise blocks until the client it was routed to answers; prefer {@link #onRequestAsync},
   * which sessions call.
   */
  @Override
  public Reply onRequest(String method, Map<String, Object> params) {
    try {
      return onRequestAsync(method, params).toCompletableFuture().get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new Error(INTERNAL_ERROR, "interrupted while " + method + " awaited a client");
    } catch (ExecutionException e) {
      return new Error(INTERNAL_ERROR, "Internal error");
    }
  }

  /**
   * Routes a server request (rule 6): {@code ping} answered locally; otherwise sent to its owner
   * and answered when the owner answers, or answered at once with {@value #INTERNAL_ERROR} when
   * there is no owner.
   */
  @Override
  public CompletionStage<Reply> onRequestAsync(String method, Map<String, Object> params) {
    if ("ping".equals(method)) {
      return CompletableFuture.completedFuture(new Result(Map.of()));
    }
    Channel owner;
    int attached;
    int busy;
    String clientId = "";
    Routed routed = null;
    synchronized (lock) {
      attached = channels.size();
      busy = busyLocked();
      owner = ended == null ? ownerLocked() : null;
      if (attached == 0 && ended == null && !everAttached) {
        // The backend was started for a session that attaches next: its request waits for it.
        Parked p = new Parked(method, params, new CompletableFuture<>());
        parked.add(p);
        return p.reply();
      }
      if (owner != null) {
        clientId = "cotenant-" + serverRequestIds.incrementAndGet();
        routed = new Routed(method, new CompletableFuture<>());
        owner.routed.put(idKey(clientId), routed);
        if (shared && askedClient == null) {
          askedClient = method;
          LOG.info("the shared backend of {} asked its only session for {}: it takes no other session", name(),
              LogSafe.escape(method, 80));
        }
      }
    }
    if (owner == null || routed == null) {
      if (attached > 1) {
        observe(HazardCode.UNROUTABLE_SERVER_REQUEST, attached, LogSafe.escape(method, 80) + " from the backend with "
            + attached + " sessions attached (" + busy + " with calls in flight): nothing in it names the session it is for");
      } else {
        LOG.debug("{}: no session to route {} to", name(), LogSafe.escape(method, 80));
      }
      return CompletableFuture.completedFuture(new Error(INTERNAL_ERROR, "cannot route " + LogSafe.escape(method, 80)
          + ": " + attached + " sessions share this backend and nothing in it names one"));
    }
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("jsonrpc", "2.0");
    m.put("id", clientId);
    m.put("method", method);
    m.put("params", params);
    deliver(owner, m);
    return routed.reply();
  }

  /** Routes a server notification (rules 2, 5, 7, 8). */
  @Override
  public void onNotification(String method, Map<String, Object> params) {
    if (method.startsWith("notifications/") && method.endsWith("/list_changed")) {
      List<Channel> all;
      synchronized (lock) {
        all = new ArrayList<>(channels.values());
      }
      Map<String, Object> n = notification(method, params);
      all.forEach(c -> deliver(c, n));
      return;
    }
    switch (method) {
      case "notifications/resources/updated":
        updated(params);
        return;
      case PROGRESS:
        progress(params);
        return;
      case "notifications/cancelled":
        LOG.debug("{}: dropped notifications/cancelled from the backend: its request ids are not routed", name());
        return;
      default:
        toOwner(method, params);
    }
  }

  private void updated(Map<String, Object> params) {
    Object uri = params.get("uri");
    List<Channel> to = new ArrayList<>();
    synchronized (subscriptionLock) {
      Subscription s = uri instanceof String ? subscriptions.get(uri) : null;
      if (s != null) {
        to.addAll(s.members);
      }
    }
    if (to.isEmpty()) {
      LOG.debug("{}: dropped notifications/resources/updated for a URI no session subscribed to", name());
    }
    Map<String, Object> n = notification("notifications/resources/updated", params);
    to.forEach(c -> deliver(c, n));
  }

  private void progress(Map<String, Object> params) {
    Object token = params.get("progressToken");
    InFlight owner;
    synchronized (lock) {
      owner = token instanceof String ? progressOwners.get(token) : null;
    }
    if (owner == null && token instanceof String t && issuedHere(t)) {
      // A token this multiplexer gave a call that has ended since (answered, cancelled, its
      // session gone): late progress, attributed and of no use to anyone. Dropped, no hazard:
      // a server may well report progress once more after a cancel reached it.
      LOG.debug("{}: dropped progress of a call that has ended ({})", name(), LogSafe.escape(t, 40));
      return;
    }
    if (owner == null || owner.clientToken == null) {
      toOwner(PROGRESS, params);
      return;
    }
    Map<String, Object> p = new LinkedHashMap<>(params);
    p.put("progressToken", owner.clientToken);
    deliver(owner.channel, notification(PROGRESS, p));
  }

  /** True when {@code token} is one this multiplexer issued ({@code cotenant-N}, N given out already). */
  private boolean issuedHere(String token) {
    if (!token.startsWith("cotenant-") || token.length() > 29) {
      return false;
    }
    try {
      long n = Long.parseLong(token.substring("cotenant-".length()));
      return n >= 1 && n <= progressTokens.get();
    } catch (NumberFormatException e) {
      return false;
    }
  }

  /** A request-scoped notification to the session that owns the backend's attention, if one does (rule 7). */
  private void toOwner(String method, Map<String, Object> params) {
    Channel owner;
    int attached;
    int busy;
    synchronized (lock) {
      attached = channels.size();
      busy = busyLocked();
      owner = ownerLocked();
    }
    if (owner == null) {
      if (attached > 1) {
        observe(HazardCode.UNATTRIBUTABLE_NOTIFICATION, attached, LogSafe.escape(method, 80) + " from the backend with "
            + attached + " sessions attached (" + busy + " with calls in flight): nothing in it names the session it is for");
      } else {
        LOG.debug("{}: dropped {}: no session is attached", name(), LogSafe.escape(method, 80));
      }
      return;
    }
    if (MESSAGE.equals(method)) {
      LogLevel own = owner.level;
      java.util.Optional<LogLevel> level = LogLevel.parse(params.get("level"));
      if (own != null && level.isPresent() && level.get().compareTo(own) < 0) {
        return;
      }
    }
    deliver(owner, notification(method, params));
  }

  /**
   * The only attached session; null with none or with two or more. Which session has a call in
   * flight says nothing about whom a backend message is for, so it never decides. Under the lock.
   */
  private @Nullable Channel ownerLocked() {
    return channels.size() == 1 ? channels.values().iterator().next() : null;
  }

  /** The sessions with a call in flight. Under the lock. */
  private int busyLocked() {
    int n = 0;
    for (Channel c : channels.values()) {
      if (!c.inFlight.isEmpty()) {
        n++;
      }
    }
    return n;
  }

  private void observe(HazardCode code, int attached, String detail) {
    hazards.incrementAndGet();
    LOG.info("{}: observed {} with {} sessions attached: {}", name(), code.wireName(), attached, detail);
    try {
      hazardSink.observed(code, attached, detail);
    } catch (RuntimeException e) {
      LOG.warn("{}: the hazard sink failed on {}: {}", name(), code.wireName(), e.toString());
    }
  }

  // ---- the end of the backend ----

  /**
   * Ends the backend with {@code reason} unless it already ended, and answers every call in flight
   * with the first reason. Returns that reason.
   */
  private String ended(String reason) {
    List<InFlight> interrupted = new ArrayList<>();
    List<Routed> unanswered = new ArrayList<>();
    boolean first;
    String why;
    synchronized (lock) {
      first = ended == null;
      if (first) {
        ended = reason;
      }
      why = Objects.requireNonNull(ended);
      for (Parked p : parked) {
        unanswered.add(new Routed(p.method(), p.reply()));
      }
      parked.clear();
      for (Channel c : channels.values()) {
        interrupted.addAll(c.inFlight.values());
        c.inFlight.clear();
        unanswered.addAll(c.routed.values());
        c.routed.clear();
      }
      progressOwners.clear();
    }
    if (first && !CLOSED_REASON.equals(reason)) {
      LOG.warn("the backend of {} ended ({}); {} call(s) interrupted, none replayed", name(),
          LogSafe.escape(reason, 200), interrupted.size());
    }
    for (InFlight r : interrupted) {
      deliver(r.channel, interrupted(r.id, why));
    }
    for (Routed r : unanswered) {
      r.reply().complete(new Error(INTERNAL_ERROR, "the backend ended before the client answered " + r.method()));
    }
    List<Subscription> waiting = new ArrayList<>();
    synchronized (subscriptionLock) {
      for (Subscription s : subscriptions.values()) {
        if (s.accepted == null) {
          waiting.add(s);
        }
      }
    }
    // Subscribers waiting for the backend's answer to a subscribe are interrupted like calls.
    SessionException gone = new SessionException(SessionException.Kind.EXITED, why);
    waiting.forEach(s -> s.ready.completeExceptionally(gone));
    return why;
  }

  private Map<String, Object> interrupted(Object id, String why) {
    Map<String, Object> data = new LinkedHashMap<>();
    data.put("server", serverName);
    data.put("reason", why);
    return error(id, CALL_INTERRUPTED, CALL_INTERRUPTED_PREFIX + " the backend of " + name() + " ended ("
        + LogSafe.escape(why, 200) + "); the call was not replayed", data);
  }

  /** What a failed backend answer says about the backend. */
  private static String reason(Throwable failure) {
    Throwable c = failure;
    while ((c instanceof CompletionException || c instanceof ExecutionException) && c.getCause() != null) {
      c = c.getCause();
    }
    if (c instanceof SessionException) {
      String m = c.getMessage();
      return m == null ? ((SessionException) c).kind().name().toLowerCase(java.util.Locale.ROOT) : m;
    }
    return "its answer failed: " + c.getClass().getSimpleName();
  }

  private static boolean cancellation(Throwable failure) {
    Throwable c = failure;
    while (c instanceof CompletionException && c.getCause() != null) {
      c = c.getCause();
    }
    return c instanceof CancellationException;
  }

  // ---- the backend's own requests, for the multiplexer's upkeep ----

  /** Writes an upkeep request whose answer only matters when it says the backend is gone. */
  private void upkeep(Bound b, String method, Map<String, Object> params) {
    if (ended != null) {
      return;
    }
    try {
      b.backend().request(method, params).whenComplete((answer, failure) -> {
        if (failure != null) {
          if (!cancellation(failure)) {
            ended(reason(failure));
          }
        } else if (answer.containsKey("error")) {
          LOG.debug("{}: the backend refused {}", name(), method);
        }
      });
    } catch (SessionException e) {
      ended(reason(e));
    }
  }

  private void cancelAtBackend(CompletableFuture<Map<String, Object>> future, String reason) {
    Bound b = bound;
    if (b == null || ended != null) {
      return;
    }
    try {
      b.backend().cancel(future, reason);
    } catch (SessionException e) {
      ended(reason(e));
    }
  }

  // ---- logging levels ----

  /** Sets {@code c}'s level (null: none) and sends the backend the finest level now held, when it changed. */
  private void level(Channel c, @Nullable LogLevel level) {
    synchronized (levelLock) {
      c.level = level;
      List<Channel> all;
      synchronized (lock) {
        all = new ArrayList<>(channels.values());
      }
      LogLevel finest = null;
      for (Channel o : all) {
        LogLevel l = o.level;
        if (l != null && (finest == null || l.compareTo(finest) < 0)) {
          finest = l;
        }
      }
      Bound b = bound;
      if (finest == null || finest == upstreamLevel || b == null || !b.logging() || ended != null) {
        return;
      }
      upstreamLevel = finest;
      Map<String, Object> p = new LinkedHashMap<>();
      p.put("level", finest.wire());
      upkeep(b, "logging/setLevel", withOwnMeta(b, c, p));
    }
  }

  // ---- subscriptions ----

  private void subscribe(Bound b, Channel c, Object id, Map<String, Object> params) {
    Object uri = params.get("uri");
    if (!(uri instanceof String)) {
      deliver(c, error(id, INVALID_PARAMS, "Invalid params: resources/subscribe needs a uri", null));
      return;
    }
    String u = (String) uri;
    CompletableFuture<Map<String, Object>> ready;
    synchronized (subscriptionLock) {
      if (c.closed) {
        return;
      }
      Subscription s = subscriptions.get(u);
      boolean first = s == null;
      if (first) {
        s = new Subscription(u);
        subscriptions.put(u, s);
      }
      s.members.add(c);
      c.subscribed.add(u);
      ready = s.ready;
      if (first) {
        Map<String, Object> p = backendParams(b, c, params);
        Object meta = p.get("_meta");
        if (meta instanceof Map<?, ?>) {
          ((Map<?, ?>) meta).remove("progressToken");
        }
        calls.incrementAndGet();
        Subscription fs = s;
        try {
          b.backend().request("resources/subscribe", p).whenComplete((answer, failure) -> subscribed(b, fs, answer, failure));
        } catch (SessionException e) {
          subscribed(b, s, null, e);
        }
      }
    }
    ready.whenComplete((answer, failure) -> {
      if (c.closed) {
        return;
      }
      if (failure != null) {
        deliver(c, interrupted(id, ended(reason(failure))));
      } else {
        deliver(c, answer(id, answer));
      }
    });
  }

  /** The backend answered the subscribe of {@code s}. */
  private void subscribed(Bound b, Subscription s, @Nullable Map<String, Object> answer, @Nullable Throwable failure) {
    boolean accepted = failure == null && answer != null && !answer.containsKey("error");
    synchronized (subscriptionLock) {
      s.accepted = accepted;
      if (!accepted) {
        subscriptions.remove(s.uri, s);
        s.members.forEach(m -> m.subscribed.remove(s.uri));
        s.members.clear();
      } else if (s.members.isEmpty() && subscriptions.remove(s.uri, s)) {
        // Every subscriber left while the backend was answering.
        unsubscribeAtBackend(b, s);
      }
    }
    if (failure != null) {
      s.ready.completeExceptionally(failure);
    } else {
      s.ready.complete(Objects.requireNonNull(answer));
    }
  }

  /** Removes {@code c} from the subscribers of {@code uri}; the backend unsubscribes when the last one leaves. */
  private void leave(Bound b, Channel c, String uri) {
    synchronized (subscriptionLock) {
      c.subscribed.remove(uri);
      Subscription s = subscriptions.get(uri);
      if (s == null || !s.members.remove(c) || !s.members.isEmpty()) {
        return;
      }
      s.lastLeft = c;
      if (s.accepted != null) {
        subscriptions.remove(uri, s);
        if (s.accepted) {
          unsubscribeAtBackend(b, s);
        }
      }
      // Otherwise the backend's answer to the subscribe decides (subscribed).
    }
  }

  /** Under the subscription lock. */
  private void unsubscribeAtBackend(Bound b, Subscription s) {
    Map<String, Object> p = new LinkedHashMap<>();
    p.put("uri", s.uri);
    Channel on = s.lastLeft;
    upkeep(b, "resources/unsubscribe", on == null ? p : withOwnMeta(b, on, p));
  }

  // ---- messages ----

  /**
   * The params a client's request carries to the backend: a copy, with the era's {@code _meta}
   * entries built from the client's initialize params for a legacy client of a discover-era
   * backend.
   */
  private static Map<String, Object> backendParams(Bound b, Channel c, Map<String, Object> params) {
    Map<String, Object> out = new LinkedHashMap<>(params);
    Object m = params.get("_meta");
    Map<String, Object> meta = m instanceof Map<?, ?> ? new LinkedHashMap<>(object(m)) : null;
    if (b.era() == HandshakeEra.DISCOVER && c.legacyClient) {
      meta = meta == null ? new LinkedHashMap<>() : meta;
      meta.putAll(Mcp.modernMeta(c.clientInfo, c.capabilities));
    }
    if (meta != null) {
      out.put("_meta", meta);
    }
    return out;
  }

  /** {@code params} with the era entries of {@code c} for a request the multiplexer writes itself. */
  private static Map<String, Object> withOwnMeta(Bound b, Channel c, Map<String, Object> params) {
    if (b.era() != HandshakeEra.DISCOVER) {
      return params;
    }
    Map<String, Object> meta;
    if (c.legacyClient) {
      meta = Mcp.modernMeta(c.clientInfo, c.capabilities);
    } else if (!c.eraMeta.isEmpty()) {
      meta = new LinkedHashMap<>(c.eraMeta);
    } else {
      meta = Mcp.modernMeta(OWN_CLIENT_INFO, Map.of());
    }
    params.put("_meta", meta);
    return params;
  }

  /** The initialize result a client is answered with (rules 3 and 4). */
  private static Map<String, Object> initializeResult(Bound b, Channel c, Map<String, Object> params) {
    if (b.era() == HandshakeEra.INITIALIZE) {
      return b.handshake();
    }
    Object v = params.get("protocolVersion");
    String version = v instanceof String && !((String) v).isEmpty() ? (String) v
        : c.legacyClient ? c.requestedVersion : Mcp.LEGACY_VERSION;
    Map<String, Object> r = new LinkedHashMap<>();
    r.put("protocolVersion", version);
    r.put("capabilities", b.handshake().getOrDefault("capabilities", Map.of()));
    r.put("serverInfo", b.handshake().getOrDefault("serverInfo", Map.of()));
    if (b.handshake().containsKey("instructions")) {
      r.put("instructions", b.handshake().get("instructions"));
    }
    return r;
  }

  /** The backend's answer to a client under the client's id: its {@code result} or its {@code error}. */
  private static Map<String, Object> answer(Object id, Map<String, Object> backendAnswer) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("jsonrpc", "2.0");
    m.put("id", id);
    if (backendAnswer.containsKey("error")) {
      m.put("error", backendAnswer.get("error"));
    } else {
      Object r = backendAnswer.get("result");
      m.put("result", r == null ? Json.NULL : r);
    }
    return m;
  }

  private static Map<String, Object> result(Object id, Object result) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("jsonrpc", "2.0");
    m.put("id", id);
    m.put("result", result);
    return m;
  }

  private static Map<String, Object> error(Object id, int code, String message, @Nullable Map<String, Object> data) {
    Map<String, Object> e = new LinkedHashMap<>();
    e.put("code", code);
    e.put("message", message);
    if (data != null) {
      e.put("data", data);
    }
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("jsonrpc", "2.0");
    m.put("id", id);
    m.put("error", e);
    return m;
  }

  private static Map<String, Object> notification(String method, Map<String, Object> params) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("jsonrpc", "2.0");
    m.put("method", method);
    m.put("params", params);
    return m;
  }

  /**
   * The key under which a JSON-RPC id is matched: its type and value, a number by its numeric
   * value ({@code 1} and {@code 1.0} match, {@code "1"} does not); null for anything that is not
   * a string or a number.
   */
  static @Nullable String idKey(@Nullable Object id) {
    if (id instanceof String) {
      return "s:" + id;
    }
    if (id instanceof Number) {
      try {
        return "n:" + new BigDecimal(id.toString()).stripTrailingZeros().toPlainString();
      } catch (NumberFormatException e) {
        return "n:" + id;
      }
    }
    return null;
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> object(@Nullable Object value) {
    return value instanceof Map<?, ?> ? (Map<String, Object>) value : Map.of();
  }

  private void deliver(Channel c, Map<String, Object> message) {
    try {
      c.sink.send(message);
    } catch (RuntimeException e) {
      LOG.debug("{}: the sink of session {} failed: {}", name(), LogSafe.escape(c.sessionId, 80), e.toString());
    }
  }

  private String name() {
    return "'" + LogSafe.escape(serverName, 80) + "'";
  }

  @Override
  public String toString() {
    return "Multiplexer[" + name() + ", " + attached() + " attached" + (ended == null ? "" : ", ended") + "]";
  }

  /** One attached client. */
  private final class Channel implements ClientChannel {
    final String sessionId;
    final ClientSink sink;
    final boolean legacyClient;
    final String requestedVersion;
    final Map<String, Object> clientInfo;
    final Map<String, Object> capabilities;
    /** Client id key to its call; guarded by the lock. */
    final Map<String, InFlight> inFlight = new HashMap<>();
    /** Client-side id key to a server request routed here; guarded by the lock. */
    final Map<String, Routed> routed = new HashMap<>();
    /** Guarded by the subscription lock. */
    final Set<String> subscribed = new LinkedHashSet<>();
    /** Written under the level lock. */
    volatile @Nullable LogLevel level;
    /** The era entries of this modern client's latest request. */
    volatile Map<String, Object> eraMeta = Map.of();
    /** Written under the lock. */
    volatile boolean closed;

    Channel(String sessionId, ClientSink sink, boolean legacyClient, String requestedVersion,
        Map<String, Object> clientInfo, Map<String, Object> capabilities) {
      this.sessionId = sessionId;
      this.sink = sink;
      this.legacyClient = legacyClient;
      this.requestedVersion = requestedVersion;
      this.clientInfo = clientInfo;
      this.capabilities = capabilities;
    }

    @Override
    public String sessionId() {
      return sessionId;
    }

    @Override
    public void fromClient(Map<String, Object> jsonRpcMessage) {
      Objects.requireNonNull(jsonRpcMessage, "jsonRpcMessage");
      if (closed) {
        LOG.debug("{}: dropped a message on the closed session {}", name(), LogSafe.escape(sessionId, 80));
        return;
      }
      Bound b = Objects.requireNonNull(bound);
      Object method = jsonRpcMessage.get("method");
      boolean hasId = jsonRpcMessage.containsKey("id");
      Object id = jsonRpcMessage.get("id");
      if (method instanceof String) {
        Object p = jsonRpcMessage.get("params");
        boolean objectParams = p == null || p == Json.NULL || p instanceof Map<?, ?>;
        Map<String, Object> params = object(p);
        if (!hasId) {
          if (objectParams) {
            notification(b, (String) method, params);
          }
          return;
        }
        if (idKey(id) == null) {
          deliver(this, error(Json.NULL, INVALID_REQUEST, "Invalid Request: a request id must be a string or a number", null));
          return;
        }
        if (!objectParams) {
          deliver(this, error(Objects.requireNonNull(id), INVALID_PARAMS, "Invalid params: params must be an object", null));
          return;
        }
        request(b, (String) method, Objects.requireNonNull(id), params);
        return;
      }
      if (hasId && (jsonRpcMessage.containsKey("result") || jsonRpcMessage.containsKey("error"))) {
        answered(jsonRpcMessage);
        return;
      }
      LOG.debug("{}: dropped a message of session {} that is neither a request, a notification nor an answer", name(),
          LogSafe.escape(sessionId, 80));
    }

    private void request(Bound b, String method, Object id, Map<String, Object> params) {
      String over = ended;
      if (over != null) {
        deliver(this, interrupted(id, over));
        return;
      }
      if (b.era() == HandshakeEra.DISCOVER && !legacyClient) {
        Map<String, Object> meta = object(params.get("_meta"));
        if (meta.containsKey(Mcp.META_PROTOCOL_VERSION)) {
          Map<String, Object> era = new LinkedHashMap<>();
          for (String k : List.of(Mcp.META_PROTOCOL_VERSION, Mcp.META_CLIENT_CAPABILITIES, Mcp.META_CLIENT_INFO)) {
            if (meta.containsKey(k)) {
              era.put(k, meta.get(k));
            }
          }
          eraMeta = era;
        }
      }
      switch (method) {
        case "initialize":
          deliver(this, result(id, initializeResult(b, this, params)));
          return;
        case "ping":
          deliver(this, result(id, Map.of()));
          return;
        case "server/discover":
          deliver(this, b.era() == HandshakeEra.DISCOVER ? result(id, b.handshake())
              : error(id, METHOD_NOT_FOUND, "Method not found: server/discover (the backend speaks the initialize era)",
                  null));
          return;
        case "logging/setLevel":
          java.util.Optional<LogLevel> l = LogLevel.parse(params.get("level"));
          if (l.isEmpty()) {
            deliver(this, error(id, INVALID_PARAMS, "Invalid params: unknown logging level '"
                + LogSafe.escape(String.valueOf(params.get("level")), 40) + "'; expected one of " + LogLevel.names(), null));
            return;
          }
          level(this, l.get());
          deliver(this, result(id, Map.of()));
          return;
        case "resources/subscribe":
          subscribe(b, this, id, params);
          return;
        case "resources/unsubscribe":
          Object uri = params.get("uri");
          if (!(uri instanceof String)) {
            deliver(this, error(id, INVALID_PARAMS, "Invalid params: resources/unsubscribe needs a uri", null));
            return;
          }
          leave(b, this, (String) uri);
          deliver(this, result(id, Map.of()));
          return;
        default:
          forward(b, method, id, params);
      }
    }

    /** Writes a client request to the backend (rules 1, 2, 4). */
    private void forward(Bound b, String method, Object id, Map<String, Object> params) {
      String key = Objects.requireNonNull(idKey(id));
      Map<String, Object> out = backendParams(b, this, params);
      Object clientToken = null;
      String backendToken = null;
      Object meta = out.get("_meta");
      if (meta instanceof Map<?, ?>) {
        @SuppressWarnings("unchecked")
        Map<String, Object> m = (Map<String, Object>) meta;
        Object token = m.get("progressToken");
        if (token instanceof String || token instanceof Number) {
          clientToken = token;
          backendToken = "cotenant-" + progressTokens.incrementAndGet();
          m.put("progressToken", backendToken);
        }
      }
      InFlight r = new InFlight(this, id, key, backendToken, clientToken);
      Map<String, Object> refusal = null;
      String over;
      synchronized (lock) {
        over = ended;
        if (over == null) {
          if (closed) {
            return;
          }
          if (inFlight.containsKey(key)) {
            refusal = error(id, INVALID_REQUEST, "Invalid Request: id " + LogSafe.escape(String.valueOf(id), 40)
                + " is already in flight on this session", null);
          } else if (inFlight.size() >= settings.maxInFlightPerSession()) {
            refusal = error(id, INTERNAL_ERROR, "too many calls in flight: this session already awaits "
                + inFlight.size() + " answers (" + MuxSettings.MAX_IN_FLIGHT_PER_SESSION + ")", null);
          } else {
            inFlight.put(key, r);
            if (backendToken != null) {
              progressOwners.put(backendToken, r);
            }
          }
        }
      }
      if (over != null) {
        deliver(this, interrupted(id, over));
        return;
      }
      if (refusal != null) {
        deliver(this, refusal);
        return;
      }
      calls.incrementAndGet();
      CompletableFuture<Map<String, Object>> f;
      try {
        f = b.backend().request(method, out);
      } catch (SessionException e) {
        // The call is in flight: the end answers it.
        ended(reason(e));
        return;
      }
      boolean cancel;
      String why;
      synchronized (lock) {
        r.future = f;
        cancel = r.cancelled;
        why = r.cancelReason;
      }
      if (cancel) {
        cancelAtBackend(f, why);
      }
      f.whenComplete((answer, failure) -> finish(r, answer, failure));
    }

    /** The backend answered {@code r}, or the answer failed. */
    private void finish(InFlight r, @Nullable Map<String, Object> answer, @Nullable Throwable failure) {
      boolean mine;
      synchronized (lock) {
        mine = inFlight.remove(r.key, r);
        if (r.backendToken != null) {
          progressOwners.remove(r.backendToken, r);
        }
      }
      if (failure != null) {
        if (cancellation(failure)) {
          return;
        }
        String why = ended(reason(failure));
        if (mine) {
          deliver(this, interrupted(r.id, why));
        }
        return;
      }
      if (mine && answer != null) {
        deliver(this, answer(r.id, answer));
      }
    }

    private void notification(Bound b, String method, Map<String, Object> params) {
      switch (method) {
        case "notifications/initialized":
          return;
        case "notifications/cancelled":
          cancelled(params);
          return;
        default:
          if (ended != null) {
            return;
          }
          try {
            b.backend().notify(method, params);
          } catch (SessionException e) {
            ended(reason(e));
          }
      }
    }

    /** The client cancelled one of its calls (rule 2). */
    private void cancelled(Map<String, Object> params) {
      String key = idKey(params.get("requestId"));
      if (key == null) {
        return;
      }
      String reason = params.get("reason") instanceof String ? (String) params.get("reason") : "cancelled by the client";
      CompletableFuture<Map<String, Object>> f;
      synchronized (lock) {
        InFlight r = inFlight.remove(key);
        if (r == null) {
          return;
        }
        r.cancelled = true;
        r.cancelReason = reason;
        if (r.backendToken != null) {
          progressOwners.remove(r.backendToken, r);
        }
        f = r.future;
      }
      if (f != null) {
        cancelAtBackend(f, reason);
      }
    }

    /** The client answered a server request routed to it (rule 6). */
    private void answered(Map<String, Object> message) {
      String key = idKey(message.get("id"));
      Routed r;
      synchronized (lock) {
        r = key == null ? null : routed.remove(key);
      }
      if (r == null) {
        LOG.debug("{}: dropped an answer of session {} to a request it was not sent", name(), LogSafe.escape(sessionId, 80));
        return;
      }
      Object e = message.get("error");
      if (e instanceof Map<?, ?>) {
        Map<String, Object> err = object(e);
        int code = err.get("code") instanceof Number ? ((Number) err.get("code")).intValue() : INTERNAL_ERROR;
        String text = err.get("message") instanceof String ? (String) err.get("message") : "";
        r.reply().complete(new Error(code, text));
        return;
      }
      Object result = message.get("result");
      if (result instanceof Map<?, ?>) {
        r.reply().complete(new Result(Json.freezeMap(object(result))));
      } else if (result == null || result == Json.NULL) {
        r.reply().complete(new Result(Map.of()));
      } else {
        r.reply().complete(new Error(INTERNAL_ERROR, "the client answered " + r.method() + " with a result that is not an object"));
      }
    }

    @Override
    public void close() {
      List<CompletableFuture<Map<String, Object>>> cancel = new ArrayList<>();
      List<Routed> unanswered;
      String reason = "the client session closed";
      synchronized (lock) {
        if (closed) {
          return;
        }
        closed = true;
        channels.remove(sessionId, this);
        for (InFlight r : inFlight.values()) {
          r.cancelled = true;
          r.cancelReason = reason;
          if (r.backendToken != null) {
            progressOwners.remove(r.backendToken, r);
          }
          if (r.future != null) {
            cancel.add(r.future);
          }
        }
        inFlight.clear();
        unanswered = new ArrayList<>(routed.values());
        routed.clear();
      }
      cancel.forEach(f -> cancelAtBackend(f, reason));
      for (Routed r : unanswered) {
        r.reply().complete(new Error(INTERNAL_ERROR, "the client session closed before answering " + r.method()));
      }
      Bound b = bound;
      if (b != null) {
        List<String> uris;
        synchronized (subscriptionLock) {
          uris = new ArrayList<>(subscribed);
        }
        uris.forEach(u -> leave(b, this, u));
      }
      level(this, null);
      LOG.debug("session {} left the backend of {}", LogSafe.escape(sessionId, 80), name());
    }

    @Override
    public String toString() {
      return "ClientChannel[" + LogSafe.escape(sessionId, 80) + " on " + name() + "]";
    }
  }
}
