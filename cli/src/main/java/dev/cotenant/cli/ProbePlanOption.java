package dev.cotenant.cli;

import dev.cotenant.gateway.probe.ProbePlan;
import picocli.CommandLine.Option;

/**
 * {@code --plan FILE}, the operator's probe plan (docs/statelessness.md), mixed into
 * {@code probe-stateless} and {@code share} with {@code @Mixin}.
 */
public final class ProbePlanOption {
  @Option(names = "--plan", paramLabel = "FILE",
      description = "A probe plan: per tool, arguments to use, a destructive tool to include, or a tool to skip with a reason.")
  String plan;

  /** Created by picocli. */
  public ProbePlanOption() {}

  /** True when {@code --plan} was given. */
  boolean given() {
    return plan != null;
  }

  /**
   * The plan {@code --plan FILE} names, or the empty plan without one.
   *
   * @throws UsageException when the file cannot be read or is not a plan, naming it and the problem
   */
  ProbePlan read(CliContext context) throws UsageException {
    try {
      return plan == null ? ProbePlan.empty() : ProbePlan.read(context.resolve(plan));
    } catch (IllegalArgumentException e) {
      throw new UsageException(e.getMessage());
    }
  }
}
