package dev.cotenant.cli.daemon.api;

import dev.cotenant.cli.Output;
import dev.cotenant.gateway.pool.DrainResult;
import dev.cotenant.gateway.pool.EntrySnapshot;
import dev.cotenant.gateway.pool.RestartResult;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.OptionalLong;
import java.util.stream.Stream;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The pool's accounting as the API answers it: one object per backend, with the resident memory
 * of its process tree read from {@code /proc}, and the totals, including what the same sessions
 * would cost without sharing (a process, and its memory, per session). Stateless.
 */
final class Backends {
  /** How many characters of a connection id the answer shows as {@code key}. */
  static final int KEY_LENGTH = 16;

  private Backends() {}

  /** {@code {"backends":[...],"totals":{...}}} for {@code entries}, at {@code nowMillis} of the pool's clock. */
  static ObjectNode json(List<EntrySnapshot> entries, long nowMillis) {
    ObjectNode root = Output.object();
    ArrayNode backends = root.putArray("backends");
    long sessions = 0;
    long rss = 0;
    long unsharedProcesses = 0;
    long unsharedRss = 0;
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
        bytes = treeRssBytes(e.pid().getAsLong());
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
      rss += bytes.orElse(0);
      unsharedProcesses += each;
      unsharedRss += bytes.orElse(0) * each;
    }
    ObjectNode totals = root.putObject("totals");
    totals.put("backends", entries.size());
    totals.put("sessions", sessions);
    totals.put("rssBytes", rss);
    totals.put("unsharedProcesses", unsharedProcesses);
    totals.put("unsharedRssBytes", unsharedRss);
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

  /**
   * The resident memory ({@code VmRSS}) of {@code pid} and every descendant, in bytes; empty when
   * the process's own cannot be read (gone, or no {@code /proc}). A descendant that ends while
   * it is read counts nothing.
   */
  static OptionalLong treeRssBytes(long pid) {
    OptionalLong own = rssBytes(pid);
    if (own.isEmpty()) {
      return own;
    }
    long total = own.getAsLong();
    try (Stream<ProcessHandle> descendants = ProcessHandle.of(pid).map(ProcessHandle::descendants).orElse(Stream.empty())) {
      for (ProcessHandle d : (Iterable<ProcessHandle>) descendants::iterator) {
        total += rssBytes(d.pid()).orElse(0);
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
