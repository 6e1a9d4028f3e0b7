package dev.cotenant.cli.daemon.api;

import dev.cotenant.cli.views.Output;
import dev.cotenant.gateway.pool.DrainResult;
import dev.cotenant.gateway.pool.EntrySnapshot;
import dev.cotenant.gateway.pool.RestartResult;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.OptionalLong;
import java.util.function.LongFunction;
import java.util.stream.Stream;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The pool's accounting as the API answers it: one object per backend, with the resident memory
 * of its process tree read from {@code /proc}; the backends' totals; and {@code cost}, what
 * routing through the daemon costs in all (the backends, the attached shims and the daemon's own
 * processes) against what running each client's servers directly would (a process per session,
 * each as large as the backend serving it). A part whose memory cannot be read is counted, named
 * in {@code missing}, and leaves the total memory unknown (null) rather than smaller. Stateless.
 */
final class Backends {
  /** How many characters of a connection id the answer shows as {@code key}. */
  static final int KEY_LENGTH = 16;

  private Backends() {}

  /**
   * {@code {"backends":[...],"totals":{...},"cost":{...}}} for {@code entries}, at {@code nowMillis}
   * of the pool's clock, without shims or daemon processes.
   */
  static ObjectNode json(List<EntrySnapshot> entries, long nowMillis) {
    return json(entries, nowMillis, DaemonProcesses.NONE, Backends::rssBytes);
  }

  /**
   * {@code {"backends":[...],"totals":{...},"cost":{...}}} for {@code entries}, at {@code nowMillis}
   * of the pool's clock, with the processes of {@code others}; {@code rss} reads one process's
   * resident memory ({@link #rssBytes} but in tests). A backend's memory is its process tree's, a
   * shim's and each daemon process's its own (the daemon's descendants are its backends).
   */
  static ObjectNode json(List<EntrySnapshot> entries, long nowMillis, DaemonProcesses others, LongFunction<OptionalLong> rss) {
    ObjectNode root = Output.object();
    ArrayNode backends = root.putArray("backends");
    long sessions = 0;
    long rssTotal = 0;
    long unsharedProcesses = 0;
    long unsharedRss = 0;
    Part backendPart = new Part();
    Part direct = new Part();
    List<String> missing = new ArrayList<>();
    for (EntrySnapshot e : entries) {
      ObjectNode b = backends.addObject();
      b.put("server", e.serverName());
      b.put("key", key(e.connectionId()));
      b.put("placement", e.placement().name().toLowerCase(Locale.ROOT));
      b.put("forced", e.forced());
      b.put("state", e.state().name().toLowerCase(Locale.ROOT));
      b.put("generation", e.generation());
      b.put("sessions", e.sessions());
      OptionalLong bytes = OptionalLong.empty();
      if (e.pid().isPresent()) {
        b.put("pid", e.pid().getAsLong());
        bytes = treeRssBytes(e.pid().getAsLong(), rss);
      } else {
        b.putNull("pid");
      }
      if (bytes.isPresent()) {
        b.put("rssBytes", bytes.getAsLong());
      } else {
        b.putNull("rssBytes");
      }
      b.put("calls", e.calls());
      b.put("hazards", e.hazards());
      b.put("reason", e.reason());
      if (e.startedAt().isPresent()) {
        b.put("uptimeMs", Math.max(0, nowMillis - e.startedAt().getAsLong()));
      } else {
        b.putNull("uptimeMs");
      }
      long each = Math.max(1, e.sessions());
      sessions += e.sessions();
      rssTotal += bytes.orElse(0);
      unsharedProcesses += each;
      unsharedRss += bytes.orElse(0) * each;
      backendPart.add(bytes);
      direct.processes += e.sessions();
      if (e.sessions() > 0) {
        if (bytes.isPresent()) {
          direct.bytes += bytes.getAsLong() * e.sessions();
        } else {
          direct.unread += e.sessions();
        }
      }
      if (bytes.isEmpty()) {
        missing.add("the memory of the backend of " + e.serverName() + (e.pid().isPresent()
            ? " (pid " + e.pid().getAsLong() + ") could not be read" : ": its process is not up"));
      }
    }
    ObjectNode totals = root.putObject("totals");
    totals.put("backends", entries.size());
    totals.put("sessions", sessions);
    totals.put("rssBytes", rssTotal);
    totals.put("unsharedProcesses", unsharedProcesses);
    totals.put("unsharedRssBytes", unsharedRss);

    Part shims = new Part();
    int unnamed = 0;
    for (OptionalLong pid : others.shims()) {
      if (pid.isPresent()) {
        shims.add(rss.apply(pid.getAsLong()));
      } else {
        shims.add(OptionalLong.empty());
        unnamed++;
      }
    }
    int unreadShims = shims.unread - unnamed;
    if (unnamed > 0) {
      missing.add("the memory of " + count(unnamed, "shim") + ": " + (unnamed == 1 ? "it" : "they")
          + " named no live process of this user (a shim older than the daemon names none)");
    }
    if (unreadShims > 0) {
      missing.add("the memory of " + count(unreadShims, "shim") + " could not be read");
    }
    Part daemon = new Part();
    for (long pid : others.daemon()) {
      daemon.add(rss.apply(pid));
    }
    if (daemon.unread > 0) {
      missing.add("the memory of " + count(daemon.unread, "daemon process") + " could not be read");
    }
    if (direct.unread > 0) {
      missing.add("what " + count(direct.unread, "session") + " would take directly: the memory of "
          + (direct.unread == 1 ? "its backend" : "their backends") + " is not known");
    }

    ObjectNode cost = root.putObject("cost");
    ObjectNode now = cost.putObject("now");
    long nowProcesses = backendPart.processes + shims.processes + daemon.processes;
    now.put("processes", nowProcesses);
    boolean nowKnown = backendPart.unread == 0 && shims.unread == 0 && daemon.unread == 0;
    putBytes(now, "rssBytes", nowKnown, backendPart.bytes + shims.bytes + daemon.bytes);
    backendPart.json(now.putObject("backends"));
    shims.json(now.putObject("shims"));
    daemon.json(now.putObject("daemon"));
    ObjectNode directly = cost.putObject("direct");
    directly.put("processes", direct.processes);
    putBytes(directly, "rssBytes", direct.unread == 0, direct.bytes);
    ObjectNode saved = cost.putObject("saved");
    saved.put("processes", direct.processes - nowProcesses);
    putBytes(saved, "rssBytes", nowKnown && direct.unread == 0,
        direct.bytes - (backendPart.bytes + shims.bytes + daemon.bytes));
    ArrayNode m = cost.putArray("missing");
    missing.forEach(m::add);
    return root;
  }

