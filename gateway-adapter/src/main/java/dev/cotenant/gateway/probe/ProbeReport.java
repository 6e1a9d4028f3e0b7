package dev.cotenant.gateway.probe;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What a statelessness probe saw.
 *
 * @param server the configured name
 * @param identity the server's ledger identity ({@code ExecutionIdentity.ledgerKey()}) the probe ran under
 * @param spec what was called
 * @param callerBlocks true when the server declared the caller-identity extension, so every call
 *     also carried its caller's block in {@code _meta}
 * @param rounds every round that completed, in order
 * @param outcome the verdict over the rounds
 * @param notRunReason why the probe stopped before its last round, when it did
 * @param notRecorded when what the outcome records (a leak in the hazard ledger, a pass in the
 *     concurrency records) could not be written: what was not, and why. Empty when everything was
 *     written, or the outcome records nothing. The report stands either way: the rounds happened.
 */
public record ProbeReport(
    String server,
    String identity,
    ProbeSpec spec,
    boolean callerBlocks,
    List<Round> rounds,
    Outcome outcome,
    Optional<String> notRunReason,
    Optional<String> notRecorded) {

  /** The verdict over the rounds. */
  public enum Outcome {
    /** Every round held all three assertions. */
    PASSED,
    /** Some caller saw the other's marker: an observation of {@code cross_session_leak}. */
    LEAKED,
    /** No marker crossed, but some caller did not get its own marker back: nothing is proven. */
    NO_OWN_MARKER,
    /** The probe could not complete (the server could not be started, handshaken or called). */
    NOT_RUN
  }

  public ProbeReport {
    Objects.requireNonNull(server, "server");
    Objects.requireNonNull(identity, "identity");
    Objects.requireNonNull(spec, "spec");
    rounds = List.copyOf(rounds);
    Objects.requireNonNull(outcome, "outcome");
    Objects.requireNonNull(notRunReason, "notRunReason");
    Objects.requireNonNull(notRecorded, "notRecorded");
  }

  /** A report of what the probe saw, before anything was recorded. */
  public ProbeReport(
      String server,
      String identity,
      ProbeSpec spec,
      boolean callerBlocks,
      List<Round> rounds,
      Outcome outcome,
      Optional<String> notRunReason) {
    this(server, identity, spec, callerBlocks, rounds, outcome, notRunReason, Optional.empty());
  }

  /** This report, saying that what its outcome records could not be written, and why. */
  public ProbeReport withNotRecorded(String why) {
    return new ProbeReport(server, identity, spec, callerBlocks, rounds, outcome, notRunReason, Optional.of(why));
  }

  /** True when every round of the spec ran and held all three assertions. */
  public boolean passed() {
    return outcome == Outcome.PASSED;
  }

  /**
   * One round.
   *
   * @param number the round, from 1
   * @param markerA caller A's marker
   * @param markerB caller B's marker
   * @param workspaceA caller A's workspace value
   * @param workspaceB caller B's workspace value
   * @param aNeverSeesB assertion 1
   * @param bNeverSeesA assertion 2
   * @param eachGetsOwn assertion 3
   */
  public record Round(
      int number,
      String markerA,
      String markerB,
      String workspaceA,
      String workspaceB,
      Assertion aNeverSeesB,
      Assertion bNeverSeesA,
      Assertion eachGetsOwn) {
    /** The three assertions, in order. */
    public List<Assertion> assertions() {
      return List.of(aNeverSeesB, bNeverSeesA, eachGetsOwn);
    }

    /** True when a marker crossed between callers in this round. */
    public boolean leaked() {
      return !aNeverSeesB.held() || !bNeverSeesA.held();
    }

    /** True when all three assertions held. */
    public boolean passed() {
      return aNeverSeesB.held() && bNeverSeesA.held() && eachGetsOwn.held();
    }
  }

  /**
   * One assertion of one round.
   *
   * @param name what was asserted
   * @param held whether it held
   * @param detail on failure, which marker appeared where or which answer lacked its marker;
   *     {@code ""} when it held
   */
  public record Assertion(String name, boolean held, String detail) {
    /** Assertion 1. */
    public static final String A_NEVER_SEES_B = "A never sees B's marker";
    /** Assertion 2. */
    public static final String B_NEVER_SEES_A = "B never sees A's marker";
    /** Assertion 3. */
    public static final String EACH_GETS_OWN = "each caller gets its own marker back";

    public Assertion {
      Objects.requireNonNull(name, "name");
      Objects.requireNonNull(detail, "detail");
    }
  }
}
