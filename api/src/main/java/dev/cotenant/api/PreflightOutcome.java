package dev.cotenant.api;

import java.util.List;
import java.util.Objects;

/**
 * What the core knows about the pre-flight under the server's current identity. Callers branch
 * on the variant: {@link NotRun} ("could not ask") is not a failure, and {@link Ran} with
 * divergent facets ("answered differently") is a note, never a disqualification.
 */
public sealed interface PreflightOutcome {

  /** No stored measurement exists under the current identity. */
  record NotMeasured() implements PreflightOutcome {}

  /**
   * The pre-flight was attempted and could not ask the server (missing binary, exited before
   * answering, needs a credential the host lacks, timed out).
   *
   * @param reason a short human-readable reason
   */
  record NotRun(String reason) implements PreflightOutcome {
    public NotRun {
      Objects.requireNonNull(reason, "reason");
    }
  }

  /**
   * The pre-flight ran.
   *
   * @param divergentFacets the facets whose replayed surface differed between the two callers;
   *     empty when the handshake replayed identically
   */
  record Ran(List<String> divergentFacets) implements PreflightOutcome {
    public Ran {
      divergentFacets = List.copyOf(divergentFacets);
    }

    /** True when nothing diverged. */
    public boolean passed() {
      return divergentFacets.isEmpty();
    }
  }

  /** The shared instance for "no measurement". */
  PreflightOutcome NOT_MEASURED = new NotMeasured();

  /** A pre-flight that ran and replayed identically. */
  static PreflightOutcome passed() {
    return new Ran(List.of());
  }

  /** A pre-flight that ran and saw the given facets diverge. */
  static PreflightOutcome diverged(String... facets) {
    return new Ran(List.of(facets));
  }
}
