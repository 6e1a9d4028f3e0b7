package dev.cotenant.cli;

import dev.cotenant.cli.views.Output;
import dev.cotenant.api.ServerDescription;
import dev.cotenant.gateway.config.ConfiguredServer;
import dev.cotenant.gateway.config.ServerConfigs;
import dev.cotenant.gateway.evaluation.Evaluator;
import dev.cotenant.gateway.evaluation.MeasureJob;
import dev.cotenant.gateway.evaluation.PassResult;
import dev.cotenant.gateway.evaluation.Progress;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code cotenant measure [CONFIG...] [--server NAME]...}: an uncapped pass over every enabled
 * stdio server whose measurement is missing or under another identity, with a live progress
 * line on standard error, then the same table as {@code assess}.
 */
@Command(
    name = "measure",
    description =
        "Pre-flight every enabled stdio server that has no measurement under its current identity, "
            + "showing progress on standard error, then print the same rows as 'assess'.")
public final class MeasureCommand extends CliCommand {
  /** How often the progress line is refreshed. */
  static final long TICK_MS = 100;
  /** How long a cancelled pass (Ctrl-C) may take to tear its processes down. */
  static final long CANCEL_WAIT_MS = 15_000;

  @Parameters(paramLabel = "CONFIG", arity = "0..*", description = "MCP configuration files (first definition of a name wins).")
  List<String> configs = new ArrayList<>();

  @Option(names = "--server", paramLabel = "NAME", description = "Measure (and show) only this server; repeatable.")
  List<String> servers = new ArrayList<>();

  /** Created by picocli. */
  public MeasureCommand() {}

  @Override
  public Integer call() throws Exception {
    CliRuntime rt = runtime();
    ServerConfigs configured = rt.readConfigs(configs);
    List<ConfiguredServer> selected = rt.select(configured, servers);
    PassResult result = pass(rt, selected.stream().map(ConfiguredServer::description).toList());
    Progress p = result.progress();
    if (p.total() == 0) {
      context().err().println("cotenant: nothing to measure: every enabled stdio server already has a measurement under its current identity");
    } else {
      p.closingLine().ifPresent(line -> context().err().println("cotenant: " + line));
    }
    Output.rows(context().out(), rt.rows(selected), common.json(),
        dev.cotenant.gateway.sharing.SharingSettings.fromConfig(rt.cotenant().config()));
    return Cli.EXIT_OK;
  }

  /**
   * Runs an uncapped pass over {@code servers} (only those due are measured), showing the progress
   * line on standard error; Ctrl-C cancels it and tears its processes down.
   */
  static PassResult pass(CliRuntime rt, List<ServerDescription> servers)
      throws InterruptedException, MeasureJob.JobFailedException {
    Evaluator evaluator = rt.evaluator();
    MeasureJob job = evaluator.startUncapped(servers);
    Thread cancelOnExit = new Thread(() -> cancelAndWait(job), "cotenant-measure-cancel");
    boolean hooked = addShutdownHook(cancelOnExit);
    try {
      return follow(job, rt.context().err(), rt.context().interactive());
    } finally {
      if (hooked) {
        removeShutdownHook(cancelOnExit);
      }
    }
  }

  /** Prints the progress line until the job ends; returns its result. */
  static PassResult follow(MeasureJob job, PrintWriter err, boolean interactive)
      throws InterruptedException, MeasureJob.JobFailedException {
    Progress shown = null;
    java.util.List<String> shownCurrent = java.util.List.of();
    for (;;) {
      Optional<PassResult> done = job.await(TICK_MS, TimeUnit.MILLISECONDS);
      Progress now = done.map(PassResult::progress).orElseGet(job::progress);
      java.util.List<String> current = done.isPresent() ? java.util.List.of() : job.measuring();
      if (now.total() > 0 && (shown == null || shown.done() != now.done() || shown.measured() != now.measured()
          || (interactive && !current.equals(shownCurrent)))) {
        String line = "measuring: " + now.done() + "/" + now.total() + " done, " + now.measured() + " measured"
            + (interactive && !current.isEmpty() ? " (now: " + String.join(", ", current) + ")" : "");
        shownCurrent = current;
        if (interactive) {
          err.print("\r" + line + "\u001b[K");
        } else {
          err.println(line);
        }
        err.flush();
        shown = now;
      }
      if (done.isPresent()) {
        if (interactive && shown != null) {
          err.println();
        }
        return done.get();
      }
    }
  }

  private static void cancelAndWait(MeasureJob job) {
    if (job.isDone()) {
      return;
    }
    job.cancel();
    try {
      job.await(CANCEL_WAIT_MS, TimeUnit.MILLISECONDS);
    } catch (InterruptedException | MeasureJob.JobFailedException e) {
      // Exiting anyway: the pass tore down what it could within the bound.
    }
  }

  private static boolean addShutdownHook(Thread hook) {
    try {
      Runtime.getRuntime().addShutdownHook(hook);
      return true;
    } catch (IllegalStateException e) {
      return false; // already shutting down
    }
  }

  private static void removeShutdownHook(Thread hook) {
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException e) {
      // already shutting down: the hook runs and finds the job done
    }
  }
}
