package dev.cotenant.cli;

import dev.cotenant.api.HazardCode;
import dev.cotenant.cli.views.HazardsView;
import dev.cotenant.cli.views.Output;
import dev.cotenant.spi.HazardLedger;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code cotenant hazards list}: every record of the observed-hazard ledger, per server and
 * launch identity. A ledger that cannot be read completely is listed as far as it could be read,
 * after a warning on standard error naming the file and the problem (and where an unreadable copy
 * was moved); {@code --json} carries the same reason as {@code "incomplete"}.
 */
@Command(name = "list", description = "List every hazard the ledger holds, per server and launch identity.")
public final class HazardsListCommand extends CliCommand {
  /** How many characters of an identity hash the table shows. */
  static final int SHORT_IDENTITY = 12;

  /** Created by picocli. */
  public HazardsListCommand() {}

  @Override
  public Integer call() throws Exception {
    CliRuntime rt = runtime();
    HazardLedger.Snapshot snapshot = rt.stores().hazardLedger().snapshot();
    snapshot.incomplete().ifPresent(why -> rt.warn(unreadable(why)));
    if (common.json()) {
      ObjectNode root = HazardsView.json(snapshot);
      Output.json(context().out(), root);
      return Cli.EXIT_OK;
    }
    if (snapshot.servers().isEmpty()) {
      context().err().println(
          (snapshot.complete() ? "cotenant: no hazards observed" : "cotenant: no hazards could be read")
              + " (records in " + rt.recordsDirectory() + ")");
      return Cli.EXIT_OK;
    }
    List<List<String>> table = new ArrayList<>();
    table.add(List.of("NAME", "IDENTITY", "CODES", "COUNT", "LAST_SEEN"));
    snapshot.servers().forEach(
        (name, ids) ->
            ids.forEach(
                (id, o) ->
                    table.add(
                        List.of(
                            Output.cell(name),
                            id.isEmpty() ? "(unattributed)" : Output.cell(id.substring(0, Math.min(SHORT_IDENTITY, id.length()))),
                            o.codes().stream().map(HazardCode::wireName).collect(Collectors.joining(", ")),
                            Long.toString(o.count()),
                            o.lastSeen() > 0 ? Instant.ofEpochMilli(Math.round(o.lastSeen() * 1000)).toString() : "-"))));
    Output.table(context().out(), table);
    return Cli.EXIT_OK;
  }

  /** The warning for a ledger that cannot be read completely. */
  static String unreadable(String why) {
    return "the hazard ledger cannot be read completely: " + Output.cell(why)
        + "; listed as far as it could be read; until it can be read completely nothing recommends sharing "
        + "and `cotenant register --model shared` is refused";
  }
}
