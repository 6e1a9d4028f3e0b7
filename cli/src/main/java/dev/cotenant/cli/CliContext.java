package dev.cotenant.cli;

import dev.cotenant.gateway.Cotenant;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;
import java.util.function.UnaryOperator;

/**
 * What a {@code cotenant} invocation runs against, so the CLI can run in-process in a test:
 * where output goes, the environment, the working directory, the user's home, and a hook that
 * may adjust the runtime before it is built (a test swaps the pre-flight transport for a fake).
 *
 * @param out standard output: tables and JSON only
 * @param err standard error: progress, notes and error messages
 * @param env the environment ({@code COTENANT_HOME}, {@code PATH})
 * @param workingDirectory relative paths are resolved against it
 * @param home the user's home directory (default records and configuration locations)
 * @param runtime adjusts the runtime builder after the CLI has configured it
 * @param interactive true when {@code err} is a terminal: the progress line then redraws in place
 */
public record CliContext(
    PrintWriter out,
    PrintWriter err,
    Map<String, String> env,
    Path workingDirectory,
    Path home,
    UnaryOperator<Cotenant.Builder> runtime,
    boolean interactive) {
  public CliContext {
    Objects.requireNonNull(out, "out");
    Objects.requireNonNull(err, "err");
    env = Map.copyOf(env);
    workingDirectory = workingDirectory.toAbsolutePath().normalize();
    home = home.toAbsolutePath().normalize();
    Objects.requireNonNull(runtime, "runtime");
  }

  /** A context without a runtime hook, not interactive. */
  public static CliContext of(PrintWriter out, PrintWriter err, Map<String, String> env, Path workingDirectory, Path home) {
    return new CliContext(out, err, env, workingDirectory, home, UnaryOperator.identity(), false);
  }

  /** This context with {@code hook} adjusting the runtime builder. */
  public CliContext withRuntime(UnaryOperator<Cotenant.Builder> hook) {
    return new CliContext(out, err, env, workingDirectory, home, hook, interactive);
  }

  /** {@code path} as given when relative to the working directory, else absolute. */
  String display(Path path) {
    Path abs = path.toAbsolutePath().normalize();
    if (abs.startsWith(workingDirectory) && !abs.equals(workingDirectory)) {
      return workingDirectory.relativize(abs).toString();
    }
    return abs.toString();
  }

  /**
   * A path the operator gave on the command line: {@code ~} and a leading {@code ~/} stand for
   * the user's home (as in the records directory's rule, and for a value the shell did not
   * expand, such as {@code --records-dir=~/r}); anything else relative is resolved against the
   * working directory.
   */
  Path resolve(String value) {
    if (value.equals("~")) {
      return home;
    }
    if (value.startsWith("~/")) {
      return home.resolve(value.substring(2)).normalize();
    }
    return workingDirectory.resolve(value).normalize();
  }
}
