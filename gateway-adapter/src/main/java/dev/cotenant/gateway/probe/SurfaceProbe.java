package dev.cotenant.gateway.probe;

import dev.cotenant.api.HazardCode;
import dev.cotenant.api.SecretPatterns;
import dev.cotenant.api.ServerDescription;
import dev.cotenant.api.Transport;
import dev.cotenant.gateway.probe.SurfaceReport.Sandboxing;
import dev.cotenant.gateway.sandbox.Sandbox;
import dev.cotenant.spi.CoreSettings;
import dev.cotenant.spi.HandshakeEra;
import dev.cotenant.spi.ProviderConfig;
import dev.cotenant.spi.SessionTransport;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;

/**
 * The whole-surface statelessness probe (docs/statelessness.md): sharing is decided per PROCESS, so the
 * evidence for it covers the process's whole surface, not one tool.
 *
 * <p>Two logical callers, A and B, run the same script on three kinds of backend, strictly one
 * after the other: each on a DEDICATED backend of its own (two processes), then both on ONE
 * SHARED backend, then each on a dedicated backend again. A script is, for each round: every
 * listed tool called once (arguments from the operator's {@link ProbePlan} or synthesised from
 * the tool's {@code inputSchema} by {@link SchemaArguments}, carrying the caller's marker and
 * workspace value), then the listings a session can see ({@code tools/list},
 * {@code resources/list}, {@code resources/templates/list}, {@code prompts/list}, as the server
 * advertises them, every page), then {@code resources/read} of each resource that appeared since
 * the caller's first listing. On the shared backend each step writes both callers' requests
 * before reading either answer.
 *
 * <p>What counts as an observation ({@link HazardCode}):
 *
 * <ul>
 *   <li>the other caller's marker or workspace value in any answer on the shared backend
 *       ({@code cross_session_leak}, the sharpest signal);
 *   <li>an answer on the shared backend that differs from the same call on the dedicated
 *       backends, beyond the tokens that differ between the two dedicated runs themselves
 *       ({@link AnswerDiff}: a clock or a random id is volatile, a counter or a toggle is not;
 *       {@code cross_session_leak});
 *   <li>a notification on the shared backend that cannot be attributed to one caller: anything
 *       but a list-changed notice (which every session may receive) and progress carrying a
 *       caller's own token ({@code unattributable_notification});
 *   <li>a server request on the shared backend other than {@code ping}: it cannot be routed to
 *       the caller it is for ({@code unroutable_server_request}).
 * </ul>
 *
 * <p>Two client shapes. The callers first declare no client capability, and every request the
 * server sends them is declined. When that pass passes, the whole script runs again with the
 * callers declaring {@code roots}, {@code sampling} and {@code elicitation}, each answering what
 * the server asks it with values of its own ({@code ClientAnswers}): on the shared backend, the
 * caller with the only call in flight answers, or the first caller before any call; anything else
 * is unroutable. The report's {@link SurfaceReport#clients()} says whether that second pass
 * passed; a pass on record covers such clients only then ({@link
 * dev.cotenant.api.ProbePass.Surface#clientCapabilities()}), and a gateway gives a client
 * declaring one of them a backend of its own otherwise. What the second pass sees is reported,
 * never recorded as a hazard: it speaks of clients of that shape only.
 *
 * <p>Every backend runs in the {@link Sandbox} where one is available, and there every tool is
 * called; where none is, tools annotated {@code destructiveHint: true} are skipped unless the plan
 * includes them. A plan that allows the network has only {@code readOnlyHint: true} tools
 * called. In each round a caller calls the tools that may change state first, then the ones
 * annotated read-only, then reads the listings, so that a reader on the shared backend sees what
 * the other caller wrote. A tool without synthesisable arguments is skipped unless the plan gives
 * them; a skipped tool is not covered, and the probe cannot pass. Each backend runs in a fresh
 * scratch working directory (unless its configuration names one), removed afterwards. Bounded: each call has
 * {@value #CALL_TIMEOUT_MS} (a tool that does not answer in time is not proven and is not called
 * again), the whole probe {@value #BUDGET_MS} (then every backend is killed), and the session
 * transport's own bounds on lines and messages. Every process and its descendants are torn down
 * whatever happens. Thread-safe: each run has its own state.
 *
 * <p>This class is the entry point and holds the settings ({@link SurfaceProbeSettings}); a run
 * ({@code SurfaceRun}) orchestrates the phases, {@code ToolChoice} and {@code Calibration} decide
 * what is called, {@code LockstepListings} pages the listings, {@code SurfaceReporter} builds the
 * report, {@code Redactor} keeps secrets out of it, and {@code SurfaceConfirmation} weighs a
 * replay.
 */
