package dev.cotenant.cli.daemon.api;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What one copy of each server takes, as last read of a backend of it, kept in the daemon's memory
 * for its life: when no backend of a server is up (between generations, or for a session the
 * daemon has not started one for yet), what its sessions would take directly is estimated from
 * these. Thread-safe.
 */
final class ServerFigures {
  /**
   * What one copy of a server takes, read of its backends without their wrappers.
   *
   * @param processesEach the processes of one copy (the server and its children)
   * @param rssEach the {@code Rss} of one copy
   * @param ussEach the {@code Uss} of one copy: the memory no other process maps
   * @param sharedPss the copies' {@code Pss - Uss} summed: the pages they map with other
   *     processes, each counted once, in the share these copies map
   * @param copies how many backends the figures were read of
   * @param readAtMillis when they were read, in milliseconds since the epoch
   */
  record Figures(long processesEach, long rssEach, long ussEach, long sharedPss, int copies, long readAtMillis) {
    /**
     * The figures of the read {@code trees} of one server (not empty), read at {@code nowMillis}:
     * each copy the mean of theirs, the shared part their sum.
     */
    static Figures of(List<BackendTree> trees, long nowMillis) {
      int n = trees.size();
      long processes = 0;
      long rss = 0;
      long uss = 0;
      long shared = 0;
      for (BackendTree t : trees) {
        processes += t.serverProcesses();
        rss += t.server().rss();
        uss += t.server().uss();
        shared += t.server().sharedPss();
      }
      return new Figures(Math.max(1, Math.round((double) processes / n)), rss / n, uss / n, shared, n, nowMillis);
    }

    /** {@code sessions} copies' private memory and the shared part once: what they would take run directly. */
    long directPss(long sessions) {
      return sessions == 0 ? 0 : sessions * ussEach + sharedPss;
    }
  }

  private final Map<String, Figures> last = new ConcurrentHashMap<>();

  /** The figures last read of a backend of {@code server}, if any has been. */
  Optional<Figures> last(String server) {
    return Optional.ofNullable(last.get(server));
  }

  /** Keeps {@code figures} as the last read of {@code server}. */
  void remember(String server, Figures figures) {
    last.put(server, figures);
  }
}
