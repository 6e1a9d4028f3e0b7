package dev.cotenant.cli;

import dev.cotenant.cli.views.Output;
import dev.cotenant.gateway.config.ServerConfigs;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * {@code cotenant assess [CONFIG...]}: one row per configured server, from the records and the
 * configuration alone. Spawns nothing.
 */
@Command(
    name = "assess",
    description =
        "Print one row per configured server: strength, stub/share recommendation, reasons. Spawns nothing. "
            + "Without CONFIG, reads the usual MCP configuration files that exist.")
public final class AssessCommand extends CliCommand {
  @Parameters(paramLabel = "CONFIG", arity = "0..*", description = "MCP configuration files (first definition of a name wins).")
  List<String> configs = new ArrayList<>();

  /** Created by picocli. */
  public AssessCommand() {}

  @Override
  public Integer call() throws Exception {
    CliRuntime rt = runtime();
    ServerConfigs servers = rt.readConfigs(configs);
    Output.rows(context().out(), rt.rows(servers.list()), common.json(),
        dev.cotenant.gateway.sharing.SharingSettings.fromConfig(rt.cotenant().config()));
    return Cli.EXIT_OK;
  }
}
