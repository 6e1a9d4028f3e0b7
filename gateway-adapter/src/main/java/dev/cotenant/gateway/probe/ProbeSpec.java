package dev.cotenant.gateway.probe;

import dev.cotenant.api.ProbePass;
import java.util.Objects;
import java.util.Optional;

/**
 * What the statelessness probe calls: a tool with an argument template, optionally a read-back
 * tool called after it, for a number of rounds.
 *
 * @param tool the tool each caller calls with its marker and workspace
 * @param arguments the write call's arguments; must carry {@value ArgumentTemplate#MARKER}
 * @param readBack the call each caller makes after its write call, whose answer must carry its
 *     own marker back; empty when the write call's answer must
 * @param rounds how many rounds (at least {@value ProbePass#MIN_ROUNDS})
 */
public record ProbeSpec(String tool, ArgumentTemplate arguments, Optional<ReadBack> readBack, int rounds) {
  /** The rounds run when none are asked for. */
  public static final int DEFAULT_ROUNDS = 5;

  /**
   * A read-back call.
   *
   * @param tool the tool
   * @param arguments its arguments; placeholders are substituted as in the write call
   */
  public record ReadBack(String tool, ArgumentTemplate arguments) {
    public ReadBack {
      Objects.requireNonNull(tool, "tool");
      Objects.requireNonNull(arguments, "arguments");
      if (tool.isBlank()) {
        throw new IllegalArgumentException("the read-back tool name is empty");
      }
    }
  }

  /**
   * Validates the spec.
   *
   * @throws IllegalArgumentException when fewer than {@value ProbePass#MIN_ROUNDS} rounds are
   *     asked for, the tool is blank, or the write arguments carry no marker
   */
  public ProbeSpec {
    Objects.requireNonNull(tool, "tool");
    Objects.requireNonNull(arguments, "arguments");
    Objects.requireNonNull(readBack, "readBack");
    if (rounds < ProbePass.MIN_ROUNDS) {
      throw new IllegalArgumentException(
          "refusing a statelessness probe of " + rounds + " round" + (rounds == 1 ? "" : "s") + ": it needs at least "
              + ProbePass.MIN_ROUNDS + " (a race that fires once in five rounds is still a leak)");
    }
    if (tool.isBlank()) {
      throw new IllegalArgumentException("the probe's tool name is empty");
    }
    if (!arguments.carriesMarker()) {
      throw new IllegalArgumentException(
          "the arguments of " + tool + " must carry " + ArgumentTemplate.MARKER
              + " in a string value, or no answer can carry its caller's marker back; got " + arguments);
    }
  }

  /** {@value #DEFAULT_ROUNDS} rounds of {@code tool}, without read-back. */
  public static ProbeSpec of(String tool, ArgumentTemplate arguments) {
    return new ProbeSpec(tool, arguments, Optional.empty(), DEFAULT_ROUNDS);
  }

  /** The same spec with {@code n} rounds. */
  public ProbeSpec withRounds(int n) {
    return new ProbeSpec(tool, arguments, readBack, n);
  }

  /** The same spec with a read-back call. */
  public ProbeSpec withReadBack(String readBackTool, ArgumentTemplate readBackArguments) {
    return new ProbeSpec(tool, arguments, Optional.of(new ReadBack(readBackTool, readBackArguments)), rounds);
  }
}
