package dev.cotenant.gateway.mux;

import dev.cotenant.api.Json;
import dev.cotenant.api.LogSafe;
import dev.cotenant.spi.SessionException;
import dev.cotenant.spi.rpc.Envelope;
import dev.cotenant.spi.rpc.ErrorCode;
import dev.cotenant.spi.rpc.RequestId;
import dev.cotenant.spi.rpc.RpcMessage;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client session attached to a {@link Multiplexer}: takes what the client sends, answers
 * locally what the multiplexer answers itself ({@link LocalAnswers}), forwards the rest to the
 * backend under the {@link InFlightTable}, and hands the client's answers to the server's
 * requests to {@link ServerRequests}. Thread-safe.
 */
final class Channel implements ClientChannel {
  private static final Logger LOG = LoggerFactory.getLogger(Multiplexer.class);
  private static final String CLOSED = "the client session closed";

  final String sessionId;
  final ClientSink sink;
  final boolean legacyClient;
  final String requestedVersion;
  final Map<String, Object> clientInfo;
  final Map<String, Object> capabilities;
  /** The protocol version this legacy client is answered in {@code initialize}; null for the backend's own. */
  final @Nullable String answeredVersion;
  private final Multiplexer mux;
  /** Written under the level lock. */
  volatile @Nullable LogLevel level;
  /** The era entries of this modern client's latest request. */
  volatile Map<String, Object> eraMeta = Map.of();
  /** Written under the routing lock. */
  volatile boolean closed;

  Channel(Multiplexer mux, String sessionId, ClientSink sink, boolean legacyClient, String requestedVersion,
      Map<String, Object> clientInfo, Map<String, Object> capabilities, @Nullable String answeredVersion) {
    this.answeredVersion = answeredVersion;
    this.mux = mux;
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
    RpcMessage m;
    try {
      m = RpcMessage.read(jsonRpcMessage);
    } catch (RpcMessage.InvalidMessage e) {
      invalid(jsonRpcMessage, e);
      return;
    }
    fromClient(m);
  }

  @Override
  public void invalid(Map<String, Object> json, RpcMessage.InvalidMessage why) {
    if (closed) {
      return;
    }
    if (json.get("method") instanceof String) {
      // A request whose id is neither a string nor a number: it cannot be answered under its id.
      mux.deliver(this, Envelope.error(null, ErrorCode.INVALID_REQUEST,
          "Invalid Request: a request id must be a string or a number"));
      return;
    }
    LOG.debug("{}: dropped a message of session {} that is neither a request, a notification nor an answer ({})",
        mux.name(), LogSafe.escape(sessionId, 80), why.getMessage());
  }

  @Override
  public void fromClient(RpcMessage message) {
    Objects.requireNonNull(message, "message");
    if (closed) {
      LOG.debug("{}: dropped a message on the closed session {}", mux.name(), LogSafe.escape(sessionId, 80));
      return;
    }
    Bound b = Objects.requireNonNull(mux.bound());
    if (message instanceof RpcMessage.Request r) {
      if (!objectParams(r.json())) {
        mux.deliver(this, Envelope.error(r.id(), ErrorCode.INVALID_PARAMS, "Invalid params: params must be an object"));
        return;
      }
      request(b, r.id(), r.method(), r.paramsOrEmpty());
    } else if (message instanceof RpcMessage.Notification n) {
      if (objectParams(n.json())) {
        notification(b, n.method(), n.paramsOrEmpty());
      }
    } else {
      mux.serverRequests.answered(this, (RpcMessage.Response) message);
    }
  }

  private static boolean objectParams(Map<String, Object> json) {
    Object p = json.get("params");
    return p == null || p == Json.NULL || p instanceof Map<?, ?>;
  }

  private void request(Bound b, RequestId id, String method, Map<String, Object> params) {
    String over = mux.endedReason();
    if (over != null) {
      mux.deliver(this, mux.interrupted(id, over));
      return;
    }
    if (b.discover() && !legacyClient) {
      Map<String, Object> era = EraBridge.eraEntries(params);
      if (!era.isEmpty()) {
        eraMeta = era;
      }
    }
    if (!LocalAnswers.answer(mux, b, this, id, method, params)) {
      forward(b, id, method, params);
    }
  }

