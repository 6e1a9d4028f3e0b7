package dev.cotenant.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * The base of every {@code cotenant} subcommand: the {@linkplain CommonOptions common options},
 * the {@link CliContext} of the invocation, and the one way to build the runtime
 * ({@link #runtime()}). A subcommand returns its exit status from {@link #call()}, and throws
 * {@code ConfigException} or {@link UsageException} for exit status 2; anything else is an
 * internal error (exit status 1). Register a new subcommand in {@link RootCommand}.
 */
public abstract class CliCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Mixin CommonOptions common = new CommonOptions();

  /** For subclasses. */
  protected CliCommand() {}

  /** The common options as parsed. */
  public CommonOptions common() {
    return common;
  }

  /** The context of this invocation (output, environment, directories). */
  protected CliContext context() {
    return ((RootCommand) spec.root().userObject()).context();
  }

  /**
   * The Cotenant home of this invocation: {@code $COTENANT_HOME}, else {@code ~/.cotenant}.
   *
   * @throws UsageException when {@code $COTENANT_HOME} is a relative path
   */
  protected dev.cotenant.cli.daemon.CotenantHome cotenantHome() throws UsageException {
    try {
      return dev.cotenant.cli.daemon.CotenantHome.resolve(context().env(), context().home());
    } catch (IllegalArgumentException e) {
      throw new UsageException(e.getMessage());
    }
  }

  /**
   * The answer of the daemon of {@code home} to {@code kind} ({@code status}, {@code stop}), or
   * empty after one line on standard error saying no daemon runs ({@code hint} appended).
   */
  protected java.util.Optional<java.util.Map<String, Object>> askDaemon(dev.cotenant.cli.daemon.CotenantHome home,
      String kind, String hint) throws java.io.IOException {
    java.util.Optional<java.util.Map<String, Object>> answer = dev.cotenant.cli.daemon.DaemonControl.ask(home, kind);
    if (answer.isEmpty()) {
      context().err().println("cotenant: no daemon runs for " + home.dir() + hint);
    }
    return answer;
  }

  /** What a command does with its daemon's answer, returning the exit status. */
  @FunctionalInterface
  protected interface DaemonAnswerHandler {
    /** Acts on {@code answer}, the daemon's answer, and returns the exit status. */
    int handle(java.util.Map<String, Object> answer) throws Exception;
  }

  /**
   * Asks the daemon of {@code home} {@code kind} (see {@link #askDaemon}) and returns what
   * {@code then} makes of its answer; {@link StatusCommand#EXIT_NO_ANSWER} after one line on
   * standard error when the socket does not answer, {@link StatusCommand#EXIT_NOT_RUNNING} when no
   * daemon runs.
   */
  protected int withDaemonAnswer(dev.cotenant.cli.daemon.CotenantHome home, String kind, String hint,
      DaemonAnswerHandler then) throws Exception {
    java.util.Optional<java.util.Map<String, Object>> answer;
    try {
      answer = askDaemon(home, kind, hint);
    } catch (java.io.IOException e) {
      context().err().println("cotenant: " + e.getMessage());
      return StatusCommand.EXIT_NO_ANSWER;
    }
    if (answer.isEmpty()) {
      return StatusCommand.EXIT_NOT_RUNNING;
    }
    return then.handle(answer.get());
  }

  /** Builds the runtime from the common options. */
  protected CliRuntime runtime() throws UsageException {
    return CliRuntime.open(context(), common);
  }
}
