package dev.cotenant.cli.views;

import dev.cotenant.gateway.pool.EntrySnapshot;
import dev.cotenant.gateway.sharing.ClientSession;
import dev.cotenant.gateway.sharing.StartDecision;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Per server with a client session: how many sessions it has, how many wait on a deferred backend
 * (answered from the records, no process started for them yet) and how many are attached to a
 * backend, how many backends run for it, and why its sessions are or are not deferred (the latest
 * session's reason). What {@code cotenant status} and {@code GET /api/backends} both say. Stateless.
 */
public final class SessionsView {
  private SessionsView() {}

  /**
   * {@code [{"server","sessions","waiting","attached","backends","deferred","not_deferred"}...]}
   * sorted by server: {@code deferred} is the reason a waiting session gives, {@code not_deferred}
   * the reason a session that started its backend at its {@code initialize} gives ({@code ""} when
   * none did).
   */
  public static List<Map<String, Object>> servers(List<ClientSession> sessions, List<EntrySnapshot> backends) {
    Map<String, Map<String, Object>> byName = new TreeMap<>();
    for (ClientSession c : sessions) {
      Map<String, Object> m = byName.computeIfAbsent(c.serverName(), SessionsView::empty);
      m.put("sessions", (Integer) m.get("sessions") + 1);
      String part = c.deferred() ? "waiting" : "attached";
      m.put(part, (Integer) m.get(part) + 1);
      StartDecision d = c.start();
      m.put(d.deferred() ? "deferred" : "not_deferred", d.why());
    }
    for (EntrySnapshot e : backends) {
      Map<String, Object> m = byName.get(e.serverName());
      if (m != null) {
        m.put("backends", (Integer) m.get("backends") + 1);
      }
    }
    return new ArrayList<>(byName.values());
  }

  private static Map<String, Object> empty(String server) {
    Map<String, Object> o = new LinkedHashMap<>();
    o.put("server", server);
    o.put("sessions", 0);
    o.put("waiting", 0);
    o.put("attached", 0);
    o.put("backends", 0);
    o.put("deferred", "");
    o.put("not_deferred", "");
    return o;
  }
}
