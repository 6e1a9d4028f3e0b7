package dev.cotenant.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code cotenant hazards list|clear}: the observed-hazard ledger. */
@Command(
    name = "hazards",
    description = "List or clear the observed-hazard ledger.",
    subcommands = {HazardsListCommand.class, HazardsClearCommand.class})
public final class HazardsCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  /** Created by picocli. */
  public HazardsCommand() {}

  @Override
  public Integer call() {
    ((RootCommand) spec.root().userObject())
        .context()
        .err()
        .println("cotenant: missing command (list, clear); see 'cotenant hazards --help'");
    return Cli.EXIT_USAGE;
  }
}
