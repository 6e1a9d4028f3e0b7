package dev.cotenant.cli;

import dev.cotenant.api.Verdict;
import dev.cotenant.cli.views.Output;
import dev.cotenant.cli.views.SeedView;
import dev.cotenant.gateway.Cotenant;
import dev.cotenant.gateway.config.LockedJsonFile;
import dev.cotenant.gateway.config.ServerConfigs;
import dev.cotenant.gateway.seeding.Seeder;
import dev.cotenant.spi.SeedPlan;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code cotenant seed --config FILE [--apply]}: the seeding plan for the servers of one MCP
 * configuration file; with {@code --apply} it is written into the file's {@code "cotenant"}
 * section ({@code stubOverrides}) under the file's lock. Once per server; the global
 * {@code sharing} switch is never touched ({@code wantsShare} is only reported).
 */
@Command(
    name = "seed",
    description =
        "Print the seeding plan for one MCP configuration file; with --apply, write its stub overrides "
            + "into the file's \"cotenant\" section. Never turns \"sharing\" on.")
public final class SeedCommand extends CliCommand {
  @Option(names = "--config", paramLabel = "FILE", required = true, description = "The MCP configuration file to seed.")
  String config;

  @Option(names = "--apply", description = "Write the plan into FILE (under its lock) and record each server as seeded.")
  boolean apply;

  /** Created by picocli. */
  public SeedCommand() {}

  @Override
  public Integer call() throws Exception {
    CliRuntime rt = runtime();
    ServerConfigs servers = rt.readConfigs(List.of(config));
    Path file = context().resolve(config);
    Map<String, Verdict> verdicts = Cotenant.verdicts(rt.rows(servers.list()));
    Seeder seeder = rt.seeder();
    SeedPlan plan = apply ? seeder.apply(new LockedJsonFile(file), verdicts) : seeder.plan(verdicts);
    String shown = context().display(file);
    if (common.json()) {
      Output.json(context().out(), SeedView.json(shown, apply, plan));
      return Cli.EXIT_OK;
    }
    var out = context().out();
    out.println((apply ? "seeded " : "seed plan for ") + Output.cell(shown) + ":");
    List<String> on = new ArrayList<>();
    List<String> off = new ArrayList<>();
    new TreeMap<>(plan.stubOverrides()).forEach((name, stub) -> (stub ? on : off).add(Output.cell(name)));
    out.println("  stub:            " + list(on));
    if (!off.isEmpty()) {
      out.println("  no stub:         " + list(off));
    }
    out.println("  wants sharing:   " + list(names(plan.wantsShare()))
        + (plan.wantsShare().isEmpty() ? "" : " (reported only: seeding never turns \"sharing\" on)"));
    out.println("  already seeded:  " + list(names(plan.alreadySeeded())) + (plan.alreadySeeded().isEmpty() ? "" : " (left as configured)"));
    if (!apply) {
      out.println("nothing written; rerun with --apply to write the stub overrides into " + Output.cell(shown));
    }
    return Cli.EXIT_OK;
  }

  private static List<String> names(java.util.Set<String> names) {
    return new TreeSet<>(names).stream().map(Output::cell).toList();
  }

  private static String list(List<String> names) {
    return names.isEmpty() ? "(none)" : names.stream().collect(Collectors.joining(", "));
  }
}