  /** Writes a client request to the backend (rules 1, 2, 4). */
  private void forward(Bound b, RequestId id, String method, Map<String, Object> params) {
    Map<String, Object> out = EraBridge.backendParams(b, this, params);
    Object clientToken = null;
    String backendToken = null;
    if (out.get("_meta") instanceof Map<?, ?> meta) {
      Object token = meta.get("progressToken");
      if (token instanceof String || token instanceof Number) {
        clientToken = token;
        backendToken = mux.inFlight.newProgressToken();
        @SuppressWarnings("unchecked")
        Map<String, Object> m = (Map<String, Object>) meta;
        m.put("progressToken", backendToken);
      }
    }
    InFlightTable.Call call = new InFlightTable.Call(this, id, backendToken, clientToken);
    Map<String, Object> refusal = null;
    String over;
    synchronized (mux.lock) {
      over = mux.endedReason();
      if (over == null) {
        if (closed) {
          return;
        }
        refusal = mux.inFlight.enter(call, mux.settings.maxInFlightPerSession());
      }
    }
    if (over != null) {
      mux.deliver(this, mux.interrupted(id, over));
      return;
    }
    if (refusal != null) {
      mux.deliver(this, refusal);
      return;
    }
    mux.counted();
    CompletableFuture<Map<String, Object>> f;
    try {
      f = b.backend().request(method, out);
    } catch (SessionException e) {
      // The call is in flight: the end answers it.
      mux.ended(Multiplexer.reason(e));
      return;
    }
    boolean cancel;
    String why;
    synchronized (mux.lock) {
      call.future = f;
      cancel = call.cancelled;
      why = call.cancelReason;
    }
    if (cancel) {
      mux.cancelAtBackend(f, why);
    }
    f.whenComplete((answer, failure) -> finish(call, answer, failure));
  }

  /** The backend answered {@code call}, or the answer failed. */
  private void finish(InFlightTable.Call call, @Nullable Map<String, Object> answer, @Nullable Throwable failure) {
    boolean mine;
    synchronized (mux.lock) {
      mine = mux.inFlight.taken(call);
    }
    if (failure != null) {
      if (Multiplexer.cancellation(failure)) {
        return;
      }
      String why = mux.ended(Multiplexer.reason(failure));
      if (mine) {
        mux.deliver(this, mux.interrupted(call.id, why));
      }
      return;
    }
    if (mine && answer != null) {
      mux.deliver(this, Envelope.answer(call.id, answer));
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
        if (mux.endedReason() != null) {
          return;
        }
        try {
          b.backend().notify(method, params);
        } catch (SessionException e) {
          mux.ended(Multiplexer.reason(e));
        }
    }
  }

  /** The client cancelled one of its calls (rule 2). */
  private void cancelled(Map<String, Object> params) {
    RequestId id = RequestId.parse(params.get("requestId"));
    if (id == null) {
      return;
    }
    String reason = params.get("reason") instanceof String s ? s : "cancelled by the client";
    CompletableFuture<Map<String, Object>> f;
    synchronized (mux.lock) {
      InFlightTable.Call c = mux.inFlight.cancel(this, id, reason);
      if (c == null) {
        return;
      }
      f = c.future;
    }
    if (f != null) {
      mux.cancelAtBackend(f, reason);
    }
  }

  @Override
  public void close() {
    List<CompletableFuture<Map<String, Object>>> cancel;
    List<ServerRequests.Routed> unanswered;
    synchronized (mux.lock) {
      if (closed) {
        return;
      }
      closed = true;
      mux.detachLocked(this);
      cancel = mux.inFlight.leave(this, CLOSED);
      unanswered = mux.serverRequests.leaveLocked(this);
    }
    cancel.forEach(f -> mux.cancelAtBackend(f, CLOSED));
    ServerRequests.fail(unanswered, "the client session closed before answering ");
    Bound b = mux.bound();
    if (b != null) {
      mux.subscriptions.leaveAll(b, this);
    }
    mux.levels.set(this, null);
    LOG.debug("session {} left the backend of {}", LogSafe.escape(sessionId, 80), mux.name());
  }

  @Override
  public String toString() {
    return "ClientChannel[" + LogSafe.escape(sessionId, 80) + " on " + mux.name() + "]";
  }
}
