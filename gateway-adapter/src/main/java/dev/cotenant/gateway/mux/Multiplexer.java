package dev.cotenant.gateway.mux;

import dev.cotenant.api.HazardCode;
import dev.cotenant.api.Json;
import dev.cotenant.api.LogSafe;
import dev.cotenant.spi.HandshakeEra;
import dev.cotenant.spi.Mcp;
import dev.cotenant.spi.ServerMessageHandler;
import dev.cotenant.spi.ServerSession;
import dev.cotenant.spi.SessionException;
import dev.cotenant.spi.rpc.Envelope;
import dev.cotenant.spi.rpc.ErrorCode;
import dev.cotenant.spi.rpc.RequestId;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
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
 *       id still in flight on its session is answered {@link ErrorCode#INVALID_REQUEST} and not forwarded;
 *       one with more than {@link MuxSettings#maxInFlightPerSession()} calls awaiting answers is
 *       answered {@link ErrorCode#INTERNAL_ERROR} {@code "too many calls in flight ..."}.
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
 *       told to take a dedicated backend by {@link #attach}, unless it is attached with the version
 *       it is to be answered ({@link #attach(String, Map, Optional, ClientSink)}: evidence says the
 *       server answers clients of both versions alike), which its {@code initialize} answer then
 *       carries ({@link EraBridge}).
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
 *       {@link ErrorCode#INVALID_PARAMS}. When no client holds a level any more, the backend keeps the
 *       last one (its own default cannot be restored).
 *   <li><b>Server requests.</b> {@code ping} is answered locally. Any other request
 *       ({@code sampling/createMessage}, {@code elicitation/create}, {@code roots/list}, ...) goes
 *       to its owner, and a backend request names none: the owner is the only attached session.
 *       It reaches that client under a client-side id ({@code "cotenant-<n>"}), and the backend's
 *       reply is written when the client answers ({@link #onRequestAsync}; a client's error
 *       answer is passed on with its code and message; a session that closes first makes it
 *       {@link ErrorCode#INTERNAL_ERROR}). A request that comes before any session has attached (a
 *       {@code roots/list} right after the handshake) waits for the first session, for which
 *       the backend was started. A backend {@linkplain #markShared meant for several sessions}
 *       that has asked its only session something takes no other session from then on (the
 *       server would never ask a later one for its own). With two or more sessions attached it goes to nobody, whatever
 *       calls are in flight (timing is not evidence of whom it is for): it is answered
 *       {@link ErrorCode#INTERNAL_ERROR} {@code "cannot route <method>: <N> sessions share this backend
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
 *       subscribe awaiting the backend's answer) is answered with {@link ErrorCode#CALL_INTERRUPTED} and
 *       a message starting {@code "call interrupted:"} that names the server and the reason, with
 *       {@code data: {"server", "reason"}}. Nothing is ever replayed: the backend may have acted on the call. Every later
 *       request on any channel is answered the same way, and {@link #attach} says
 *       {@link Attach.NeedsDedicated}, until the caller moves its clients to a new backend.
 *   <li><b>Counting.</b> {@link #calls()} counts the requests written to the backend for clients;
 *       {@link #hazards()} the observations made.
 * </ol>
 *
 * <p><b>Structure.</b> This class is the facade and the owner of the routing state (the attached
 * sessions, the bound backend, its end); each concern has a class of its own: {@link Channel}
 * (one attached session), {@link InFlightTable} (rules 1 and 2), {@link LocalAnswers} (what is
 * answered without the backend), {@link EraBridge} (rules 3 and 4), {@link LogLevels} (rule 5),
 * {@link ServerRequests} (rule 6), {@link ServerNotifications} (rules 7 and 8) and
 * {@link Subscriptions} (rule 8). Every envelope is built by {@link Envelope}.
 *
 * <p><b>Ownership.</b> A message handed in through {@link ClientChannel#fromClient} belongs to the
 * multiplexer from then on: its params may be passed to the backend as they are, and the caller
 * must not change it afterwards. A message given to a {@link ClientSink} belongs to the sink.
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
  /** How the message of every {@link ErrorCode#CALL_INTERRUPTED} error starts. */
  public static final String CALL_INTERRUPTED_PREFIX = "call interrupted:";

  private static final Logger LOG = LoggerFactory.getLogger(Multiplexer.class);
  private static final String CLOSED_REASON = "the multiplexer was closed";

  private final String serverName;
  private final HazardSink hazardSink;
  final MuxSettings settings;
  /**
   * The routing lock, held only for table updates: no backend write and no {@link ClientSink#send}
   * under it. Lock order: the level lock, then the subscription lock, then this one; never back.
   */
  final Object lock = new Object();
  /** Guarded by the lock. */
  private final Map<String, Channel> channels = new LinkedHashMap<>();
  final InFlightTable inFlight = new InFlightTable();
  final ServerRequests serverRequests = new ServerRequests(this);
  private final ServerNotifications notifications = new ServerNotifications(this);
  final Subscriptions subscriptions = new Subscriptions(this);
  final LogLevels levels = new LogLevels(this);
  /** Why the backend can no longer be used; null while it can. Written under the lock. */
  private volatile @Nullable String ended;
  /** Written under the lock. */
  private volatile @Nullable Bound bound;
  private final AtomicLong calls = new AtomicLong();
  private final AtomicInteger hazards = new AtomicInteger();

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
    // Kept, and replayed to every client: frozen once, so that no client's copy reaches another.
    Map<String, Object> handshake = Json.freezeMap(initializeResultOrDiscover);
    String version = handshake.get("protocolVersion") instanceof String s ? s : "";
    if (e == HandshakeEra.INITIALIZE && version.isEmpty()) {
      throw new IllegalArgumentException("an initialize result without a protocolVersion cannot be replayed to clients");
    }
    boolean logging = EraBridge.object(handshake.get("capabilities")).containsKey("logging");
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
    serverRequests.markShared();
  }

  /**
   * The method of the first request this shared backend sent its only session, after which it
   * takes no other session; empty while none.
   */
  public Optional<String> askedClient() {
    return serverRequests.askedClient();
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
    return attach(sessionId, clientInitializeParams, Optional.empty(), toClient);
  }

  /**
   * Attaches a client session as {@link #attach(String, Map, ClientSink)} does; with
   * {@code answeredVersion}, a legacy client that asked for another protocol version than the
   * backend negotiated is attached all the same, and answered {@code initialize} with
   * {@code answeredVersion} (the version the server negotiates for the one it asked, on evidence
   * that it answers clients of both alike), the rest of the backend's {@code initialize} result as
   * it is. The one place versions are bridged ({@link EraBridge}).
   */
  public Attach attach(String sessionId, Map<String, Object> clientInitializeParams, Optional<String> answeredVersion,
      ClientSink toClient) {
    Objects.requireNonNull(sessionId, "sessionId");
    Objects.requireNonNull(clientInitializeParams, "clientInitializeParams");
    Objects.requireNonNull(answeredVersion, "answeredVersion");
    Objects.requireNonNull(toClient, "toClient");
    Bound b = bound;
    if (b == null) {
      throw new IllegalStateException("bind the backend of " + serverName + " before attaching clients");
    }
    String requested = clientInitializeParams.get("protocolVersion") instanceof String v && !v.isEmpty() ? v
        : Mcp.MODERN_VERSION;
    boolean legacyClient = !Mcp.MODERN_VERSION.equals(requested);
    boolean bridged = legacyClient && answeredVersion.isPresent();
    if (b.era() == HandshakeEra.INITIALIZE && !requested.equals(b.version()) && !bridged) {
      return new Attach.NeedsDedicated(legacyClient
          ? "the client asks for protocol version " + LogSafe.escape(requested, 40) + "; the shared backend of "
              + name() + " negotiated " + LogSafe.escape(b.version(), 40)
          : "the client speaks " + Mcp.MODERN_VERSION + " per request; the shared backend of " + name()
              + " was initialized with protocol version " + LogSafe.escape(b.version(), 40));
    }
    Channel c = new Channel(this, sessionId, toClient, legacyClient, requested,
        Json.freezeMap(EraBridge.object(clientInitializeParams.get("clientInfo"))),
        Json.freezeMap(EraBridge.object(clientInitializeParams.get("capabilities"))),
        bridged ? answeredVersion.get() : null);
    List<ServerRequests.Routed> early;
    synchronized (lock) {
      String over = ended;
      if (over != null) {
        return new Attach.NeedsDedicated("the shared backend of " + name() + " has ended: " + over);
      }
      Optional<String> asked = serverRequests.askedClient();
      if (asked.isPresent()) {
        return new Attach.NeedsDedicated("the shared backend of " + name() + " asked its session for "
            + LogSafe.escape(asked.get(), 80) + ", and would never ask another session for its own");
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
      early = serverRequests.attachedLocked(channels.size());
    }
    LOG.debug("session {} attached to the backend of {}", LogSafe.escape(sessionId, 80), name());
    // What the backend asked before any session attached (a roots/list right after its handshake)
    // is the first session's: the backend was started for it.
    serverRequests.routeParked(early);
    return new Attach.Attached(c);
  }

  /**
   * Why the backend ended, once the multiplexer has seen it end ({@link #backendExited}, a failed
   * write or answer); empty while it serves.
   */
  public Optional<String> ended() {
    return Optional.ofNullable(ended);
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
   * Says the backend has died: every call in flight is answered
   * {@link ErrorCode#CALL_INTERRUPTED} {@code "call interrupted: ..."} naming the server and
   * {@code reason}, and so is every later request. Nothing is replayed. Idempotent; the first
   * reason stays.
   */
  public void backendExited(String reason) {
    ended(Objects.requireNonNull(reason, "reason"));
  }

  /**
   * Stops multiplexing: every call in flight is cancelled at the backend and answered
   * {@link ErrorCode#CALL_INTERRUPTED} ({@code "the multiplexer was closed"}), every channel is
   * closed, and {@link #attach} says {@link Attach.NeedsDedicated} from now on. Does not close the
   * backend session: its owner does. Idempotent.
   */
  @Override
  public void close() {
    List<CompletableFuture<Map<String, Object>>> open;
    boolean live;
    List<Channel> all;
    synchronized (lock) {
      live = ended == null;
      open = inFlight.written();
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
      return new Error(ErrorCode.INTERNAL_ERROR.code(), "interrupted while " + method + " awaited a client");
    } catch (ExecutionException e) {
      return new Error(ErrorCode.INTERNAL_ERROR.code(), ErrorCode.INTERNAL_ERROR.title());
    }
  }

  /**
   * Routes a server request (rule 6): {@code ping} answered locally; otherwise sent to its owner
   * and answered when the owner answers, or answered at once with
   * {@link ErrorCode#INTERNAL_ERROR} when there is no owner.
   */
  @Override
  public CompletionStage<Reply> onRequestAsync(String method, Map<String, Object> params) {
    return serverRequests.route(method, params);
  }

  /** Routes a server notification (rules 2, 5, 7, 8). */
  @Override
  public void onNotification(String method, Map<String, Object> params) {
    notifications.route(method, params);
  }

  // ---- shared with the concerns' classes ----

  @Nullable Bound bound() {
    return bound;
  }

  /** Why the backend ended; null while it serves. */
  @Nullable String endedReason() {
    return ended;
  }

  /** The sessions attached now, a copy. */
  List<Channel> channels() {
    synchronized (lock) {
      return new ArrayList<>(channels.values());
    }
  }

  /** Under the lock. */
  int attachedLocked() {
    return channels.size();
  }

  /**
   * The only attached session; null with none or with two or more. Which session has a call in
   * flight says nothing about whom a backend message is for, so it never decides. Under the lock.
   */
  @Nullable Channel ownerLocked() {
    return channels.size() == 1 ? channels.values().iterator().next() : null;
  }

  /** Under the lock. */
  void detachLocked(Channel c) {
    channels.remove(c.sessionId, c);
  }

  /** Counts one request written to the backend for a client. */
  void counted() {
    calls.incrementAndGet();
  }

  void observe(HazardCode code, int attached, String detail) {
    hazards.incrementAndGet();
    LOG.info("{}: observed {} with {} sessions attached: {}", name(), code.wireName(), attached, detail);
    try {
      hazardSink.observed(code, attached, detail);
    } catch (RuntimeException e) {
      LOG.warn("{}: the hazard sink failed on {}: {}", name(), code.wireName(), e.toString());
    }
  }

  void deliver(Channel c, Map<String, Object> message) {
    try {
      c.sink.send(message);
    } catch (RuntimeException e) {
      LOG.debug("{}: the sink of session {} failed: {}", name(), LogSafe.escape(c.sessionId, 80), e.toString());
    }
  }

  String name() {
    return "'" + LogSafe.escape(serverName, 80) + "'";
  }

  @Override
  public String toString() {
    return "Multiplexer[" + name() + ", " + attached() + " attached" + (ended == null ? "" : ", ended") + "]";
  }

  // ---- the end of the backend ----

  /**
   * Ends the backend with {@code reason} unless it already ended, and answers every call in flight
   * with the first reason. Returns that reason.
   */
  String ended(String reason) {
    List<InFlightTable.Call> interrupted;
    List<ServerRequests.Routed> unanswered;
    boolean first;
    String why;
    synchronized (lock) {
      first = ended == null;
      if (first) {
        ended = reason;
      }
      why = Objects.requireNonNull(ended);
      unanswered = serverRequests.drainLocked();
      interrupted = inFlight.drain();
    }
    if (first && !CLOSED_REASON.equals(reason)) {
      LOG.warn("the backend of {} ended ({}); {} call(s) interrupted, none replayed", name(),
          LogSafe.escape(reason, 200), interrupted.size());
    }
    for (InFlightTable.Call r : interrupted) {
      deliver(r.channel, interrupted(r.id, why));
    }
    ServerRequests.fail(unanswered, "the backend ended before the client answered ");
    subscriptions.interruptWaiting(why);
    return why;
  }

  /** The answer to request {@code id} of a call the backend's end interrupted. */
  Map<String, Object> interrupted(RequestId id, String why) {
    Map<String, Object> data = new LinkedHashMap<>();
    data.put("server", serverName);
    data.put("reason", why);
    return Envelope.error(id, ErrorCode.CALL_INTERRUPTED.code(), CALL_INTERRUPTED_PREFIX + " the backend of " + name()
        + " ended (" + LogSafe.escape(why, 200) + "); the call was not replayed", data);
  }

  /** What a failed backend answer says about the backend. */
  static String reason(Throwable failure) {
    Throwable c = failure;
    while ((c instanceof CompletionException || c instanceof ExecutionException) && c.getCause() != null) {
      c = c.getCause();
    }
    if (c instanceof SessionException se) {
      String m = se.getMessage();
      return m == null ? se.kind().name().toLowerCase(Locale.ROOT) : m;
    }
    return "its answer failed: " + c.getClass().getSimpleName();
  }

  static boolean cancellation(Throwable failure) {
    Throwable c = failure;
    while (c instanceof CompletionException && c.getCause() != null) {
      c = c.getCause();
    }
    return c instanceof CancellationException;
  }

  /** Writes an upkeep request whose answer only matters when it says the backend is gone. */
  void upkeep(Bound b, String method, Map<String, Object> params) {
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

  void cancelAtBackend(CompletableFuture<Map<String, Object>> future, String reason) {
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
}
