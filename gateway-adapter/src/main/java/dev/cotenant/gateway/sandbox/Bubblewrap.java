package dev.cotenant.gateway.sandbox;

import dev.cotenant.api.LogSafe;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Finding bubblewrap and trying it: shared by the probe's {@link Sandbox} and the backends'
 * {@link PidNamespace}, which run it with different namespaces.
 */
final class Bubblewrap {
  /** How long a trial run may take. */
  static final long TRIAL_TIMEOUT_MS = 10_000;

  private Bubblewrap() {}

  /**
   * Whether bubblewrap is used here, decided once, on first use: off when the setting says so,
   * otherwise Linux, an executable (configured, or {@code bwrap} on {@code PATH}) and a trial run
   * with the caller's flags. Thread-safe.
   */
  static final class Decision {
    /**
     * The outcome.
     *
     * @param exe the executable to run, when {@code usable}
     * @param required true when nothing may run without it
     * @param why its version when usable, otherwise why not
     */
    record Outcome(Optional<String> exe, boolean required, String why) {
      boolean usable() {
        return exe.isPresent();
      }
    }

    private final Sandbox.Setting setting;
    private final String offWhy;
    private final Optional<String> configured;
    private final String path;
    private final String osName;
    private final List<String> flags;
    private final String needs;
    private final String cannot;
    private volatile @org.jspecify.annotations.Nullable Outcome outcome;

    /**
     * @param needs what needs bubblewrap, for the message on another system ({@code the sandbox})
     * @param cannot what a failed trial could not do ({@code create a pid namespace})
     */
    Decision(Sandbox.Setting setting, String offWhy, Optional<String> configured, String path, String osName,
        List<String> flags, String needs, String cannot) {
      this.setting = setting;
      this.offWhy = offWhy;
      this.configured = configured;
      this.path = path;
      this.osName = osName;
      this.flags = List.copyOf(flags);
      this.needs = needs;
      this.cannot = cannot;
    }

    Sandbox.Setting setting() {
      return setting;
    }

    Outcome get() {
      Outcome o = outcome;
      if (o == null) {
        synchronized (this) {
          o = outcome;
          if (o == null) {
            o = decide();
            outcome = o;
          }
        }
      }
      return o;
    }

    private Outcome decide() {
      boolean required = setting == Sandbox.Setting.REQUIRED;
      if (setting == Sandbox.Setting.OFF) {
        return new Outcome(Optional.empty(), false, offWhy);
      }
      if (!osName.toLowerCase(java.util.Locale.ROOT).startsWith("linux")) {
        return new Outcome(Optional.empty(), required, needs + " needs Linux and bubblewrap; this is "
            + LogSafe.escape(osName, 40));
      }
      Optional<String> found = configured.isPresent() ? configured : onPath("bwrap", path);
      if (found.isEmpty()) {
        return new Outcome(Optional.empty(), required, "no bwrap on PATH; install bubblewrap (Debian: apt-get install"
            + " bubblewrap) or name it with " + Sandbox.BWRAP_KEY);
      }
      Optional<String> failure = trial(found.get(), flags, cannot);
      if (failure.isPresent()) {
        return new Outcome(Optional.empty(), required, failure.get());
      }
      return new Outcome(found, required, version(found.get()));
    }
  }

  /** The setting {@code raw} names under {@code key}: {@code auto}, {@code off} or {@code required}, any case. */
  static Sandbox.Setting setting(String key, String raw) {
    return switch (raw.strip().toLowerCase(java.util.Locale.ROOT)) {
      case "auto" -> Sandbox.Setting.AUTO;
      case "off" -> Sandbox.Setting.OFF;
      case "required" -> Sandbox.Setting.REQUIRED;
      default -> throw new IllegalArgumentException(key + " must be auto, off or required, got '"
          + LogSafe.escape(raw, 40) + "'");
    };
  }

  /** The executable named {@code name} in a directory of {@code path}, if there is one. */
  static Optional<String> onPath(String name, String path) {
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

  /**
   * Runs {@code exe flags -- true}; empty when it worked, else why not, in one line ending in
   * {@code cannot} + {@code what} when bubblewrap refused.
   */
  static Optional<String> trial(String exe, List<String> flags, String what) {
    List<String> command = new ArrayList<>();
    command.add(exe);
    command.addAll(flags);
    command.addAll(List.of("--", "true"));
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
        return Optional.of(LogSafe.escape(exe, 120) + " cannot " + what + " here (exit "
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

  /** What {@code exe --version} says ({@code bubblewrap 0.8.0}), or {@code bubblewrap}. */
  static String version(String exe) {
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
}
