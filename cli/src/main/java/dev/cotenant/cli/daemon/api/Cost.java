package dev.cotenant.cli.daemon.api;

import dev.cotenant.gateway.pool.EntrySnapshot;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code cost} of {@code GET /api/backends}: what routing through the daemon takes now, every
 * process of it counted once (each backend's whole process tree, its wrappers included; every
 * client session's shim; the daemon's own processes), against an estimate of what the same
 * sessions would take if each client ran its servers itself. Memory is counted in {@code Pss}, so
 * that a page several processes share is counted once among them; {@code Rss} is said beside it
 * for older readers.
 *
 * <p>Directly, each server's sessions each run a copy of the server (without the wrappers): per
 * server, {@code sessions × Uss} of one copy, plus once the pages the copies share with other
 * processes ({@code Pss - Uss}, summed over the copies up now). The figures of a copy are read of
 * the server's backends up now; when none is up, the last figures read of one are used; else the
 * server's sessions are named in {@code missing} and the total is not known. A part whose memory
 * cannot be read is counted in the processes, named in {@code missing}, and leaves every memory
 * total it enters null rather than smaller. Stateless but for the figures it remembers.
 */
final class Cost {
  private Cost() {}

  /** The processes of one part of the cost and the memory of those that could be read. */
  static final class Part {
    long processes;
    ProcessMemory memory = ProcessMemory.NONE;
    long unread;

    void add(Optional<ProcessMemory> m) {
      processes++;
      if (m.isPresent()) {
        memory = memory.plus(m.get());
      } else {
        unread++;
      }
    }

    void add(BackendTree t) {
      processes += t.processes();
      unread += t.unread();
      memory = memory.plus(t.all());
    }

    /** {@code {"processes","pssBytes","rssBytes","unread"}}: the memory of those read, {@code unread} those not. */
    void json(ObjectNode o) {
      o.put("processes", processes);
      o.put("pssBytes", memory.pss());
      o.put("rssBytes", memory.rss());
      o.put("unread", unread);
    }
  }

