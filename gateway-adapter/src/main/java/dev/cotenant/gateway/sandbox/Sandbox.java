package dev.cotenant.gateway.sandbox;

import dev.cotenant.api.LogSafe;
import dev.cotenant.gateway.records.RecordsDirectory;
import dev.cotenant.spi.ProviderConfig;
import dev.cotenant.spi.SessionTransport;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Where a probe's servers run: inside a bubblewrap sandbox where they can change nothing of the
 * operator's, or, where no sandbox is available, as configured (the fallback, in which the probe
 * calls no destructive tool). See {@code docs/statelessness.md}, "The sandbox".
 *
 * <p>Inside the sandbox a server has its own user, pid, ipc, uts and network namespaces (no
 * network but its own loopback, unless a plan allows the network), sees the root filesystem
 * read-only, gets a private writable {@code HOME}, {@code TMPDIR} and {@code /tmp}, works in its
 * scratch directory, and every file or directory its command line, env or working directory names
 * is a private copy at the same path ({@link SandboxLayout}). The pid namespace ends every
 * descendant with the server, including one that called {@code setsid} and cleared its env.
 *
 * <p>The mode is decided once per instance, on first use, by running bubblewrap with the same
 * namespaces the probe asks for: {@value #KEY} {@code auto} (the default) uses the sandbox when
 * that trial succeeds and falls back otherwise; {@code off} always falls back; {@code required}
 * refuses to probe without it. Thread-safe.
 */
public final class Sandbox {
  /** The configuration key of the sandbox mode: {@code auto}, {@code off} or {@code required}. */
  public static final String KEY = "cotenant.sandbox";

  /** The configuration key of the bubblewrap executable; by default {@code bwrap} on {@code PATH}. */
  public static final String BWRAP_KEY = "cotenant.sandbox.bwrap";

  /**
   * The name of the lock file a directory the sandbox's servers work in may hold: while a server
   * runs, its sandbox holds the lock, and the sweep of leftovers does not remove the directory.
   */
  public static final String LOCK = Leftovers.LOCK;

  /** The namespaces every sandboxed server gets; the network one only when the network is not allowed. */
  static final List<String> NAMESPACES =
      List.of("--unshare-user", "--unshare-ipc", "--unshare-pid", "--unshare-uts", "--unshare-cgroup-try");

  /** What the operator asked for. */
  public enum Setting {
    /** The sandbox where it works; the fallback, said so, where it does not. */
    AUTO,
    /** Never the sandbox. */
    OFF,
    /** The sandbox or no probe at all. */
    REQUIRED
  }

  /**
   * The mode a probe runs in.
   *
   * @param sandboxed true when servers run inside bubblewrap
   * @param required true when a probe must not run without the sandbox
   * @param why what runs them ({@code bubblewrap 0.8.0}) or why there is no sandbox
   */
  public record Mode(boolean sandboxed, boolean required, String why) {
    public Mode {
      Objects.requireNonNull(why, "why");
    }
  }

  private final Bubblewrap.Decision decision;
  private final Path temp;
  private final Path home;
  private final HostBoundary boundary;

  Sandbox(Setting setting, String offWhy, Optional<String> configuredBwrap, String path, String osName, Path temp,
      Path home) {
    this(setting, offWhy, configuredBwrap, path, osName, temp, home, HostBoundary.of(System.getenv(), home, Optional.empty()));
  }

  Sandbox(Setting setting, String offWhy, Optional<String> configuredBwrap, String path, String osName, Path temp,
      Path home, HostBoundary boundary) {
    List<String> flags = new ArrayList<>(NAMESPACES);
    flags.addAll(List.of("--unshare-net", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"));
    this.decision = new Bubblewrap.Decision(Objects.requireNonNull(setting, "setting"),
        Objects.requireNonNull(offWhy, "offWhy"), Objects.requireNonNull(configuredBwrap, "configuredBwrap"),
        Objects.requireNonNull(path, "path"), Objects.requireNonNull(osName, "osName"), flags, "the sandbox",
        "create the sandbox's namespaces");
    this.temp = Objects.requireNonNull(temp, "temp");
    this.home = Objects.requireNonNull(home, "home");
    this.boundary = Objects.requireNonNull(boundary, "boundary");
  }

  /**
   * The sandbox {@code config} asks for ({@value #KEY}, {@value #BWRAP_KEY}), looking for
   * bubblewrap on {@code environment}'s {@code PATH}.
   *
   * @throws IllegalArgumentException naming {@value #KEY} when its value is not one of the three
   */
  public static Sandbox fromConfig(ProviderConfig config, Map<String, String> environment) {
    Path userHome = Path.of(System.getProperty("user.home"));
    Optional<Path> records;
    try {
      records = Optional.of(RecordsDirectory.resolve(config, environment, userHome));
    } catch (IllegalArgumentException e) {
      records = Optional.empty();
    }
    return fromConfig(config, environment, records);
  }

  /**
   * {@link #fromConfig(ProviderConfig, Map)} with the records directory in use, which the sandbox
   * hides as it hides the Cotenant home ({@code docs/statelessness.md}, "What a sandboxed server
   * can reach").
   */
  public static Sandbox fromConfig(ProviderConfig config, Map<String, String> environment, Optional<Path> records) {
    Setting setting = Bubblewrap.setting(KEY, config.get(KEY, "auto"));
    Optional<String> bwrap = config.get(BWRAP_KEY).map(String::strip).filter(s -> !s.isEmpty());
    Path userHome = Path.of(System.getProperty("user.home"));
    // What servers inherit is this process's environment; the home is read from both.
    Map<String, String> env = new java.util.HashMap<>(System.getenv());
    env.putAll(environment);
    return new Sandbox(setting, "turned off (" + KEY + "=off)", bwrap, environment.getOrDefault("PATH", ""),
        System.getProperty("os.name", ""), Path.of(System.getProperty("java.io.tmpdir")), userHome,
        HostBoundary.of(env, userHome, records));
  }

  /** A sandbox that is never used: every probe runs in the fallback. */
  public static Sandbox off() {
    return new Sandbox(Setting.OFF, "this probe was built without a sandbox", Optional.empty(), "",
        System.getProperty("os.name", ""),
        Path.of(System.getProperty("java.io.tmpdir")), Path.of(System.getProperty("user.home")));
  }

  /** The mode probes run in, decided on the first call (a trial run of bubblewrap). */
  public Mode mode() {
    Bubblewrap.Decision.Outcome o = decision.get();
    return new Mode(o.usable(), o.required(), o.why());
  }

  /**
   * The mode servers started through {@code sessions} run in: {@link #mode()} when the transport
   * runs their command locally ({@link SessionTransport#runsCommandLocally()}), otherwise no
   * sandbox, since the transport starts them where this one cannot reach.
   */
  public Mode modeFor(SessionTransport sessions) {
    if (decision.setting() != Setting.OFF && !sessions.runsCommandLocally()) {
      return new Mode(false, decision.setting() == Setting.REQUIRED,
          "the session transport in use starts servers itself, where this sandbox cannot contain them");
    }
    return mode();
  }

  /**
   * {@code sessions} with every server started inside the sandbox, or {@code sessions} itself when
   * {@link #modeFor} it is not sandboxed.
   *
   * @param network true when the server may reach the network (an operator's plan allowed it)
   * @param live directories the servers see writable as they are (the probe's own scratch
   *     directories); everything else the configuration names is a private copy
   */
  public SessionTransport around(SessionTransport sessions, boolean network, List<Path> live) {
    Objects.requireNonNull(sessions, "sessions");
    Mode m = modeFor(sessions);
    if (!m.sandboxed()) {
      return sessions;
    }
    return new SandboxedSessions(sessions, new SandboxLayout(decision.get().exe().orElseThrow(), network, temp, home, boundary),
        live);
  }

  /**
   * Removes the directories named {@code <prefix><pid>-...} in the temp directory whose process
   * is gone: what a JVM killed during a probe left (its probe scratch root, its sandboxes'
   * private directories). A directory of a live process, or whose {@value #LOCK} file a sandbox
   * still holds, is never touched, and no symbolic link is followed.
   */
  public static void sweepLeftovers(String prefix) {
    Leftovers.sweep(Path.of(System.getProperty("java.io.tmpdir")), Objects.requireNonNull(prefix, "prefix"));
  }

  /**
   * Removes {@code dir} and everything in it, as far as it can (best effort: what is left is under
   * the temp directory); never follows a link out. A directory that is already gone is no error.
   */
  public static void removeQuietly(Path dir) {
    SandboxLayout.delete(Objects.requireNonNull(dir, "dir"));
  }

  @Override
  public String toString() {
    return "Sandbox[" + decision.setting().name().toLowerCase(Locale.ROOT) + "]";
  }
}
