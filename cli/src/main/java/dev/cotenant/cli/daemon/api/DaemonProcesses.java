package dev.cotenant.cli.daemon.api;

import java.util.List;
import java.util.OptionalLong;

/**
 * The processes the daemon runs besides its backends, for what {@code GET /api/backends} says
 * sharing costs: the daemon's own and its clients' shims. Implementations are thread-safe.
 */
public interface DaemonProcesses {
  /** None: no daemon process and no shim (a handler tested alone). */
  DaemonProcesses NONE = new DaemonProcesses() {
    @Override
    public List<Long> daemon() {
      return List.of();
    }

    @Override
    public List<OptionalLong> shims() {
      return List.of();
    }
  };

  /**
   * The daemon's own processes: its JVM, its watchdog, and the {@code cotenant serve} process
   * waiting on it when one started it as a child.
   */
  List<Long> daemon();

  /**
   * One entry per shim ({@code cotenant connect}) whose socket session is attached to a backend:
   * the process id it named in its hello, empty when it named none (an older shim) or the process
   * named is not a live process of the daemon's user.
   */
  List<OptionalLong> shims();
}
