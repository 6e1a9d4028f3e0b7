package dev.cotenant.gateway.probe;

import dev.cotenant.spi.ServerMessageHandler;
import dev.cotenant.spi.ServerSession;
import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * One backend process of the whole-surface probe and what it sent on its own initiative: the
 * handler of its server requests (declined: the probe has no user to ask) and notifications,
 * counting on a shared backend what cannot be told apart as one caller's. Thread-safe counts.
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
  @Nullable ServerSession session;
  Map<String, Object> handshake = Map.of();

  ProbeBackend(boolean shared, Path scratch) {
    this.shared = shared;
    this.scratch = scratch;
  }

  @Override
  public Reply onRequest(String method, Map<String, Object> params) {
    requests.merge(method, 1, Integer::sum);
    if (shared && !"ping".equals(method)) {
      unroutable.merge(method, 1, Integer::sum);
    }
    return fallback.onRequest(method, params);
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
