package dev.cotenant.cli.steps;

import dev.cotenant.api.ServerDescription;
import dev.cotenant.gateway.Cotenant;
import dev.cotenant.gateway.evaluation.MeasureJob;
import java.util.List;

/** How the CLI and the daemon's API run a measurement pass: {@value #PARALLELISM} servers at once. Stateless. */
public final class MeasurePass {
  /** Servers measured at once in a pass (each pre-flight spawns two processes). */
  public static final int PARALLELISM = 2;

  private MeasurePass() {}

  /** Starts an uncapped pass over {@code servers} on {@code cotenant}'s evaluator. */
  public static MeasureJob start(Cotenant cotenant, List<ServerDescription> servers) {
    return cotenant.evaluator(PARALLELISM).startUncapped(servers);
  }
}
