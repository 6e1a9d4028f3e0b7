package dev.cotenant.gateway.mux;

import dev.cotenant.spi.SessionException;
import dev.cotenant.spi.rpc.Envelope;
import dev.cotenant.spi.rpc.ErrorCode;
import dev.cotenant.spi.rpc.RequestId;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * The resource subscriptions of the sessions sharing one backend (rule 8 of {@link Multiplexer}):
 * counted per URI, the backend subscribed for the first subscriber and unsubscribed when the last
 * one leaves, {@code notifications/resources/updated} for the subscribers of its URI. Thread-safe:
 * the subscription lock is held while a subscribe or unsubscribe is written, so they reach the
 * backend in the order they were decided. Lock order: after the level lock, before the routing lock.
 */
final class Subscriptions {
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

  private final Multiplexer mux;
  private final Object subscriptionLock = new Object();
  /** Guarded by the subscription lock. */
  private final Map<String, Subscription> subscriptions = new HashMap<>();
  /** The URIs each session subscribed to; guarded by the subscription lock. */
  private final Map<Channel, Set<String>> subscribed = new HashMap<>();

  Subscriptions(Multiplexer mux) {
    this.mux = mux;
  }

  /** A client's {@code resources/subscribe}: answered with the backend's answer to the first subscribe of its URI. */
  void subscribe(Bound b, Channel c, RequestId id, Map<String, Object> params) {
    if (!(params.get("uri") instanceof String u)) {
      mux.deliver(c, Envelope.error(id, ErrorCode.INVALID_PARAMS, "Invalid params: resources/subscribe needs a uri"));
      return;
    }
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
      subscribed.computeIfAbsent(c, k -> new LinkedHashSet<>()).add(u);
      ready = s.ready;
      if (first) {
        Map<String, Object> p = EraBridge.backendParams(b, c, params);
        if (p.get("_meta") instanceof Map<?, ?> meta) {
          meta.remove("progressToken");
        }
        mux.counted();
        Subscription fs = s;
        try {
          b.backend().request("resources/subscribe", p).whenComplete((answer, failure) -> answered(b, fs, answer, failure));
        } catch (SessionException e) {
          answered(b, s, null, e);
        }
      }
    }
    ready.whenComplete((answer, failure) -> {
      if (c.closed) {
        return;
      }
      if (failure != null) {
        mux.deliver(c, mux.interrupted(id, mux.ended(Multiplexer.reason(failure))));
      } else {
        mux.deliver(c, Envelope.answer(id, answer));
      }
    });
  }

  /** A client's {@code resources/unsubscribe}: answered locally. */
  void unsubscribe(Bound b, Channel c, RequestId id, Map<String, Object> params) {
    if (!(params.get("uri") instanceof String uri)) {
      mux.deliver(c, Envelope.error(id, ErrorCode.INVALID_PARAMS, "Invalid params: resources/unsubscribe needs a uri"));
      return;
    }
    leave(b, c, uri);
    mux.deliver(c, Envelope.result(id, Map.of()));
  }

  /** The backend answered the subscribe of {@code s}. */
  private void answered(Bound b, Subscription s, @Nullable Map<String, Object> answer, @Nullable Throwable failure) {
    boolean accepted = failure == null && answer != null && !answer.containsKey("error");
    synchronized (subscriptionLock) {
      s.accepted = accepted;
      if (!accepted) {
        subscriptions.remove(s.uri, s);
        s.members.forEach(m -> subscribedBy(m).remove(s.uri));
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

  /** Releases every subscription of a session that leaves. */
  void leaveAll(Bound b, Channel c) {
    List<String> uris;
    synchronized (subscriptionLock) {
      uris = new ArrayList<>(subscribedBy(c));
    }
    uris.forEach(u -> leave(b, c, u));
    synchronized (subscriptionLock) {
      subscribed.remove(c);
    }
  }

  /** Removes {@code c} from the subscribers of {@code uri}; the backend unsubscribes when the last one leaves. */
  private void leave(Bound b, Channel c, String uri) {
    synchronized (subscriptionLock) {
      subscribedBy(c).remove(uri);
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
      // Otherwise the backend's answer to the subscribe decides (answered).
    }
  }

  /** Under the subscription lock. */
  private void unsubscribeAtBackend(Bound b, Subscription s) {
    Map<String, Object> p = new LinkedHashMap<>();
    p.put("uri", s.uri);
    Channel on = s.lastLeft;
    mux.upkeep(b, "resources/unsubscribe", on == null ? p : EraBridge.withOwnMeta(b, on, p));
  }

  /** The subscribers of {@code uri} now. */
  List<Channel> subscribers(@Nullable Object uri) {
    synchronized (subscriptionLock) {
      Subscription s = uri instanceof String ? subscriptions.get(uri) : null;
      return s == null ? List.of() : new ArrayList<>(s.members);
    }
  }

  /** The backend ended: subscribers waiting for its answer to a subscribe are interrupted like calls. */
  void interruptWaiting(String why) {
    List<Subscription> waiting = new ArrayList<>();
    synchronized (subscriptionLock) {
      for (Subscription s : subscriptions.values()) {
        if (s.accepted == null) {
          waiting.add(s);
        }
      }
    }
    SessionException gone = new SessionException(SessionException.Kind.EXITED, why);
    waiting.forEach(s -> s.ready.completeExceptionally(gone));
  }

  /** Under the subscription lock. */
  private Set<String> subscribedBy(Channel c) {
    Set<String> s = subscribed.get(c);
    return s == null ? new LinkedHashSet<>() : s;
  }
}
