package dev.cotenant.cli;

import dev.cotenant.cli.views.HazardsView;
import dev.cotenant.cli.views.Output;
import dev.cotenant.spi.HazardLedger;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * {@code cotenant hazards clear NAME}: forgets every hazard record of one server, under every
 * launch identity. The only explicit operator path to undo an observation.
 */
@Command(name = "clear", description = "Forget every hazard recorded for one server (all launch identities).")
public final class HazardsClearCommand extends CliCommand {
  @Parameters(paramLabel = "NAME", arity = "1", description = "The server name.")
  String name;

  /** Created by picocli. */
  public HazardsClearCommand() {}

  @Override
  public Integer call() throws Exception {
    CliRuntime rt = runtime();
    HazardLedger ledger = rt.stores().hazardLedger();
    boolean had = ledger.clear(name);
    ledger.flush();
    if (common.json()) {
      Output.json(context().out(), HazardsView.cleared(name, had));
    } else if (had) {
      context().out().println("cleared every hazard record of " + Output.cell(name));
    } else {
      context().out().println("no hazard records for " + Output.cell(name) + "; nothing to clear");
    }
    return Cli.EXIT_OK;
  }
}
