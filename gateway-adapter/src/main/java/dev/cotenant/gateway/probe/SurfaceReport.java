package dev.cotenant.gateway.probe;

import dev.cotenant.api.HazardCode;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * What a whole-surface statelessness probe saw ({@link SurfaceProbe}): a result per listed tool,
 * per session-visible listing, the notifications and server requests the shared backend sent,
 * the hazards they amount to, and a coverage figure.
 *
 * @param server the configured name
 * @param identity the server's ledger identity the probe ran under
 * @param rounds the rounds each caller ran
 * @param callerBlocks true when the server declared the caller-identity extension, so every
 *     request also carried its caller's block in {@code _meta}
 * @param tools one result per tool the server listed, in the order listed
 * @param listings one result per listing the callers read after each round ({@code tools/list},
 *     {@code resources/list}, {@code resources/templates/list}, {@code prompts/list}, and
 *     {@code resources/read} of the resources that appeared)
 * @param traffic what the shared backend sent on its own initiative
 * @param hazards the hazards observed, each with the first finding that showed it
 * @param outcome the verdict
 * @param notRunReason why the probe stopped before its end, when it did
 * @param notRecorded what could not be written to the records, and why; empty when everything
 *     the outcome records was written
 * @param planNotes the plan's entries for tools the server does not list
 * @param elapsedMillis how long the probe took, spawns and teardown included
 * @param sandbox where the backends ran: in the sandbox, or in the fallback and why
 * @param annotationNotes tools annotated {@code readOnlyHint: true} whose calls showed in later
 *     answers, one line each with the evidence; a note, not a hazard (such a tool was called with
 *     the writers, and what it keeps is judged like any state)
 * @param clients which client shapes the evidence covers: after a pass as callers declaring no
 *     client capability, a second pass as callers declaring those a server asks its clients about
 *     ({@code roots}, {@code sampling}, {@code elicitation}), each answering with values of its own
 */
