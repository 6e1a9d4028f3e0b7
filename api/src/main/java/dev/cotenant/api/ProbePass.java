package dev.cotenant.api;

import java.util.Objects;

/**
 * A statelessness probe that passed.
 *
 * @param identity the {@link ExecutionIdentity#ledgerKey()} of the server it passed under
 * @param tool the tool the probe called
 * @param rounds how many rounds passed (at least {@link #MIN_ROUNDS})
 * @param passedAt seconds since the epoch
 */
public record ProbePass(String identity, String tool, int rounds, double passedAt) {
  /** A probe of fewer rounds proves too little to be recorded. */
  public static final int MIN_ROUNDS = 3;

  public ProbePass {
    Objects.requireNonNull(identity, "identity");
    Objects.requireNonNull(tool, "tool");
    if (identity.isEmpty()) {
      throw new IllegalArgumentException("a probe pass must name the identity it passed under");
    }
    if (tool.isEmpty()) {
      throw new IllegalArgumentException("a probe pass must name the tool it called");
    }
    if (rounds < MIN_ROUNDS) {
      throw new IllegalArgumentException(
          "a statelessness probe needs at least " + MIN_ROUNDS + " rounds; this one ran " + rounds);
    }
  }

  /** The detail of {@code statelessness_probe_passed}: tool and rounds. */
  public String detail() {
    return tool + " x" + rounds;
  }
}
