package dev.cotenant.cli;

import java.util.Objects;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.IVersionProvider;
import picocli.CommandLine.ScopeType;

/** The {@code cotenant} command: every subcommand is registered here, and only here. */
@Command(
    name = "cotenant",
    scope = ScopeType.INHERIT,
    mixinStandardHelpOptions = true,
    versionProvider = RootCommand.Version.class,
    description = "Decides whether MCP servers may share one backend process across client sessions.",
    subcommands = {
      AssessCommand.class, MeasureCommand.class, HazardsCommand.class, SeedCommand.class,
      ProbeStatelessCommand.class, RegisterCommand.class, ServeCommand.class, ConnectCommand.class,
      StatusCommand.class, StopCommand.class, RouteCommand.class, DashboardCommand.class, ShareCommand.class})
public final class RootCommand implements Callable<Integer> {
  private final CliContext context;

  /** The root command of an invocation in {@code context}. */
  public RootCommand(CliContext context) {
    this.context = Objects.requireNonNull(context, "context");
  }

  /** The context of this invocation. */
  public CliContext context() {
    return context;
  }

  @Override
  public Integer call() {
    context.err().println("cotenant: missing command (assess, measure, hazards, seed, probe-stateless, register, share, serve, connect, status, stop, route, dashboard); see 'cotenant --help'");
    return Cli.EXIT_USAGE;
  }

  /** The version from the jar's manifest. */
  static final class Version implements IVersionProvider {
    @Override
    public String[] getVersion() {
      String v = RootCommand.class.getPackage().getImplementationVersion();
      return new String[] {"cotenant " + (v == null ? "(development build)" : v)};
    }
  }
}