public record SurfaceReport(
    String server,
    String identity,
    int rounds,
    boolean callerBlocks,
    List<ToolResult> tools,
    List<ListingResult> listings,
    Traffic traffic,
    Map<HazardCode, String> hazards,
    Outcome outcome,
    Optional<String> notRunReason,
    Optional<String> notRecorded,
    List<String> planNotes,
    long elapsedMillis,
    Sandboxing sandbox,
    List<String> annotationNotes,
    ClientCoverage clients) {

  /** A report whose evidence covers clients declaring no capability a server asks about (no second pass). */
  public SurfaceReport(String server, String identity, int rounds, boolean callerBlocks, List<ToolResult> tools,
      List<ListingResult> listings, Traffic traffic, Map<HazardCode, String> hazards, Outcome outcome,
      Optional<String> notRunReason, Optional<String> notRecorded, List<String> planNotes, long elapsedMillis,
      Sandboxing sandbox, List<String> annotationNotes) {
    this(server, identity, rounds, callerBlocks, tools, listings, traffic, hazards, outcome, notRunReason, notRecorded,
        planNotes, elapsedMillis, sandbox, annotationNotes, ClientCoverage.NOT_TRIED);
  }

  /** A report with no annotation notes. */
  public SurfaceReport(String server, String identity, int rounds, boolean callerBlocks, List<ToolResult> tools,
      List<ListingResult> listings, Traffic traffic, Map<HazardCode, String> hazards, Outcome outcome,
      Optional<String> notRunReason, Optional<String> notRecorded, List<String> planNotes, long elapsedMillis,
      Sandboxing sandbox) {
    this(server, identity, rounds, callerBlocks, tools, listings, traffic, hazards, outcome, notRunReason, notRecorded,
        planNotes, elapsedMillis, sandbox, List.of());
  }

  /**
   * Where a probe's backends ran.
   *
   * @param sandboxed true when inside the sandbox, where every tool may be called; false in the
   *     fallback, where destructive tools are not called
   * @param network true when the operator's plan let the backends reach the network
   * @param why what sandboxed them ({@code bubblewrap 0.8.0}) or why nothing did
   */
  public record Sandboxing(boolean sandboxed, boolean network, String why) {
    public Sandboxing {
      Objects.requireNonNull(why, "why");
    }

    /** One line for a report: {@code sandbox: bubblewrap 0.8.0 (no network)}, or the fallback and why. */
    public String describe() {
      return sandboxed
          ? "sandbox: " + why + (network ? " (network allowed by the plan)" : " (no network)")
          : "sandbox: none (" + why + "); destructive tools are not called";
    }
  }

  /** The verdict of a whole-surface probe. */
  public enum Outcome {
    /**
     * Every listed tool was exercised (called, with an answer that was not an error on the
     * dedicated backends) or skipped by the operator's plan, and nothing differed or leaked.
     */
    PASSED,
    /** A hazard was observed: a marker crossed, an answer changed, or traffic could not be attributed. */
    HAZARD,
    /** Nothing was observed, but some tool was not exercised (skipped without a plan, no arguments, an error, a hang). */
    NOT_PROVEN,
    /** The probe could not complete: the server could not be started, handshaken or kept alive. */
    NOT_RUN
  }

  public SurfaceReport {
    Objects.requireNonNull(server, "server");
    Objects.requireNonNull(identity, "identity");
    tools = List.copyOf(tools);
    listings = List.copyOf(listings);
    Objects.requireNonNull(traffic, "traffic");
    hazards = Map.copyOf(hazards);
    Objects.requireNonNull(outcome, "outcome");
    Objects.requireNonNull(notRunReason, "notRunReason");
    Objects.requireNonNull(notRecorded, "notRecorded");
    planNotes = List.copyOf(planNotes);
    Objects.requireNonNull(sandbox, "sandbox");
    annotationNotes = List.copyOf(annotationNotes);
    Objects.requireNonNull(clients, "clients");
  }

  /** This report, saying that what its outcome records could not be written, and why. */
  public SurfaceReport withNotRecorded(String why) {
    return new SurfaceReport(server, identity, rounds, callerBlocks, tools, listings, traffic, hazards, outcome,
        notRunReason, Optional.of(why), planNotes, elapsedMillis, sandbox, annotationNotes, clients);
  }

  /** This report with {@code clients} as its client coverage, and {@code extraMillis} more elapsed. */
  public SurfaceReport withClients(ClientCoverage clients, long extraMillis) {
    return new SurfaceReport(server, identity, rounds, callerBlocks, tools, listings, traffic, hazards, outcome,
        notRunReason, notRecorded, planNotes, elapsedMillis + extraMillis, sandbox, annotationNotes, clients);
  }

  /**
   * Which client shapes a whole-surface probe's evidence covers. Clients that declare none of
   * the capabilities a server asks its clients about are covered by the probe's first pass; those
   * that declare them ({@link #declared()}) only when a second pass, run as callers declaring them
   * all and each answering the server's {@code roots/list}, {@code sampling/createMessage} and
   * {@code elicitation/create} with values of its own, passed as well. What that second pass saw
   * is reported, never recorded as a hazard: it speaks of clients of that shape only, and a client
   * of that shape is then simply not shared.
   *
   * @param declared the capabilities the second pass's callers declared; empty when it did not run
   * @param covered true when the second pass passed
   * @param why why the shape is not covered (the second pass's outcome and first finding, or why it
   *     did not run); {@code ""} when covered
   */
  public record ClientCoverage(List<String> declared, boolean covered, String why) {
    /** No second pass was tried (a report built by hand, or a probe that did not pass). */
    public static final ClientCoverage NOT_TRIED =
        new ClientCoverage(List.of(), false, "no pass as clients declaring roots, sampling or elicitation was run");

    public ClientCoverage {
      declared = List.copyOf(declared);
      Objects.requireNonNull(why, "why");
      if (covered != why.isEmpty()) {
        throw new IllegalArgumentException(covered ? "a covered client shape gives no reason" : "say why a client shape is not covered");
      }
    }

    /** The capabilities the evidence covers beyond none: {@link #declared()} when covered, else none. */
    public List<String> capabilities() {
      return covered ? declared : List.of();
    }

    /** One line: {@code clients declaring elicitation, roots, sampling: covered}, or why not. */
    public String describe() {
      String shape = declared.isEmpty() ? "clients declaring roots, sampling or elicitation"
          : "clients declaring " + String.join(", ", new java.util.TreeSet<>(declared));
      return shape + ": " + (covered ? "covered (they may share a backend)" : "not covered, so they get backends of their own: " + why);
    }
  }

  /** True when the probe passed. */
  public boolean passed() {
    return outcome == Outcome.PASSED;
  }

  /** The tools exercised, in the order listed. */
  public List<String> exercised() {
    return tools.stream().filter(t -> t.status() == ToolStatus.PASSED).map(ToolResult::name).toList();
  }

  /** The tools the operator's plan skipped, with the plan's reason. */
  public Map<String, String> skippedByPlan() {
    java.util.Map<String, String> m = new java.util.TreeMap<>();
    tools.stream().filter(t -> t.status() == ToolStatus.SKIPPED_BY_PLAN).forEach(t -> m.put(t.name(), t.why()));
    return m;
  }

  /**
   * The coverage figure: {@code 11 of 13 tools exercised (84 %), 1 skipped by plan}. A tool
   * skipped by plan counts as covered, not as exercised.
   */
  public String coverage() {
    int listed = tools.size();
    int exercised = exercised().size();
    int planned = skippedByPlan().size();
    String pct = listed == 0 ? "100" : String.valueOf(exercised * 100 / listed);
    return exercised + " of " + listed + " tool" + (listed == 1 ? "" : "s") + " exercised (" + pct + " %)"
        + (planned == 0 ? "" : ", " + planned + " skipped by plan");
  }

  /** What became of one tool. */
  public enum ToolStatus {
    /** Called in every round, answered without error on the dedicated backends, nothing differed or leaked. */
    PASSED,
    /** A finding on its answers is an observation. */
    LEAKED,
    /** Called, but nothing was proven: an error answer, no answer in time, or a difference that cannot be trusted. */
    NOT_PROVEN,
    /** Skipped by the operator's plan, with its reason: covered. */
    SKIPPED_BY_PLAN,
    /**
     * Skipped without a plan (annotated destructive with no sandbox, not read-only while the plan
     * allows the network, or no arguments could be synthesised): not covered.
     */
    SKIPPED
  }

  /**
   * One tool's result.
   *
   * @param name the tool name
   * @param status what became of it
   * @param why for a skip or a not-proven, why; {@code ""} otherwise
   * @param arguments where the arguments came from ({@code schema} or {@code plan}) and the
   *     template, {@code ""} when the tool was not called
   * @param findings what was seen on its answers
   * @param volatileParts where its dedicated answers differed from each other (ignored)
   */
  public record ToolResult(
      String name, ToolStatus status, String why, String arguments, List<Finding> findings, List<String> volatileParts) {
    public ToolResult {
      Objects.requireNonNull(name, "name");
      Objects.requireNonNull(status, "status");
      Objects.requireNonNull(why, "why");
      Objects.requireNonNull(arguments, "arguments");
      findings = List.copyOf(findings);
      volatileParts = List.copyOf(volatileParts);
    }
  }

  /**
   * One listing's result.
   *
   * @param method the listing ({@code resources/list}, ...; {@code resources/read} for every read)
   * @param leaked true when a finding on it is an observation
   * @param findings what was seen on its answers
   * @param volatileParts where its dedicated answers differed from each other (ignored)
   */
  public record ListingResult(String method, boolean leaked, List<Finding> findings, List<String> volatileParts) {
    public ListingResult {
      Objects.requireNonNull(method, "method");
      findings = List.copyOf(findings);
      volatileParts = List.copyOf(volatileParts);
    }
  }

  /** How a finding showed. */
  public enum FindingKind {
    /** The other caller's marker or workspace value appeared. The sharpest signal. */
    MARKER,
    /** The answer on the shared backend differed from the same call on a dedicated one, beyond its volatile parts. */
    CHANGED_ANSWER,
    /** A changed answer after the shared run had lost a call: reported, not recorded. */
    UNCONFIRMED
  }

  /**
   * One thing seen.
   *
   * @param round the round (0 for the listings read before the first round)
   * @param caller {@code A} or {@code B}, whose answer it was
   * @param kind how it showed
   * @param path where in the answer ({@code $.result.content[0].text})
   * @param detail what was seen, escaped and bounded
   */
  public record Finding(int round, String caller, FindingKind kind, String path, String detail) {
    public Finding {
      Objects.requireNonNull(caller, "caller");
      Objects.requireNonNull(kind, "kind");
      Objects.requireNonNull(path, "path");
      Objects.requireNonNull(detail, "detail");
    }

    /** {@code round 1, B: <detail>}. */
    @Override
    public String toString() {
      return "round " + round + ", " + caller + ": " + detail;
    }
  }

  /**
   * What the shared backend sent on its own initiative while both callers were attached.
   *
   * @param notifications every notification method and how often it came
   * @param unattributable the notifications no caller could be told apart as their owner
   *     (method and count), e.g. {@code notifications/message}
   * @param serverRequests every server request method and how often it came
   * @param unroutable the server requests that could not be routed to one caller
   */
  public record Traffic(
      Map<String, Integer> notifications, Map<String, Integer> unattributable,
      Map<String, Integer> serverRequests, Map<String, Integer> unroutable) {
    public Traffic {
      notifications = Map.copyOf(notifications);
      unattributable = Map.copyOf(unattributable);
      serverRequests = Map.copyOf(serverRequests);
      unroutable = Map.copyOf(unroutable);
    }

    /** No traffic. */
    public static Traffic none() {
      return new Traffic(Map.of(), Map.of(), Map.of(), Map.of());
    }
  }

  /** The hazard codes observed. */
  public Set<HazardCode> hazardCodes() {
    return hazards.keySet();
  }
}
