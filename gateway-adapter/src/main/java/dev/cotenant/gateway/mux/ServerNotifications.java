package dev.cotenant.gateway.mux;

import dev.cotenant.api.HazardCode;
import dev.cotenant.api.LogSafe;
import dev.cotenant.spi.rpc.Envelope;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The backend's notifications, each to the sessions it is for (rules 2, 5, 7 and 8 of
 * {@link Multiplexer}): list-changed notices to every session, resource updates to the URI's
 * subscribers, progress to the call that owns its token, and everything request-scoped to the
 * only attached session, observed as a hazard when several share the backend. Stateless.
 */
final class ServerNotifications {
  private static final Logger LOG = LoggerFactory.getLogger(Multiplexer.class);
  private static final String PROGRESS = "notifications/progress";
  private static final String MESSAGE = "notifications/message";

  private final Multiplexer mux;

  ServerNotifications(Multiplexer mux) {
    this.mux = mux;
  }

  /** Routes one notification of the backend. */
  void route(String method, Map<String, Object> params) {
    if (method.startsWith("notifications/") && method.endsWith("/list_changed")) {
      Map<String, Object> n = Envelope.notification(method, params);
      mux.channels().forEach(c -> mux.deliver(c, n));
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
        LOG.debug("{}: dropped notifications/cancelled from the backend: its request ids are not routed", mux.name());
        return;
      default:
        toOwner(method, params);
    }
  }

  private void updated(Map<String, Object> params) {
    List<Channel> to = mux.subscriptions.subscribers(params.get("uri"));
    if (to.isEmpty()) {
      LOG.debug("{}: dropped notifications/resources/updated for a URI no session subscribed to", mux.name());
    }
    Map<String, Object> n = Envelope.notification("notifications/resources/updated", params);
    to.forEach(c -> mux.deliver(c, n));
  }

  private void progress(Map<String, Object> params) {
    Object token = params.get("progressToken");
    InFlightTable.Call owner;
    synchronized (mux.lock) {
      owner = token instanceof String t ? mux.inFlight.progressOwner(t) : null;
    }
    if (owner == null && token instanceof String t && mux.inFlight.issued(t)) {
      // A token this multiplexer gave a call that has ended since (answered, cancelled, its
      // session gone): late progress, attributed and of no use to anyone. Dropped, no hazard:
      // a server may well report progress once more after a cancel reached it.
      LOG.debug("{}: dropped progress of a call that has ended ({})", mux.name(), LogSafe.escape(t, 40));
      return;
    }
    if (owner == null || owner.clientToken == null) {
      toOwner(PROGRESS, params);
      return;
    }
    Map<String, Object> p = new LinkedHashMap<>(params);
    p.put("progressToken", owner.clientToken);
    mux.deliver(owner.channel, Envelope.notification(PROGRESS, p));
  }

  /** A request-scoped notification to the session that owns the backend's attention, if one does (rule 7). */
  private void toOwner(String method, Map<String, Object> params) {
    Channel owner;
    int attached;
    int busy;
    synchronized (mux.lock) {
      attached = mux.attachedLocked();
      busy = mux.inFlight.busySessions();
      owner = mux.ownerLocked();
    }
    if (owner == null) {
      if (attached > 1) {
        mux.observe(HazardCode.UNATTRIBUTABLE_NOTIFICATION, attached, LogSafe.escape(method, 80) + " from the backend with "
            + attached + " sessions attached (" + busy + " with calls in flight): nothing in it names the session it is for");
      } else {
        LOG.debug("{}: dropped {}: no session is attached", mux.name(), LogSafe.escape(method, 80));
      }
      return;
    }
    if (MESSAGE.equals(method) && !LogLevels.reaches(owner, params)) {
      return;
    }
    mux.deliver(owner, Envelope.notification(method, params));
  }
}
