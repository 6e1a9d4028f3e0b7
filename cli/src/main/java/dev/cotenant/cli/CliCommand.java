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

  /** Builds the runtime from the common options. */
  protected CliRuntime runtime() throws UsageException {
    return CliRuntime.open(context(), common);
  }
}
