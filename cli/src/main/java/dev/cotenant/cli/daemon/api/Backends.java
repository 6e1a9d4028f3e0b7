package dev.cotenant.cli.daemon.api;

import dev.cotenant.cli.views.Output;
import dev.cotenant.gateway.pool.DrainResult;
import dev.cotenant.gateway.pool.EntrySnapshot;
import dev.cotenant.gateway.pool.RestartResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The pool's accounting as the API answers it: one object per backend, with the memory of its
 * process tree read from {@code /proc} ({@code Pss}, {@code Uss} and {@code Rss}); the backends'
 * totals; and {@code cost} ({@link Cost}), what routing through the daemon takes in all against
 * what running each client's servers directly would. Stateless but for the figures of each
 * server it is given to remember.
 */
final class Backends {
  /** How many characters of a connection id the answer shows as {@code key}. */
  static final int KEY_LENGTH = 16;

  private Backends() {}

  /**
   * {@code {"backends":[...],"totals":{...},"cost":{...}}} for {@code entries}, at {@code nowMillis}
   * of the pool's clock, read from {@code /proc}, without shims or daemon processes.
   */
  static ObjectNode json(List<EntrySnapshot> entries, long nowMillis) {
    return json(entries, nowMillis, DaemonProcesses.NONE, ProcessReader.PROC, new ServerFigures());
  }

  /**
   * {@code {"backends":[...],"totals":{...},"cost":{...}}} for {@code entries}, at {@code nowMillis}
   * of the pool's clock (the wall clock in the daemon), with the processes and client sessions of
   * {@code others}; {@code reader} reads the processes ({@link ProcessReader#PROC} but in tests);
   * {@code figures} keeps the last figures read of each server. A backend's memory is its whole
   * process tree's, wrappers included; a shim's and each daemon process's its own (the daemon's
   * descendants are its backends and its watchdog).
   */
  static ObjectNode json(List<EntrySnapshot> entries, long nowMillis, DaemonProcesses others, ProcessReader reader,
      ServerFigures figures) {
    Map<Long, List<Long>> children = entries.stream().anyMatch(e -> e.pid().isPresent()) ? reader.children() : Map.of();
    int wrappers = others.backendWrappers();
    List<BackendTree> trees = new ArrayList<>();
    ObjectNode root = Output.object();
    ArrayNode backends = root.putArray("backends");
    long sessions = 0;
    ProcessMemory total = ProcessMemory.NONE;
    long unsharedProcesses = 0;
    long unsharedRss = 0;
    for (EntrySnapshot e : entries) {
      BackendTree tree = BackendTree.read(e.pid(), wrappers, children, reader);
      trees.add(tree);
      ObjectNode b = backends.addObject();
      b.put("server", e.serverName());
      b.put("key", key(e.connectionId()));
      b.put("placement", e.placement().name().toLowerCase(Locale.ROOT));
      b.put("forced", e.forced());
      b.put("state", e.state().name().toLowerCase(Locale.ROOT));
      b.put("generation", e.generation());
      b.put("sessions", e.sessions());
      if (e.pid().isPresent()) {
        b.put("pid", e.pid().getAsLong());
      } else {
        b.putNull("pid");
      }
      b.put("processes", tree.up() ? tree.processes() : 0);
      boolean read = tree.read();
      Cost.putBytes(b, "pssBytes", read, tree.all().pss());
      Cost.putBytes(b, "ussBytes", read, tree.all().uss());
      Cost.putBytes(b, "rssBytes", read, tree.all().rss());
      b.put("calls", e.calls());
      b.put("hazards", e.hazards());
      b.put("reason", e.reason());
      if (e.startedAt().isPresent()) {
        b.put("startedAt", e.startedAt().getAsLong());
        b.put("uptimeMs", Math.max(0, nowMillis - e.startedAt().getAsLong()));
      } else {
        b.putNull("startedAt");
        b.putNull("uptimeMs");
      }
      long each = Math.max(1, e.sessions());
      sessions += e.sessions();
      if (read) {
        total = total.plus(tree.all());
        unsharedRss += tree.all().rss() * each;
      }
      unsharedProcesses += each;
    }
    ObjectNode totals = root.putObject("totals");
    totals.put("backends", entries.size());
    totals.put("sessions", sessions);
    totals.put("pssBytes", total.pss());
    totals.put("rssBytes", total.rss());
    totals.put("unsharedProcesses", unsharedProcesses);
    totals.put("unsharedRssBytes", unsharedRss);
    Cost.json(root.putObject("cost"), entries, trees, others, reader, figures, nowMillis);
    return root;
  }

  /** {@code {"restarted":[{"key","restarted","reason"}]}}. */
  static ObjectNode restarted(List<RestartResult> results) {
    ObjectNode root = Output.object();
    ArrayNode out = root.putArray("restarted");
    for (RestartResult r : results) {
      ObjectNode o = out.addObject();
      o.put("key", key(r.connectionId()));
      o.put("restarted", r.restarted());
      if (r.reason().isPresent()) {
        o.put("reason", r.reason().get());
      } else {
        o.putNull("reason");
      }
    }
    return root;
  }

  /** {@code {"drained","forced","errors":[...]}}. */
  static ObjectNode drained(DrainResult r) {
    ObjectNode root = Output.object();
    root.put("drained", r.drained());
    root.put("forced", r.forced());
    ArrayNode errors = root.putArray("errors");
    r.errors().forEach(errors::add);
    return root;
  }

  static String key(String connectionId) {
    return connectionId.substring(0, Math.min(KEY_LENGTH, connectionId.length()));
  }
}