public final class SurfaceProbe {
  /** The protocol version the first pass's callers (declaring no capability) ask for. */
  public static final String BARE_CALLERS_VERSION = dev.cotenant.spi.Mcp.LEGACY_VERSION;

  /**
   * The protocol version the second pass's callers (declaring roots, sampling and elicitation) ask
   * for: the revision before, so that the two passes together vary the version too.
   */
  public static final String CAPABLE_CALLERS_VERSION = dev.cotenant.spi.Mcp.PRIOR_VERSION;

  /** The protocol versions a whole-surface pass that passed covers: the second pass's too when it passed. */
  public static List<String> protocolVersions(SurfaceReport report) {
    return report.clients().covered() ? List.of(BARE_CALLERS_VERSION, CAPABLE_CALLERS_VERSION)
        : List.of(BARE_CALLERS_VERSION);
  }

  /** The configuration key of each call's time limit, in milliseconds. */
  public static final String CALL_TIMEOUT_MS = "cotenant.probe.call-timeout-ms";

  /** The configuration key of the whole probe's time budget, in milliseconds. */
  public static final String BUDGET_MS = "cotenant.probe.budget-ms";

  /** Each call's time limit when none is configured. */
  public static final long DEFAULT_CALL_TIMEOUT_MS = 10_000;

  /** The whole probe's budget when none is configured. */
  public static final long DEFAULT_BUDGET_MS = 300_000;

  /** The rounds run when none are asked for. */
  public static final int DEFAULT_ROUNDS = 3;

  /** Pages of one listing followed at most. */
  static final int MAX_PAGES = 10;

  /** Resources read per caller and round at most. */
  static final int MAX_READS = 16;

  /** How a probe's scratch root is named in the temp directory; the pid of its process follows. */
  static final String SCRATCH_PREFIX = "cotenant-probe-";

  /** Findings kept per tool or listing. */
  static final int MAX_FINDINGS = 8;

  private final SessionTransport sessions;
  private final SurfaceProbeSettings settings;
  private final StatelessnessProbe markers;
  private final Sandbox sandbox;

  /**
   * @param sessions starts the backends
   * @param era the protocol era to speak
   * @param handshakeTimeout each handshake's time limit
   * @param callTimeout each call's time limit
   * @param budget the whole probe's time limit
   * @param callerIdentityKeys the {@code capabilities.experimental} keys that declare the
   *     caller-identity extension
   * @param secrets the env names whose values never appear in a report
   */
  public SurfaceProbe(
      SessionTransport sessions, HandshakeEra era, Duration handshakeTimeout, Duration callTimeout, Duration budget,
      Set<String> callerIdentityKeys, SecretPatterns secrets) {
    this(sessions, era, handshakeTimeout, callTimeout, budget, callerIdentityKeys, secrets, Sandbox.off());
  }

  /**
   * A probe whose backends run in {@code sandbox} where it is available.
   *
   * @param sandbox where the backends run; {@link Sandbox#off()} for the fallback always
   */
  public SurfaceProbe(
      SessionTransport sessions, HandshakeEra era, Duration handshakeTimeout, Duration callTimeout, Duration budget,
      Set<String> callerIdentityKeys, SecretPatterns secrets, Sandbox sandbox) {
    this(sessions, new SurfaceProbeSettings(era, handshakeTimeout, callTimeout, budget, callerIdentityKeys, secrets),
        sandbox);
  }

  private SurfaceProbe(SessionTransport sessions, SurfaceProbeSettings settings, Sandbox sandbox) {
    this.sessions = Objects.requireNonNull(sessions, "sessions");
    this.settings = settings;
    this.markers = new StatelessnessProbe(sessions, settings.era(), settings.handshakeTimeout(),
        settings.callerIdentityKeys());
    this.sandbox = Objects.requireNonNull(sandbox, "sandbox");
  }

  /**
   * A probe over {@code sessions} configured from {@code config}: the era, handshake time limit,
   * caller-identity keys and secret patterns shared with the pre-flight ({@link CoreSettings}),
   * and {@value #CALL_TIMEOUT_MS} and {@value #BUDGET_MS}.
   *
   * @throws IllegalArgumentException naming the key whose value is malformed
   */
  public static SurfaceProbe fromConfig(SessionTransport sessions, ProviderConfig config) {
    return fromConfig(sessions, config, Sandbox.off());
  }

