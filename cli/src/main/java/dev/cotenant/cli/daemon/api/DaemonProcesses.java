package dev.cotenant.cli.daemon.api;

import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;

/**
 * What the daemon runs besides its pool, for what {@code GET /api/backends} says sharing costs:
 * the daemon's own processes, its client sessions with their shims, and how its backends are
 * wrapped. Implementations are thread-safe.
 */
public interface DaemonProcesses {
  /** None: no daemon process, no client session, backends unwrapped (a handler tested alone). */
  DaemonProcesses NONE = new DaemonProcesses() {
    @Override
    public List<Long> daemon() {
      return List.of();
    }

    @Override
    public List<Client> clients() {
      return List.of();
    }

    @Override
    public int backendWrappers() {
      return 0;
    }
  };

  /**
   * The daemon's own processes: its JVM, its watchdog, and the {@code cotenant serve} process
   * waiting on it when one started it as a child.
   */
  List<Long> daemon();

  /**
   * Every client session the cost counts beyond what the pool's accounting says: each session
   * over the socket (each carried by a shim), attached to a backend or not yet. The cost counts
   * every listed session's shim, and adds each session that is not {@linkplain Client#attached()
   * attached} to its server's sessions (an attached one is counted in its backend's sessions
   * already). A session the daemon serves before any backend of its server is started belongs
   * here, not attached.
   */
  List<Client> clients();

  /**
   * How many levels at the top of each backend's process tree are the wrapper the daemon starts
   * it in rather than the server: 2 when backends start in a pid namespace (the bubblewrap process
   * the daemon started, whose pid the pool reports, and its child, pid 1 of the namespace, whose
   * children are the server), else 0.
   */
  int backendWrappers();

  /**
   * One client session of the daemon.
   *
   * @param server the configured name of the server it is a session of
   * @param attached true while it is attached to a backend (and so counted in that backend's
   *     sessions); false before its client's first message placed it, or while the daemon serves
   *     it without a backend
   * @param shim true when a shim ({@code cotenant connect}) carries it, that is over the socket
   * @param shimPid the shim's process id as its hello named it, empty when it named none (a shim
   *     older than the daemon) or that is not a live process of the daemon's user
   */
  record Client(String server, boolean attached, boolean shim, OptionalLong shimPid) {
    public Client {
      Objects.requireNonNull(server, "server");
      Objects.requireNonNull(shimPid, "shimPid");
    }
  }
}