  /** Processes of one part of the cost and the memory of those that could be read. */
  private static final class Part {
    long processes;
    long bytes;
    int unread;

    void add(OptionalLong rss) {
      processes++;
      if (rss.isPresent()) {
        bytes += rss.getAsLong();
      } else {
        unread++;
      }
    }

    /** {@code {"processes","rssBytes","unread"}}: {@code rssBytes} of those read, {@code unread} those not. */
    void json(ObjectNode o) {
      o.put("processes", processes);
      o.put("rssBytes", bytes);
      o.put("unread", unread);
    }
  }

  private static void putBytes(ObjectNode o, String key, boolean known, long bytes) {
    if (known) {
      o.put(key, bytes);
    } else {
      o.putNull(key);
    }
  }

  private static String count(long n, String what) {
    return n + " " + what + (n == 1 ? "" : "s");
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

  /**
   * The resident memory ({@code VmRSS}) of {@code pid} and every descendant, in bytes; empty when
   * the process's own cannot be read (gone, or no {@code /proc}). A descendant that ends while
   * it is read counts nothing.
   */
  static OptionalLong treeRssBytes(long pid) {
    return treeRssBytes(pid, Backends::rssBytes);
  }

  /** As {@link #treeRssBytes(long)}, each process's memory read by {@code rss}. */
  static OptionalLong treeRssBytes(long pid, LongFunction<OptionalLong> rss) {
    OptionalLong own = rss.apply(pid);
    if (own.isEmpty()) {
      return own;
    }
    long total = own.getAsLong();
    try (Stream<ProcessHandle> descendants = ProcessHandle.of(pid).map(ProcessHandle::descendants).orElse(Stream.empty())) {
      for (ProcessHandle d : (Iterable<ProcessHandle>) descendants::iterator) {
        total += rss.apply(d.pid()).orElse(0);
      }
    }
    return OptionalLong.of(total);
  }

  /** {@code VmRSS} of one process from {@code /proc/PID/status}, in bytes. */
  static OptionalLong rssBytes(long pid) {
    try {
      for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
        if (line.startsWith("VmRSS:")) {
          String[] parts = line.substring("VmRSS:".length()).trim().split("\\s+");
          long n = Long.parseLong(parts[0]);
          return OptionalLong.of(parts.length > 1 && parts[1].equalsIgnoreCase("kB") ? n * 1024 : n);
        }
      }
      return OptionalLong.empty();
    } catch (IOException | NumberFormatException | SecurityException e) {
      return OptionalLong.empty();
    }
  }
}