  /**
   * A probe over {@code sessions} configured from {@code config}, its backends in {@code sandbox}
   * where it is available.
   *
   * @throws IllegalArgumentException naming the key whose value is malformed
   */
  public static SurfaceProbe fromConfig(SessionTransport sessions, ProviderConfig config, Sandbox sandbox) {
    return new SurfaceProbe(sessions, SurfaceProbeSettings.of(config), sandbox);
  }

  /**
   * Probes the whole surface of {@code server}.
   *
   * @param identity the server's ledger identity, carried into the report
   * @param plan the operator's plan ({@link ProbePlan#empty()} for none)
   * @param rounds rounds per caller, at least {@value dev.cotenant.api.ProbePass#MIN_ROUNDS}
   * @throws IllegalArgumentException for fewer rounds
   * @throws InterruptedException when interrupted; every backend is torn down first
   */
  public SurfaceReport run(ServerDescription server, String identity, ProbePlan plan, int rounds)
      throws InterruptedException {
    Objects.requireNonNull(server, "server");
    Objects.requireNonNull(identity, "identity");
    Objects.requireNonNull(plan, "plan");
    if (rounds < dev.cotenant.api.ProbePass.MIN_ROUNDS) {
      throw new IllegalArgumentException("refusing a statelessness probe of " + rounds + " round" + (rounds == 1 ? "" : "s")
          + ": it needs at least " + dev.cotenant.api.ProbePass.MIN_ROUNDS
          + " (a race that fires once in five rounds is still a leak)");
    }
    Sandbox.Mode mode = sandbox.modeFor(sessions);
    Sandboxing sandboxing = new Sandboxing(mode.sandboxed(), mode.sandboxed() && plan.network(), mode.why());
    SurfaceRun run = newRun(server, identity, plan, rounds, sandboxing, false);
    if (server.transport() != Transport.STDIO) {
      return run.notRun("not a stdio server: there is no backend process to share");
    }
    if (!server.enabled()) {
      return run.notRun("disabled: a disabled server is never probed");
    }
    if (mode.required() && !mode.sandboxed()) {
      return run.notRun("no sandbox (" + mode.why() + "), and " + Sandbox.KEY + "=required");
    }
    SurfaceReport bare = confirmed(run);
    if (!bare.passed()) {
      return bare;
    }
    // The same script again, the callers now declaring every capability a server asks its client
    // about, each answering with values of its own: what it sees speaks of such clients only.
    long started = System.nanoTime();
    SurfaceReport capable = confirmed(newRun(server, identity, plan, rounds, sandboxing, true));
    return bare.withClients(coverage(capable), (System.nanoTime() - started) / 1_000_000);
  }

  /** Runs {@code run}, and a replay when its only finding may be chance. */
  private SurfaceReport confirmed(SurfaceRun run) throws InterruptedException {
    SurfaceReport first = run.execute();
    if (!SurfaceConfirmation.needsReplay(first)) {
      return first;
    }
    // A changed answer without a marker may be chance (a random figure that happened to agree in
    // both dedicated runs): it counts only if a replay, with fresh markers and fresh backends,
    // shows the same tool or listing change again at the same place, and neither run's dedicated
    // backends disagree there.
    SurfaceRun replay = newRun(run.server, run.identity, run.plan, run.rounds, run.sandboxing, !run.capabilities.isEmpty());
    SurfaceReport second = replay.execute();
    return SurfaceConfirmation.confirm(first, second,
        new SurfaceConfirmation.Volatility(run.volatilePlaces, replay.volatilePlaces));
  }

  /** What the pass as capable clients covers: every capability it declared when it passed, else none and why. */
  static SurfaceReport.ClientCoverage coverage(SurfaceReport capable) {
    List<String> declared = dev.cotenant.spi.Mcp.ASKED_OF_CLIENTS;
    switch (capable.outcome()) {
      case PASSED:
        return new SurfaceReport.ClientCoverage(declared, true, "");
      case HAZARD:
        Map.Entry<HazardCode, String> e = new TreeMap<>(capable.hazards()).firstEntry();
        return new SurfaceReport.ClientCoverage(declared, false, e.getKey().wireName() + ": " + e.getValue());
      case NOT_PROVEN:
        return new SurfaceReport.ClientCoverage(declared, false, "not proven: " + capable.coverage());
      default:
        return new SurfaceReport.ClientCoverage(declared, false,
            "not run: " + capable.notRunReason().orElse("the pass stopped before its end"));
    }
  }

  private SurfaceRun newRun(ServerDescription server, String identity, ProbePlan plan, int rounds, Sandboxing sandboxing,
      boolean capableClients) {
    return new SurfaceRun(settings, sessions, sandbox, markers, server, identity, plan, rounds, sandboxing, capableClients);
  }
}
