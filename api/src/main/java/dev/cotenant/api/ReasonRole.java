package dev.cotenant.api;

/**
 * The part a reason code plays in a verdict. Roles that ground a strength map to it through
 * {@link #grounds()}; {@link #SUPPORTING} and {@link #NOTE} ground nothing and gate nothing.
 */
public enum ReasonRole {
  /** An observation from the hazard ledger: grounds {@link Strength#REFUTED}. */
  OBSERVATION(Strength.REFUTED),
  /** A configuration or transport fact: grounds {@link Strength#DISQUALIFIED}. */
  DISQUALIFYING_FACT(Strength.DISQUALIFIED),
  /** A declaration or a probe-backed registration: grounds {@link Strength#DECLARED}. */
  DECLARATION(Strength.DECLARED),
  /** A pre-flight that ran and replayed identically: grounds {@link Strength#MEASURED}. */
  MEASUREMENT(Strength.MEASURED),
  /** Positive or explanatory evidence that never grounds a strength. */
  SUPPORTING(null),
  /** Something an operator should read; it never gates anything. */
  NOTE(null),
  /** The statement that nothing disqualifying was found: grounds {@link Strength#NO_OBJECTION}. */
  NO_OBJECTION(Strength.NO_OBJECTION),
  /** The statement that nothing was observed: grounds {@link Strength#UNKNOWN}. */
  UNKNOWN(Strength.UNKNOWN);

  private final Strength grounds;

  ReasonRole(Strength grounds) {
    this.grounds = grounds;
  }

  /** The strength this role grounds, or {@code null} for roles that ground none. */
  @org.jspecify.annotations.Nullable
  Strength groundsOrNull() {
    return grounds;
  }

  /** The strength this role grounds, if any. */
  public java.util.Optional<Strength> grounds() {
    return java.util.Optional.ofNullable(grounds);
  }
}
