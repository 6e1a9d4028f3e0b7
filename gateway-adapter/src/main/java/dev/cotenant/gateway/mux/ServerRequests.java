package dev.cotenant.gateway.mux;

import dev.cotenant.api.HazardCode;
import dev.cotenant.api.LogSafe;
import dev.cotenant.spi.ServerMessageHandler.Error;
import dev.cotenant.spi.ServerMessageHandler.Reply;
import dev.cotenant.spi.ServerMessageHandler.Result;
import dev.cotenant.spi.rpc.Envelope;
import dev.cotenant.spi.rpc.ErrorCode;
import dev.cotenant.spi.rpc.RequestId;
import dev.cotenant.spi.rpc.RpcMessage;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The backend's own requests to clients (rule 6 of {@link Multiplexer}): {@code sampling/createMessage},
 * {@code roots/list}, {@code elicitation/create} and the like go to the only attached session
 * under a client-side id ({@code "cotenant-<n>"}), wait for the first session when none has
 * attached yet, and are refused when several sessions share the backend, since nothing in them
 * names one. A request the only session did not declare the capability for ({@code roots/list}
 * without {@code roots}, ...) is answered as that client would, never forwarded
 * ({@link EraBridge#undeclared}). Every table here is guarded by the multiplexer's routing lock.
 */
final class ServerRequests {
  private static final Logger LOG = LoggerFactory.getLogger(Multiplexer.class);

  /** A server request routed to a client (or parked for the first one), awaiting its answer. */
  record Routed(String method, Map<String, Object> params, CompletableFuture<Reply> reply) {}

  private final Multiplexer mux;
  private final AtomicLong ids = new AtomicLong();
  /** Per session, the client-side id of each request routed to it; guarded by the routing lock. */
  private final Map<Channel, Map<RequestId, Routed>> routed = new HashMap<>();
  /** Requests that came while no session was attached, for the first one; guarded by the routing lock. */
  private final List<Routed> parked = new ArrayList<>();
  /** True once a session has attached; guarded by the routing lock. */
  private boolean everAttached;
  /** True when this backend is meant for several sessions. */
  private volatile boolean shared;
  /** The first server request a shared backend sent its only session; null while none. Written under the routing lock. */
  private volatile @Nullable String askedClient;

  ServerRequests(Multiplexer mux) {
    this.mux = mux;
  }

  void markShared() {
    shared = true;
  }

  Optional<String> askedClient() {
    return Optional.ofNullable(askedClient);
  }

  /** A session attached; returns the requests parked for it when it is the first. Under the routing lock. */
  List<Routed> attachedLocked(int attached) {
    everAttached = true;
    if (attached != 1 || parked.isEmpty()) {
      return List.of();
    }
    List<Routed> early = List.copyOf(parked);
    parked.clear();
    return early;
  }

  /** Routes what the backend asked before any session attached (a roots/list right after its handshake) to the first one. */
  void routeParked(List<Routed> early) {
    for (Routed r : early) {
      route(r.method(), r.params()).whenComplete((reply, failure) -> r.reply().complete(
          failure == null ? reply : new Error(ErrorCode.INTERNAL_ERROR.code(), ErrorCode.INTERNAL_ERROR.title())));
    }
  }

  /** Routes one server request: {@code ping} answered locally; otherwise to its owner, or refused. */
  CompletionStage<Reply> route(String method, Map<String, Object> params) {
    if ("ping".equals(method)) {
      return CompletableFuture.completedFuture(new Result(Map.of()));
    }
    Channel owner;
    int attached;
    int busy;
    RequestId clientId = null;
    Routed r = null;
    Reply local = null;
    synchronized (mux.lock) {
      attached = mux.attachedLocked();
      busy = mux.inFlight.busySessions();
      boolean live = mux.ended().isEmpty();
      owner = live ? mux.ownerLocked() : null;
      if (attached == 0 && live && !everAttached) {
        // The backend was started for a session that attaches next: its request waits for it.
        Routed p = new Routed(method, params, new CompletableFuture<>());
        parked.add(p);
        return p.reply();
      }
      if (owner != null) {
        Optional<Reply> undeclared = EraBridge.undeclared(owner, method);
        if (undeclared.isEmpty()) {
          clientId = RequestId.of("cotenant-" + ids.incrementAndGet());
          r = new Routed(method, params, new CompletableFuture<>());
          routed.computeIfAbsent(owner, k -> new HashMap<>()).put(clientId, r);
        } else {
          local = undeclared.get();
        }
        if (shared && askedClient == null) {
          askedClient = method;
          LOG.info("the shared backend of {} asked its only session for {}: it takes no other session", mux.name(),
              LogSafe.escape(method, 80));
        }
      }
    }
    if (local != null) {
      // The only session did not declare what this asks of it: answered as that client would.
      return CompletableFuture.completedFuture(local);
    }
    if (owner == null || r == null || clientId == null) {
      if (attached > 1) {
        mux.observe(HazardCode.UNROUTABLE_SERVER_REQUEST, attached, LogSafe.escape(method, 80) + " from the backend with "
            + attached + " sessions attached (" + busy + " with calls in flight): nothing in it names the session it is for");
      } else {
        LOG.debug("{}: no session to route {} to", mux.name(), LogSafe.escape(method, 80));
      }
      return CompletableFuture.completedFuture(new Error(ErrorCode.INTERNAL_ERROR.code(), "cannot route "
          + LogSafe.escape(method, 80) + ": " + attached + " sessions share this backend and nothing in it names one"));
    }
    mux.deliver(owner, Envelope.request(clientId, method, params));
    return r.reply();
  }

  /** The client {@code c} answered a server request routed to it. */
  void answered(Channel c, RpcMessage.Response answer) {
    Routed r;
    synchronized (mux.lock) {
      Map<RequestId, Routed> mine = routed.get(c);
      r = answer.id() == null || mine == null ? null : mine.remove(answer.id());
    }
    if (r == null) {
      LOG.debug("{}: dropped an answer of session {} to a request it was not sent", mux.name(),
          LogSafe.escape(c.sessionId, 80));
      return;
    }
    RpcMessage.Error e = answer.error();
    if (e != null) {
      r.reply().complete(new Error(e.code(), e.message()));
    } else if (answer.result() instanceof Map<?, ?> result) {
      r.reply().complete(new Result(dev.cotenant.api.Json.freezeMap(EraBridge.object(result))));
    } else if (answer.result() == dev.cotenant.api.Json.NULL) {
      r.reply().complete(new Result(Map.of()));
    } else {
      r.reply().complete(new Error(ErrorCode.INTERNAL_ERROR.code(), "the client answered " + r.method()
          + " with a result that is not an object"));
    }
  }

  /** Takes the requests routed to {@code c} out (it left); the caller fails them, off the lock. Under the routing lock. */
  List<Routed> leaveLocked(Channel c) {
    Map<RequestId, Routed> mine = routed.remove(c);
    return mine == null ? List.of() : new ArrayList<>(mine.values());
  }

  /** Takes every request routed or parked out (the backend ended). Under the routing lock. */
  List<Routed> drainLocked() {
    List<Routed> all = new ArrayList<>(parked);
    parked.clear();
    routed.values().forEach(m -> all.addAll(m.values()));
    routed.clear();
    return all;
  }

  /** Answers each of {@code unanswered} (taken out by {@link #leaveLocked} or {@link #drainLocked}) with an error. */
  static void fail(List<Routed> unanswered, String before) {
    for (Routed r : unanswered) {
      r.reply().complete(new Error(ErrorCode.INTERNAL_ERROR.code(), before + r.method()));
    }
  }
}
