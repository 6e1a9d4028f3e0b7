package dev.cotenant.gateway.sandbox;

import dev.cotenant.api.ServerDescription;
import dev.cotenant.api.Transport;
import dev.cotenant.spi.ProviderConfig;
import dev.cotenant.spi.ServerMessageHandler;
import dev.cotenant.spi.ServerSession;
import dev.cotenant.spi.SessionException;
import dev.cotenant.spi.SessionTransport;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Where a backend's processes live: each stdio backend the transport pool starts runs in a pid
 * namespace of its own (bubblewrap with {@code --unshare-pid}), so nothing it starts outlives it
 * — a child that cleared its environment, a grandchild that called {@code setsid} and left the
 * tree, on an orderly stop and when the daemon is killed with SIGKILL. See {@code docs/daemon.md},
 * "Lifecycle and what is left running".
 *
 * <p>Unlike the probe's {@link Sandbox}, the backend sees the machine as it is: the whole
 * filesystem writable as the daemon's user sees it, devices, the network, the same user. Only
 * its process tree is its own, with a {@code /proc} of its own. bubblewrap's
 * {@code --die-with-parent} ends the namespace when the bubblewrap process that started it
 * ends; and since the kernel ties that to the <em>thread</em> that spawned it, every backend is
 * spawned from one thread that lives as long as this object (a pool thread that ended would take
 * its backends with it).
 *
 * <p>The mode is decided once, on first use, by a trial run with the same flags: {@value #KEY}
 * {@code auto} (the default) uses the namespace where the trial succeeds and otherwise starts
 * backends as configured, where the spawn cookie and the daemon's watchdog are what end the
 * stragglers; {@code off} never uses it; {@code required} refuses to start a backend without it.
 * Thread-safe.
 */
public final class PidNamespace {
  /** The configuration key: {@code auto}, {@code off} or {@code required}. */
  public static final String KEY = "cotenant.backends.pid-namespace";

  /** What every backend's bubblewrap runs with, before {@code --} and the command. */
  static final List<String> FLAGS =
      List.of("--dev-bind", "/", "/", "--proc", "/proc", "--unshare-pid", "--die-with-parent");

  /**
   * The mode backends start in.
   *
   * @param contained true when each backend runs in a pid namespace of its own
   * @param required true when a backend must not start without it
   * @param why what contains them ({@code bubblewrap 0.8.0}) or why nothing does
   */
  public record Mode(boolean contained, boolean required, String why) {
    public Mode {
      Objects.requireNonNull(why, "why");
    }

    /** One line for logs and {@code status}. */
    public String describe() {
      return contained ? "each in a pid namespace of its own (" + why + ")"
          : "as configured, without a pid namespace: " + why;
    }
  }

  private final Bubblewrap.Decision decision;
  /** The {@code PATH} a command without a slash is looked for on, unless the server's env sets one. */
  private final String path;
  /** One thread for the life of this object: never replaced, never ended while backends it spawned may run. */
  private final Spawner spawner = new Spawner("cotenant-backend-spawner");

  PidNamespace(Sandbox.Setting setting, Optional<String> configuredBwrap, String path, String osName) {
    this.decision = new Bubblewrap.Decision(Objects.requireNonNull(setting, "setting"), "turned off (" + KEY + "=off)",
        Objects.requireNonNull(configuredBwrap, "configuredBwrap"), Objects.requireNonNull(path, "path"),
        Objects.requireNonNull(osName, "osName"), FLAGS, "a pid namespace", "create a pid namespace");
    this.path = path;
  }

  /**
   * The mode {@code config} asks for ({@value #KEY}; bubblewrap from {@value Sandbox#BWRAP_KEY}
   * or {@code environment}'s {@code PATH}).
   *
   * @throws IllegalArgumentException naming {@value #KEY} when its value is not one of the three
   */
  public static PidNamespace fromConfig(ProviderConfig config, Map<String, String> environment) {
    Sandbox.Setting setting = Bubblewrap.setting(KEY, config.get(KEY, "auto"));
    Optional<String> exe = config.get(Sandbox.BWRAP_KEY).map(String::strip).filter(s -> !s.isEmpty());
    return new PidNamespace(setting, exe, environment.getOrDefault("PATH", ""), System.getProperty("os.name", ""));
  }

  /** The mode backends start in, decided on the first call (a trial run of bubblewrap). */
  public Mode mode() {
    Bubblewrap.Decision.Outcome o = decision.get();
    return new Mode(o.usable(), o.required(), o.why());
  }

  /**
   * {@code sessions} with each stdio server started in a pid namespace of its own; {@code sessions}
   * itself when the namespace is not used, or when {@code sessions} does not run commands on this
   * machine. When the namespace is required and unavailable, every stdio start is refused with the
   * reason.
   */
  public SessionTransport around(SessionTransport sessions) {
    Objects.requireNonNull(sessions, "sessions");
    if (decision.setting() == Sandbox.Setting.OFF || !sessions.runsCommandLocally()) {
      return sessions;
    }
    return new Contained(sessions);
  }

  /**
   * The command line that starts {@code server} in a pid namespace, or empty when its command
   * cannot be found: then the server is opened as configured, and fails to start with the usual
   * message rather than bubblewrap's.
   */
  Optional<ServerDescription> contained(ServerDescription server, String exe) {
    if (!findable(server)) {
      return Optional.empty();
    }
    List<String> args = new ArrayList<>(FLAGS);
    args.add("--");
    args.add(server.command());
    args.addAll(server.args());
    return Optional.of(new ServerDescription(server.name(), server.transport(), exe, args, server.cwd(), server.env(),
        server.url(), server.enabled()));
  }

  private boolean findable(ServerDescription server) {
    String command = server.command();
    if (command.isEmpty()) {
      return false;
    }
    if (command.contains("/")) {
      Path p = Path.of(command);
      if (!p.isAbsolute() && server.cwd().isPresent()) {
        p = Path.of(server.cwd().get()).resolve(p);
      }
      return Files.isRegularFile(p) && Files.isExecutable(p);
    }
    return Bubblewrap.onPath(command, server.env().getOrDefault("PATH", path)).isPresent();
  }

  /** The session transport that starts each stdio server in a pid namespace. */
  private final class Contained implements SessionTransport {
    private final SessionTransport delegate;

    Contained(SessionTransport delegate) {
      this.delegate = delegate;
    }

    @Override
    public ServerSession open(ServerDescription server, String label, ServerMessageHandler handler)
        throws SessionException, InterruptedException {
      if (server.transport() != Transport.STDIO) {
        return delegate.open(server, label, handler);
      }
      Mode m = mode();
      if (!m.contained()) {
        if (m.required()) {
          throw new SessionException(SessionException.Kind.START,
              "backends must start in a pid namespace (" + KEY + "=required), and " + m.why());
        }
        return delegate.open(server, label, handler);
      }
      Optional<ServerDescription> wrapped = contained(server, decision.get().exe().orElseThrow());
      if (wrapped.isEmpty()) {
        return delegate.open(server, label, handler);
      }
      return spawner.open(delegate, wrapped.get(), label, handler);
    }

    @Override
    public boolean runsCommandLocally() {
      return true;
    }
  }

  @Override
  public String toString() {
    return "PidNamespace[" + decision.setting().name().toLowerCase(Locale.ROOT) + "]";
  }
}