  /**
   * The cost of {@code entries}, whose trees {@code trees} were read in the same order, with the
   * daemon's other processes {@code others}, at {@code nowMillis}; {@code figures} gives and keeps
   * the last figures of each server.
   */
  static ObjectNode json(ObjectNode cost, List<EntrySnapshot> entries, List<BackendTree> trees, DaemonProcesses others,
      ProcessReader reader, ServerFigures figures, long nowMillis) {
    List<String> missing = new ArrayList<>();
    Part backends = new Part();
    // Per server: the sessions attached to its backends, those not attached, its trees read now.
    Map<String, Server> servers = new TreeMap<>();
    for (int i = 0; i < entries.size(); i++) {
      EntrySnapshot e = entries.get(i);
      BackendTree t = trees.get(i);
      backends.add(t);
      Server s = servers.computeIfAbsent(e.serverName(), k -> new Server());
      s.attached += e.sessions();
      if (t.read()) {
        s.read.add(t);
      }
      if (!t.up()) {
        missing.add("the memory of the backend of " + e.serverName() + ": its process is not up");
      } else if (t.unread() > 0) {
        missing.add("the memory of " + count(t.unread(), "process") + " of the backend of " + e.serverName()
            + " (pid " + e.pid().getAsLong() + ") could not be read");
      }
    }

    Part shims = new Part();
    int unnamed = 0;
    for (DaemonProcesses.Client c : others.clients()) {
      if (!c.attached()) {
        servers.computeIfAbsent(c.server(), k -> new Server()).unattached++;
      }
      if (!c.shim()) {
        continue;
      }
      if (c.shimPid().isPresent()) {
        shims.add(reader.memory(c.shimPid().getAsLong()));
      } else {
        shims.add(Optional.empty());
        unnamed++;
      }
    }
    long unreadShims = shims.unread - unnamed;
    if (unnamed > 0) {
      missing.add("the memory of " + count(unnamed, "shim") + ": " + (unnamed == 1 ? "it" : "they")
          + " named no live process of this user (a shim older than the daemon names none)");
    }
    if (unreadShims > 0) {
      missing.add("the memory of " + count(unreadShims, "shim") + " could not be read");
    }
    Part daemon = new Part();
    for (long pid : others.daemon()) {
      daemon.add(reader.memory(pid));
    }
    if (daemon.unread > 0) {
      missing.add("the memory of " + count(daemon.unread, "daemon process") + " could not be read");
    }

    // Directly: per server, its sessions each running a copy of it.
    long directProcesses = 0;
    ProcessMemory direct = ProcessMemory.NONE;
    boolean directKnown = true;
    ArrayNode perServer = cost.arrayNode();
    for (Map.Entry<String, Server> en : servers.entrySet()) {
      String name = en.getKey();
      Server s = en.getValue();
      long sessions = s.attached + s.unattached;
      String from;
      Optional<ServerFigures.Figures> f;
      if (!s.read.isEmpty()) {
        ServerFigures.Figures now = ServerFigures.Figures.of(s.read, nowMillis);
        figures.remember(name, now);
        f = Optional.of(now);
        from = "now";
      } else {
        f = figures.last(name);
        from = f.isPresent() ? "last" : "unknown";
      }
      ObjectNode o = perServer.addObject();
      o.put("server", name);
      o.put("sessions", sessions);
      o.put("unattached", s.unattached);
      o.put("figures", from);
      if (f.isPresent()) {
        ServerFigures.Figures x = f.get();
        o.put("readAt", x.readAtMillis());
        long processes = sessions * x.processesEach();
        ProcessMemory m = new ProcessMemory(sessions * x.rssEach(), x.directPss(sessions), sessions * x.ussEach());
        directProcesses += processes;
        direct = direct.plus(m);
        o.put("copies", x.copies());
        o.put("processesEach", x.processesEach());
        o.put("ussBytesEach", x.ussEach());
        o.put("sharedPssBytes", x.sharedPss());
        o.put("processes", processes);
        o.put("pssBytes", m.pss());
        o.put("rssBytes", m.rss());
      } else {
        directProcesses += sessions;
        o.putNull("readAt");
        o.putNull("copies");
        o.putNull("processesEach");
        o.putNull("ussBytesEach");
        o.putNull("sharedPssBytes");
        o.put("processes", sessions);
        if (sessions > 0) {
          directKnown = false;
          o.putNull("pssBytes");
          o.putNull("rssBytes");
          missing.add("what " + count(sessions, "session") + " of " + name + " would take directly: no backend of "
              + name + " has been read since the daemon started");
        } else {
          o.put("pssBytes", 0);
          o.put("rssBytes", 0);
        }
      }
    }

    ObjectNode now = cost.putObject("now");
    long nowProcesses = backends.processes + shims.processes + daemon.processes;
    ProcessMemory nowMemory = backends.memory.plus(shims.memory).plus(daemon.memory);
    boolean nowKnown = backends.unread == 0 && shims.unread == 0 && daemon.unread == 0;
    now.put("processes", nowProcesses);
    putBytes(now, "pssBytes", nowKnown, nowMemory.pss());
    putBytes(now, "rssBytes", nowKnown, nowMemory.rss());
    backends.json(now.putObject("backends"));
    shims.json(now.putObject("shims"));
    daemon.json(now.putObject("daemon"));
    ObjectNode directly = cost.putObject("direct");
    directly.put("processes", directProcesses);
    putBytes(directly, "pssBytes", directKnown, direct.pss());
    putBytes(directly, "rssBytes", directKnown, direct.rss());
    directly.set("servers", perServer);
    ObjectNode saved = cost.putObject("saved");
    saved.put("processes", directProcesses - nowProcesses);
    putBytes(saved, "pssBytes", nowKnown && directKnown, direct.pss() - nowMemory.pss());
    putBytes(saved, "rssBytes", nowKnown && directKnown, direct.rss() - nowMemory.rss());
    ArrayNode m = cost.putArray("missing");
    missing.forEach(m::add);
    return cost;
  }

  /** One server's sessions and the trees of its backends read now. */
  private static final class Server {
    long attached;
    long unattached;
    final List<BackendTree> read = new ArrayList<>();
  }

  static void putBytes(ObjectNode o, String key, boolean known, long bytes) {
    if (known) {
      o.put(key, bytes);
    } else {
      o.putNull(key);
    }
  }

  static String count(long n, String what) {
    return n + " " + what + (n == 1 ? "" : what.endsWith("s") ? "es" : "s");
  }
}
