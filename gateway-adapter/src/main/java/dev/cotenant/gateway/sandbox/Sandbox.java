package dev.cotenant.gateway.sandbox;

import dev.cotenant.api.LogSafe;
import dev.cotenant.spi.ProviderConfig;
import dev.cotenant.spi.SessionTransport;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
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

  /** How long the trial run of bubblewrap may take. */
  private static final long TRIAL_TIMEOUT_MS = 10_000;

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

  private final Setting setting;
  private final String offWhy;
  private final Optional<String> configuredBwrap;
  private final String path;
  private final String osName;
  private final Path temp;
  private final Path home;
  private volatile @Nullable Mode mode;
  private volatile @Nullable String bwrap;

  Sandbox(Setting setting, String offWhy, Optional<String> configuredBwrap, String path, String osName, Path temp,
      Path home) {
    this.setting = Objects.requireNonNull(setting, "setting");
    this.offWhy = Objects.requireNonNull(offWhy, "offWhy");
    this.configuredBwrap = Objects.requireNonNull(configuredBwrap, "configuredBwrap");
    this.path = Objects.requireNonNull(path, "path");
    this.osName = Objects.requireNonNull(osName, "osName");
    this.temp = Objects.requireNonNull(temp, "temp");
    this.home = Objects.requireNonNull(home, "home");
  }

  /**
   * The sandbox {@code config} asks for ({@value #KEY}, {@value #BWRAP_KEY}), looking for
   * bubblewrap on {@code environment}'s {@code PATH}.
   *
   * @throws IllegalArgumentException naming {@value #KEY} when its value is not one of the three
   */
  public static Sandbox fromConfig(ProviderConfig config, Map<String, String> environment) {
    String raw = config.get(KEY, "auto").strip().toLowerCase(Locale.ROOT);
    Setting setting;
    switch (raw) {
      case "auto" -> setting = Setting.AUTO;
      case "off" -> setting = Setting.OFF;
      case "required" -> setting = Setting.REQUIRED;
      default -> throw new IllegalArgumentException(KEY + " must be auto, off or required, got '"
          + LogSafe.escape(config.get(KEY, ""), 40) + "'");
    }
    Optional<String> bwrap = config.get(BWRAP_KEY).map(String::strip).filter(s -> !s.isEmpty());
    return new Sandbox(setting, "turned off (" + KEY + "=off)", bwrap, environment.getOrDefault("PATH", ""),
        System.getProperty("os.name", ""),
        Path.of(System.getProperty("java.io.tmpdir")), Path.of(System.getProperty("user.home")));
  }

  /** A sandbox that is never used: every probe runs in the fallback. */
  public static Sandbox off() {
    return new Sandbox(Setting.OFF, "this probe was built without a sandbox", Optional.empty(), "",
        System.getProperty("os.name", ""),
        Path.of(System.getProperty("java.io.tmpdir")), Path.of(System.getProperty("user.home")));
  }

  /** The mode probes run in, decided on the first call (a trial run of bubblewrap). */
  public Mode mode() {
    Mode m = mode;
    if (m == null) {
      synchronized (this) {
        m = mode;
        if (m == null) {
          m = decide();
          mode = m;
        }
      }
    }
    return m;
  }

  /**
   * The mode servers started through {@code sessions} run in: {@link #mode()} when the transport
   * runs their command locally ({@link SessionTransport#runsCommandLocally()}), otherwise no
   * sandbox, since the transport starts them where this one cannot reach.
   */
  public Mode modeFor(SessionTransport sessions) {
    if (setting != Setting.OFF && !sessions.runsCommandLocally()) {
      return new Mode(false, setting == Setting.REQUIRED,
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
    return new SandboxedSessions(sessions, new SandboxLayout(Objects.requireNonNull(bwrap), network, temp, home), live);
  }

  /**
   * Removes the directories named {@code <prefix><pid>-...} in the temp directory whose process
   * is gone: what a JVM killed during a probe left (its probe scratch root, its sandboxes'
   * private directories). A directory of a live process is never touched.
   */
  public static void sweepLeftovers(String prefix) {
    SandboxLayout.sweep(Path.of(System.getProperty("java.io.tmpdir")), Objects.requireNonNull(prefix, "prefix"));
  }

  private Mode decide() {
    boolean required = setting == Setting.REQUIRED;
    if (setting == Setting.OFF) {
      return new Mode(false, false, offWhy);
    }
    if (!osName.toLowerCase(Locale.ROOT).startsWith("linux")) {
      return new Mode(false, required, "the sandbox needs Linux and bubblewrap; this is " + LogSafe.escape(osName, 40));
    }
    Optional<String> found = configuredBwrap.isPresent() ? configuredBwrap : onPath("bwrap");
    if (found.isEmpty()) {
      return new Mode(false, required, "no bwrap on PATH; install bubblewrap (Debian: apt-get install bubblewrap)"
          + " or name it with " + BWRAP_KEY);
    }
    String exe = found.get();
    Optional<String> failure = trial(exe);
    if (failure.isPresent()) {
      return new Mode(false, required, failure.get());
    }
    bwrap = exe;
    return new Mode(true, required, version(exe));
  }

  private Optional<String> onPath(String name) {
    for (String dir : path.split(File.pathSeparator)) {
      if (dir.isEmpty()) {
        continue;
      }
      Path candidate = Path.of(dir, name);
      if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
        return Optional.of(candidate.toString());
      }
    }
    return Optional.empty();
  }

  /** Runs {@code true} in the sandbox's namespaces; empty when it worked, else why not. */
  private Optional<String> trial(String exe) {
    List<String> command = new ArrayList<>();
    command.add(exe);
    command.addAll(NAMESPACES);
    command.addAll(List.of("--unshare-net", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp",
        "--", "true"));
    try {
      Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectInput(ProcessBuilder.Redirect.PIPE).start();
      p.getOutputStream().close();
      boolean done = p.waitFor(TRIAL_TIMEOUT_MS, TimeUnit.MILLISECONDS);
      if (!done) {
        p.destroyForcibly();
        p.waitFor(TRIAL_TIMEOUT_MS, TimeUnit.MILLISECONDS);
        return Optional.of(LogSafe.escape(exe, 120) + " did not finish a trial run in " + TRIAL_TIMEOUT_MS / 1000 + " s");
      }
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
      if (p.exitValue() != 0) {
        return Optional.of(LogSafe.escape(exe, 120) + " cannot create the sandbox's namespaces here (exit "
            + p.exitValue() + (out.isEmpty() ? "" : ": " + LogSafe.escape(lastLine(out), 160))
            + "); user namespaces may be turned off");
      }
      return Optional.empty();
    } catch (IOException e) {
      return Optional.of(LogSafe.escape(exe, 120) + " could not be run: " + LogSafe.escape(String.valueOf(e.getMessage()), 160));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.of("interrupted while trying " + LogSafe.escape(exe, 120));
    }
  }

  private static String version(String exe) {
    try {
      Process p = new ProcessBuilder(exe, "--version").redirectErrorStream(true).start();
      p.getOutputStream().close();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
      p.waitFor(TRIAL_TIMEOUT_MS, TimeUnit.MILLISECONDS);
      if (!out.isEmpty()) {
        return LogSafe.escape(lastLine(out), 60);
      }
    } catch (IOException e) {
      // the trial worked; only the version is unknown
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return "bubblewrap";
  }

  private static String lastLine(String text) {
    String[] lines = text.split("\n");
    return lines[lines.length - 1].strip();
  }

  @Override
  public String toString() {
    return "Sandbox[" + setting.name().toLowerCase(Locale.ROOT) + "]";
  }
}
