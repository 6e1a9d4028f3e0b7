package dev.cotenant.gateway.probe;

import dev.cotenant.spi.ServerMessageHandler;
import dev.cotenant.spi.ServerSession;
import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * One backend process of the whole-surface probe and what it sent on its own initiative: the
 * handler of its server requests and notifications, counting on a shared backend what cannot be
 * told apart as one caller's. Thread-safe counts.
 *
 * <p>As callers declaring no client capability, every server request is declined (the probe has no
 * user to ask). As callers declaring {@code roots}, {@code sampling} and {@code elicitation}, a
 * request is answered by the caller it is for, with that caller's own values ({@link
 * ClientAnswers}): on a dedicated backend its only caller; on the shared backend the one caller
 * with a call in flight, or, before any call was made, the first caller (as a gateway hands a
 * request a new backend sends at once to its first session). Any other request on the shared
 * backend has no caller it can be told to be for: it is declined and counted unroutable.
 */
final class ProbeBackend implements ServerMessageHandler {
  private static final String DECLINED = "declined: this client has no user to ask";

  final boolean shared;
  final Path scratch;
  /** The progress tokens the probe sent, with the caller that sent each. */
  final Map<String, String> progressOwners = new ConcurrentHashMap<>();
  final Map<String, Integer> notifications = new ConcurrentHashMap<>();
  final Map<String, Integer> unattributable = new ConcurrentHashMap<>();
  final Map<String, Integer> requests = new ConcurrentHashMap<>();
  final Map<String, Integer> unroutable = new ConcurrentHashMap<>();
  private final ServerMessageHandler fallback = ServerMessageHandler.noUser(DECLINED);
  /** Who answers the server's requests; null as callers declaring no client capability. */
  private final @Nullable ClientAnswers answers;
  /** The only caller of a dedicated backend; null on the shared one. */
  private final @Nullable ProbeCaller owner;
  /** The first caller of the shared backend, who answers what it asks before any call. */
  private final @Nullable ProbeCaller first;
  /** Calls in flight, per caller label. */
  private final Map<String, AtomicInteger> inFlight = new ConcurrentHashMap<>();
  private final Map<String, ProbeCaller> callers = new ConcurrentHashMap<>();
  private final AtomicBoolean called = new AtomicBoolean();
  @Nullable ServerSession session;
  Map<String, Object> handshake = Map.of();

  ProbeBackend(boolean shared, Path scratch) {
    this(shared, scratch, null, null, null);
  }

  /**
   * @param answers who answers server requests, or null to decline them all
   * @param owner the only caller of a dedicated backend
   * @param first the first caller of a shared one
   */
  ProbeBackend(boolean shared, Path scratch, @Nullable ClientAnswers answers, @Nullable ProbeCaller owner,
      @Nullable ProbeCaller first) {
    this.shared = shared;
    this.scratch = scratch;
    this.answers = answers;
    this.owner = owner;
    this.first = first;
  }

  /** Says {@code caller} wrote a request on this backend; {@link #answered} must follow. */
  void calling(ProbeCaller caller) {
    called.set(true);
    callers.put(caller.label(), caller);
    inFlight.computeIfAbsent(caller.label(), k -> new AtomicInteger()).incrementAndGet();
  }

  /** Says a request of {@code caller} was answered (or given up). */
  void answered(ProbeCaller caller) {
    inFlight.computeIfAbsent(caller.label(), k -> new AtomicInteger()).decrementAndGet();
  }

  @Override
  public Reply onRequest(String method, Map<String, Object> params) {
    requests.merge(method, 1, Integer::sum);
    if ("ping".equals(method)) {
      return fallback.onRequest(method, params);
    }
    if (answers == null) {
      if (shared) {
        unroutable.merge(method, 1, Integer::sum);
      }
      return fallback.onRequest(method, params);
    }
    ProbeCaller to = shared ? routedTo() : owner;
    if (to == null) {
      unroutable.merge(method, 1, Integer::sum);
      return fallback.onRequest(method, params);
    }
    return answers.answer(to, scratch, method, params);
  }

  /** The caller a server request on the shared backend is for, or null when none can be told. */
  private @Nullable ProbeCaller routedTo() {
    if (!called.get()) {
      return first;
    }
    ProbeCaller only = null;
    for (Map.Entry<String, AtomicInteger> e : inFlight.entrySet()) {
      if (e.getValue().get() > 0) {
        if (only != null) {
          return null;
        }
        only = callers.get(e.getKey());
      }
    }
    return only;
  }

  @Override
  public void onNotification(String method, Map<String, Object> params) {
    notifications.merge(method, 1, Integer::sum);
    if (shared && !attributable(method, params)) {
      unattributable.merge(method, 1, Integer::sum);
    }
  }

  private boolean attributable(String method, Map<String, Object> params) {
    if (method.endsWith("/list_changed")) {
      return true;
    }
    if ("notifications/progress".equals(method)) {
      Object token = params.get("progressToken");
      return token != null && progressOwners.containsKey(String.valueOf(token));
    }
    return false;
  }

  ServerSession session() {
    return Objects.requireNonNull(session, "the backend is not open");
  }

  /** Closes the session, if it was opened. */
  void close() {
    if (session != null) {
      session.close();
    }
  }
}
