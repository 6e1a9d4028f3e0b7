package dev.cotenant.cli;

import dev.cotenant.api.ServerDescription;
import dev.cotenant.cli.steps.ShareSteps;
import dev.cotenant.cli.views.Output;
import dev.cotenant.gateway.config.ConfiguredServer;
import dev.cotenant.gateway.evaluation.MeasureJob;
import dev.cotenant.gateway.evaluation.PassResult;
import dev.cotenant.gateway.probe.ProbePlan;
import dev.cotenant.gateway.probe.SurfaceReport;
import dev.cotenant.gateway.rows.Row;
import dev.cotenant.gateway.sharing.SharingSettings;
import java.util.List;
import java.util.OptionalInt;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code cotenant share NAME [CONFIG...]}: takes one server from nothing to shared, running only
 * what is missing, in order, and saying at each step what it found:
 *
 * <ol>
 *   <li>{@code assess}: the current verdict; a server that already shares stops here;
 *   <li>{@code measure}, when there is no measurement under the server's current identity;
 *   <li>{@code probe}: the whole-surface statelessness probe, unless a whole-surface pass is on
 *       record under the current identity; a tool the probe could not exercise is named, with the
 *       plan entry that would let it ({@code --plan FILE});
 *   <li>{@code register} as {@code shared}, scope {@code tenant}, {@code maxConcurrent}
 *       {@value #DEFAULT_MAX_CONCURRENT} unless {@code --max-concurrent} says otherwise;
 *   <li>{@code verdict}: the verdict again.
 * </ol>
 *
 * <p>The steps are {@link ShareSteps}, which the daemon's {@code POST /api/share} runs too; each is
 * the same code as its own command ({@link MeasureCommand#pass},
 * {@link ProbeStatelessCommand#probeSurface}, {@code Statelessness#register}). Exit status
 * {@value Cli#EXIT_OK} when the server shares one backend across sessions, {@value #EXIT_REFUTED}
 * when a hazard was observed on it, {@value #EXIT_NOT_SHARED} when it is not shared for another
 * reason (each said on the way).
 */
@Command(
    name = "share",
    description =
        "Take one server from nothing to shared: the current verdict, a measurement when there is none, the "
            + "whole-surface statelessness probe, a registration as shared (maxConcurrent " + ShareCommand.DEFAULT_MAX_CONCURRENT
            + " unless --max-concurrent), and the verdict again, saying at each step what it found. Exit status 0 "
            + "when the server shares, 3 when a hazard refutes it, 4 when it is not shared for another reason.")
public final class ShareCommand extends CliCommand {
  /** A hazard was observed on the server (by this probe or before): it is refuted. */
  public static final int EXIT_REFUTED = ShareSteps.REFUTED;

  /** The server is not shared, for a reason other than a hazard (said on the way). */
  public static final int EXIT_NOT_SHARED = ShareSteps.NOT_SHARED;

  /**
   * The {@code maxConcurrent} a registration by {@code share} gets unless {@code --max-concurrent}
   * says otherwise ({@link ShareSteps#DEFAULT_MAX_CONCURRENT}).
   */
  public static final int DEFAULT_MAX_CONCURRENT = ShareSteps.DEFAULT_MAX_CONCURRENT;

  @Mixin ServerArguments server = new ServerArguments();

  @Option(names = "--max-concurrent", paramLabel = "N",
      description = "The most calls the shared backend serves at once (default " + DEFAULT_MAX_CONCURRENT
          + ": the calls the probe had in flight at once).")
  Integer maxConcurrent;

  @Mixin ProbePlanOption plan = new ProbePlanOption();

  @Option(names = "--rounds", paramLabel = "N", description = "Rounds of the probe (at least 3; default 3).")
  Integer rounds;

  /** Created by picocli. */
  public ShareCommand() {}

  @Override
  public Integer call() throws Exception {
    OptionalInt given = RegisterCommand.maxConcurrent(maxConcurrent);
    int n = ProbeStatelessCommand.surfaceRounds(rounds);
    ProbePlan probePlan = plan.read(context());
    CliRuntime rt = runtime();
    ConfiguredServer target = server.probeable(rt);
    String withPlan = "cotenant share " + Output.cell(server.name()) + " --plan FILE"
        + server.configs().stream().map(c -> " " + Output.cell(c)).collect(Collectors.joining());
    ShareSteps.Outcome outcome = new ShareSteps(rt.cotenant(), target, new Terminal(rt),
        SharingSettings.fromConfig(rt.cotenant().config()), withPlan).run(probePlan, n, given);
    if (common.json()) {
      Output.json(rt.context().out(), outcome.json());
    } else {
      rt.context().out().println(outcome.message());
    }
    return outcome.status();
  }

  /**
   * The steps on a terminal: rows labelled as the command line shows files, the measurement's
   * progress and the probe's first line on standard error, and each step's line on standard
   * output as it is done ({@code STEP: what it found}, then its further lines indented), unless
   * {@code --json} prints one document at the end.
   */
  private final class Terminal implements ShareSteps.Surface {
    private final CliRuntime rt;

    Terminal(CliRuntime rt) {
      this.rt = rt;
    }

    @Override
    public Row row(ConfiguredServer s) {
      return rt.rows(List.of(s)).get(0);
    }

    @Override
    public PassResult measure(ServerDescription s) throws InterruptedException, MeasureJob.JobFailedException {
      return MeasureCommand.pass(rt, List.of(s));
    }

    @Override
    public SurfaceReport probe(ConfiguredServer s, ProbePlan p, int rounds) throws InterruptedException {
      return ProbeStatelessCommand.probeSurface(rt, s, p, rounds);
    }

    @Override
    public void said(ObjectNode step, List<String> more) {
      if (common.json()) {
        return;
      }
      rt.context().out().println(step.path("step").asString() + ": " + step.path("message").asString());
      more.forEach(line -> rt.context().out().println("  " + line));
      rt.context().out().flush();
    }
  }
}
