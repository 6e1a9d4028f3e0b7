package dev.cotenant.gateway.probe;

import dev.cotenant.api.HazardCode;
import dev.cotenant.api.Json;
import dev.cotenant.api.LogSafe;
import dev.cotenant.api.SecretPatterns;
import dev.cotenant.api.ServerDescription;
import dev.cotenant.api.Transport;
import dev.cotenant.gateway.probe.SurfaceReport.Finding;
import dev.cotenant.gateway.probe.SurfaceReport.FindingKind;
import dev.cotenant.gateway.probe.SurfaceReport.ListingResult;
import dev.cotenant.gateway.probe.SurfaceReport.Outcome;
import dev.cotenant.gateway.probe.SurfaceReport.Sandboxing;
import dev.cotenant.gateway.probe.SurfaceReport.ToolResult;
import dev.cotenant.gateway.probe.SurfaceReport.ToolStatus;
import dev.cotenant.gateway.probe.SurfaceReport.Traffic;
import dev.cotenant.gateway.sandbox.Sandbox;
import dev.cotenant.spi.CoreSettings;
import dev.cotenant.spi.HandshakeEra;
import dev.cotenant.spi.ProviderConfig;
import dev.cotenant.spi.ServerMessageHandler;
import dev.cotenant.spi.ServerSession;
import dev.cotenant.spi.SessionException;
import dev.cotenant.spi.SessionTransport;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

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
 */
public final class SurfaceProbe {
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

  /** Directories taken from other tools' answers at most. */
  static final int MAX_RETURNED = 2;

  /** Argument sets made from other tools' answers tried per tool at most. */
  static final int MAX_RETURNED_TRIES = 4;

  /** An absolute path in an answer's JSON text. */
  private static final java.util.regex.Pattern ABSOLUTE_PATH =
      java.util.regex.Pattern.compile("(?<![\\w.~-])(/[A-Za-z0-9._@%+=,~-]+(?:/[A-Za-z0-9._@%+=,~-]+)*)");

  /** Findings kept per tool or listing. */
  static final int MAX_FINDINGS = 8;

  private static final String DECLINED = "declined: this client has no user to ask";
  private static final String REDACTED = "<redacted>";
  private static final SecureRandom RANDOM = new SecureRandom();
  private static final Map<String, Object> NO_CAPABILITIES = Map.of();

  private final SessionTransport sessions;
  private final HandshakeEra era;
  private final Duration handshakeTimeout;
  private final Duration callTimeout;
  private final Duration budget;
  private final StatelessnessProbe markers;
  private final SecretPatterns secrets;
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
    this.sessions = Objects.requireNonNull(sessions, "sessions");
    this.era = Objects.requireNonNull(era, "era");
    this.handshakeTimeout = Objects.requireNonNull(handshakeTimeout, "handshakeTimeout");
    this.callTimeout = Objects.requireNonNull(callTimeout, "callTimeout");
    this.budget = Objects.requireNonNull(budget, "budget");
    this.markers = new StatelessnessProbe(sessions, era, handshakeTimeout, callerIdentityKeys);
    this.secrets = Objects.requireNonNull(secrets, "secrets");
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
    return new SurfaceProbe(sessions, CoreSettings.era(config), CoreSettings.timeout(config),
        millis(config, CALL_TIMEOUT_MS, DEFAULT_CALL_TIMEOUT_MS), millis(config, BUDGET_MS, DEFAULT_BUDGET_MS),
        CoreSettings.callerIdentityKeys(config), CoreSettings.secretPatterns(config), sandbox);
  }

  private static Duration millis(ProviderConfig config, String key, long fallback) {
    Optional<String> v = config.get(key);
    if (v.isEmpty()) {
      return Duration.ofMillis(fallback);
    }
    try {
      long ms = Long.parseLong(v.get().trim());
      if (ms >= 1) {
        return Duration.ofMillis(ms);
      }
    } catch (NumberFormatException e) {
      // falls through to the refusal
    }
    throw new IllegalArgumentException(key + " must be a positive number of milliseconds, got '"
        + LogSafe.escape(v.get(), 40) + "'");
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
    Run run = new Run(server, identity, plan, rounds, new Sandboxing(mode.sandboxed(), mode.sandboxed() && plan.network(),
        mode.why()));
    if (server.transport() != Transport.STDIO) {
      return run.notRun("not a stdio server: there is no backend process to share");
    }
    if (!server.enabled()) {
      return run.notRun("disabled: a disabled server is never probed");
    }
    if (mode.required() && !mode.sandboxed()) {
      return run.notRun("no sandbox (" + mode.why() + "), and " + Sandbox.KEY + "=required");
    }
    SurfaceReport first = run.execute();
    if (!needsReplay(first)) {
      return first;
    }
    // A changed answer without a marker may be chance (a random figure that happened to agree in
    // both dedicated runs): it counts only if a replay, with fresh markers and fresh backends,
    // shows the same tool or listing change again at the same place, and neither run's dedicated
    // backends disagree there.
    Run replay = new Run(server, identity, plan, rounds, run.sandboxing);
    SurfaceReport second = replay.execute();
    return confirm(first, second, new Volatility(run.volatilePlaces, replay.volatilePlaces));
  }

  /**
   * Where each run's dedicated backends disagreed, by tool or listing ({@code tools/call NAME} for
   * a tool), in any round and for either caller: four dedicated answers per call in all.
   */
  record Volatility(Map<String, Set<AnswerDiff.Place>> first, Map<String, Set<AnswerDiff.Place>> replay) {
    static final Volatility NONE = new Volatility(Map.of(), Map.of());

    /** True when {@code f}'s place varies between dedicated backends in {@code places}. */
    static boolean varies(Map<String, Set<AnswerDiff.Place>> places, String channel, Finding f) {
      int token = token(f);
      return places.getOrDefault(channel, Set.of()).stream().anyMatch(p -> p.covers(f.path(), token));
    }
  }

  /** True when some changed answer is the only sign of a leak on its tool or listing. */
  static boolean needsReplay(SurfaceReport r) {
    return channels(r).values().stream().anyMatch(f -> onlyChanged(f));
  }

  /** Every tool's and listing's findings, by name ({@code tools/call NAME} for a tool). */
  private static Map<String, List<Finding>> channels(SurfaceReport r) {
    Map<String, List<Finding>> out = new LinkedHashMap<>();
    r.tools().forEach(t -> out.put("tools/call " + t.name(), t.findings()));
    r.listings().forEach(l -> out.put(l.method(), l.findings()));
    return out;
  }

  private static boolean onlyChanged(List<Finding> findings) {
    return findings.stream().anyMatch(f -> f.kind() == FindingKind.CHANGED_ANSWER)
        && findings.stream().noneMatch(f -> f.kind() == FindingKind.MARKER);
  }

  /**
   * The report of a probe whose first run showed changed answers, confirmed by its replay: a
   * marker in either run is an observation; a changed answer is one only where both runs changed
   * the same tool or listing at the same place (path), and is otherwise reported among the
   * volatile parts as differing once and not on replay. Statuses other than leaked take the worse of the two runs; traffic hazards
   * of either run stand; times add up.
   */
  static SurfaceReport confirm(SurfaceReport first, SurfaceReport replay) {
    return confirm(first, replay, Volatility.NONE);
  }

  /**
   * {@link #confirm(SurfaceReport, SurfaceReport)}, where a changed answer also counts only at a
   * place where neither run's dedicated backends disagreed: a value drawn at random per process
   * or per call agrees in two dedicated answers by chance, hardly in all four.
   */
  static SurfaceReport confirm(SurfaceReport first, SurfaceReport replay, Volatility volatility) {
    Map<String, List<Finding>> before = channels(first);
    List<ToolResult> tools = new ArrayList<>();
    for (ToolResult t : replay.tools()) {
      String channel = "tools/call " + t.name();
      List<Finding> earlier = before.getOrDefault(channel, List.of());
      Optional<ToolResult> firstResult = first.tools().stream().filter(x -> x.name().equals(t.name())).findFirst();
      Confirmation c = new Confirmation(channel, earlier, t.findings(), volatility);
      List<Finding> kept = c.kept();
      List<String> volatileParts = c.volatileParts(t.volatileParts());
      ToolStatus status;
      String why = t.why();
      if (kept.stream().anyMatch(SurfaceProbe::observation)) {
        status = ToolStatus.LEAKED;
        why = "";
      } else if (t.status() == ToolStatus.LEAKED && firstResult.map(x -> x.status() == ToolStatus.LEAKED).orElse(false)
          && !c.explained()) {
        status = ToolStatus.NOT_PROVEN;
        why = "its answers on the shared backend changed in both runs, but not in the same way; not confirmed";
      } else if (t.status() == ToolStatus.NOT_PROVEN || firstResult.map(x -> x.status() == ToolStatus.NOT_PROVEN).orElse(false)) {
        status = ToolStatus.NOT_PROVEN;
        why = t.status() == ToolStatus.NOT_PROVEN ? t.why() : firstResult.get().why();
      } else if (t.status() == ToolStatus.LEAKED) {
        // Changed only where dedicated backends disagree too, or in the first run only.
        status = firstResult.map(x -> x.status() == ToolStatus.LEAKED ? ToolStatus.PASSED : x.status())
            .orElse(ToolStatus.NOT_PROVEN);
        why = firstResult.map(x -> x.status() == ToolStatus.LEAKED ? "" : x.why()).orElse("it was listed in the replay only");
      } else {
        status = t.status();
      }
      tools.add(new ToolResult(t.name(), status, why, t.arguments(), kept, volatileParts));
    }
    List<ListingResult> listings = new ArrayList<>();
    for (ListingResult l : replay.listings()) {
      List<Finding> earlier = before.getOrDefault(l.method(), List.of());
      Confirmation c = new Confirmation(l.method(), earlier, l.findings(), volatility);
      List<Finding> kept = c.kept();
      listings.add(new ListingResult(l.method(), kept.stream().anyMatch(SurfaceProbe::observation), kept,
          c.volatileParts(l.volatileParts())));
    }
    Map<HazardCode, String> hazards = new EnumMap<>(HazardCode.class);
    Stream.concat(tools.stream().flatMap(t -> t.findings().stream()), listings.stream().flatMap(l -> l.findings().stream()))
        .filter(SurfaceProbe::observation).findFirst()
        .ifPresent(f -> hazards.put(HazardCode.CROSS_SESSION_LEAK, f.detail()));
    for (SurfaceReport r : List.of(first, replay)) {
      r.hazards().forEach((code, detail) -> {
        if (code != HazardCode.CROSS_SESSION_LEAK) {
          hazards.putIfAbsent(code, detail);
        }
      });
    }
    Optional<String> stopped = replay.notRunReason().or(first::notRunReason);
    Outcome outcome;
    if (!hazards.isEmpty()) {
      outcome = Outcome.HAZARD;
    } else if (stopped.isPresent()) {
      outcome = Outcome.NOT_RUN;
    } else if (tools.stream().allMatch(t -> t.status() == ToolStatus.PASSED || t.status() == ToolStatus.SKIPPED_BY_PLAN)
        && listings.stream().allMatch(l -> l.findings().isEmpty())) {
      outcome = Outcome.PASSED;
    } else {
      outcome = Outcome.NOT_PROVEN;
    }
    Traffic traffic = first.traffic().notifications().isEmpty() && first.traffic().serverRequests().isEmpty()
        ? replay.traffic() : first.traffic();
    return new SurfaceReport(replay.server(), replay.identity(), replay.rounds(), replay.callerBlocks(), tools, listings,
        traffic, hazards, outcome, stopped, Optional.empty(), replay.planNotes(),
        first.elapsedMillis() + replay.elapsedMillis(), replay.sandbox(),
        Stream.concat(first.annotationNotes().stream(), replay.annotationNotes().stream()).distinct().toList());
  }

  /** Where in a text a changed answer was seen: {@code (token 5 of 9)}, as the difference names it. */
  private static final java.util.regex.Pattern TOKEN = java.util.regex.Pattern.compile("\\((?:after )?token (\\d+) of \\d+\\)");

  /** The place of a changed answer: its path, and within a text the token. */
  private static String place(Finding f) {
    java.util.regex.Matcher m = TOKEN.matcher(f.detail());
    return f.path() + (m.find() ? " " + m.group() : "");
  }

  /** The 1-based token a changed answer names, or 0. */
  private static int token(Finding f) {
    java.util.regex.Matcher m = TOKEN.matcher(f.detail());
    return m.find() ? Integer.parseInt(m.group(1)) : 0;
  }

  /** One tool's or listing's findings in both runs, and what counts of them. */
  private static final class Confirmation {
    final List<Finding> first;
    final List<Finding> replay;
    /** Changed answers at a place the other run's (or its own run's) dedicated backends disagreed on. */
    final Set<Finding> varying = new LinkedHashSet<>();
    final boolean confirmed;

    Confirmation(String channel, List<Finding> first, List<Finding> replay, Volatility volatility) {
      this.first = first;
      this.replay = replay;
      for (Finding f : first) {
        if (f.kind() == FindingKind.CHANGED_ANSWER && (Volatility.varies(volatility.replay(), channel, f)
            || Volatility.varies(volatility.first(), channel, f))) {
          varying.add(f);
        }
      }
      for (Finding g : replay) {
        if (g.kind() == FindingKind.CHANGED_ANSWER && (Volatility.varies(volatility.first(), channel, g)
            || Volatility.varies(volatility.replay(), channel, g))) {
          varying.add(g);
        }
      }
      // Both runs changed the answer at the same place, where no dedicated backend of either run
      // disagreed: a counter or a toggle changes where it is every time; a figure that happened
      // to agree in two dedicated runs almost never does so twice, let alone in all four.
      this.confirmed = first.stream().filter(f -> f.kind() == FindingKind.CHANGED_ANSWER && !varying.contains(f))
          .anyMatch(f -> replay.stream().anyMatch(g -> g.kind() == FindingKind.CHANGED_ANSWER && !varying.contains(g)
              && place(g).equals(place(f))));
    }

    /** True when every changed answer of both runs lies where dedicated backends disagree too. */
    boolean explained() {
      return Stream.concat(first.stream(), replay.stream())
          .allMatch(f -> f.kind() != FindingKind.CHANGED_ANSWER || varying.contains(f));
    }

    /** Markers of either run; changed answers only when confirmed; the replay's unconfirmed. */
    List<Finding> kept() {
      List<Finding> out = new ArrayList<>();
      for (Finding f : Stream.concat(first.stream(), replay.stream()).toList()) {
        boolean keep = f.kind() == FindingKind.MARKER
            || (f.kind() == FindingKind.CHANGED_ANSWER && confirmed && !varying.contains(f))
            || (f.kind() == FindingKind.UNCONFIRMED && replay.contains(f));
        if (keep && out.size() < MAX_FINDINGS) {
          out.add(f);
        }
      }
      return out;
    }

    /** The replay's volatile parts, and each changed answer that was not confirmed, with why. */
    List<String> volatileParts(List<String> replayVolatile) {
      List<String> out = new ArrayList<>(replayVolatile);
      for (Finding f : Stream.concat(first.stream(), replay.stream()).toList()) {
        if (f.kind() != FindingKind.CHANGED_ANSWER || (confirmed && !varying.contains(f)) || out.size() >= MAX_FINDINGS * 2) {
          continue;
        }
        String why = varying.contains(f) ? "where dedicated backends disagree too" : "not on replay";
        out.add(place(f) + ": differed once on the shared backend (round " + f.round() + ", " + f.caller() + "), " + why);
      }
      return out;
    }
  }

  /** One caller's fixed values. */
  private record Caller(String label, String prefix, List<String> markers, List<String> workspaces, String tenant) {
    String marker(int round) {
      return markers.get(round - 1);
    }

    String workspace(int round) {
      return workspaces.get(round - 1);
    }

    /** Every marker and workspace value this caller ever sends. */
    List<String> traces() {
      return Stream.concat(markers.stream(), workspaces.stream()).toList();
    }
  }

  /**
   * A tool the probe calls, with its arguments.
   *
   * @param readOnly true when annotated {@code readOnlyHint: true}: it is called after the others
   */
  private record Planned(
      String name, ArgumentTemplate arguments, String source, boolean readOnly, List<ArgumentTemplate> alternatives) {
    Planned(String name, ArgumentTemplate arguments, String source, boolean readOnly) {
      this(name, arguments, source, readOnly, List.of());
    }
  }

  /** One backend process and what it sent on its own initiative. */
  private final class Backend implements ServerMessageHandler {
    final boolean shared;
    final Path scratch;
    final Map<String, String> progressOwners = new ConcurrentHashMap<>();
    final Map<String, Integer> notifications = new ConcurrentHashMap<>();
    final Map<String, Integer> unattributable = new ConcurrentHashMap<>();
    final Map<String, Integer> requests = new ConcurrentHashMap<>();
    final Map<String, Integer> unroutable = new ConcurrentHashMap<>();
    final ServerMessageHandler fallback = ServerMessageHandler.noUser(DECLINED);
    @Nullable ServerSession session;
    Map<String, Object> handshake = Map.of();

    Backend(boolean shared, Path scratch) {
      this.shared = shared;
      this.scratch = scratch;
    }

    @Override
    public Reply onRequest(String method, Map<String, Object> params) {
      requests.merge(method, 1, Integer::sum);
      if (shared && !"ping".equals(method)) {
        unroutable.merge(method, 1, Integer::sum);
      }
      return fallback.onRequest(method, params);
    }

    @Override
    public void onNotification(String method, Map<String, Object> params) {
      notifications.merge(method, 1, Integer::sum);
      if (shared && !attributable(method, params)) {
        unattributable.merge(method, 1, Integer::sum);
      }
    }

    private boolean attributable(String method, Map<String, Object> params) {
      if (method.endsWith("/list_changed")) {
        return true;
      }
      if ("notifications/progress".equals(method)) {
        Object token = params.get("progressToken");
        return token != null && progressOwners.containsKey(String.valueOf(token));
      }
      return false;
    }

    ServerSession session() {
      return Objects.requireNonNull(session, "the backend is not open");
    }
  }

  /** One caller on one backend, and the answers it got, by step key. */
  private static final class Lane {
    final Caller caller;
    final Backend backend;
    final Map<String, Map<String, Object>> answers = new LinkedHashMap<>();
    final Set<String> baselineUris = new LinkedHashSet<>();
    final Set<String> readUris = new LinkedHashSet<>();

    Lane(Caller caller, Backend backend) {
      this.caller = caller;
      this.backend = backend;
    }
  }

  /** The state of one probe. */
  private final class Run {
    final ServerDescription server;
    final String identity;
    final ProbePlan plan;
    final int rounds;
    final Sandboxing sandboxing;
    final long started = System.nanoTime();
    final Caller a;
    final Caller b;
    final AtomicInteger progress = new AtomicInteger();
    final List<Backend> open = new ArrayList<>();
    final AtomicReference<String> aborted = new AtomicReference<>();
    /** Tools that stopped being called, with why. */
    final Map<String, String> dropped = new LinkedHashMap<>();
    final List<ToolResult> skippedTools = new ArrayList<>();
    /** Tools annotated readOnlyHint: true that kept what their calls sent, with the note saying so. */
    final Map<String, String> contradicted = new LinkedHashMap<>();
    List<String> listedTools = List.of();
    List<Planned> called = List.of();
    Map<String, Object> toolAnnotations = Map.of();
    boolean callerBlocks;
    Optional<String> callerMetaKey = Optional.empty();
    boolean resources;
    boolean prompts;
    boolean sharedLostCalls;
    @Nullable List<Lane> before;
    @Nullable List<Lane> shared;
    @Nullable List<Lane> after;
    @Nullable Backend sharedBackend;

    /** The values of the secret env names the backends see, longest first. */
    final List<String> secretValues;

    /** Where the two dedicated answers of a call disagreed, by tool or listing, in any round. */
    final Map<String, Set<AnswerDiff.Place>> volatilePlaces = new LinkedHashMap<>();

    /** The directory every backend's scratch directory is made in; made on the first open. */
    @Nullable Path scratchRoot;
    /** How backends are started: through the sandbox, or as configured. */
    @Nullable SessionTransport backends;

    Run(ServerDescription server, String identity, ProbePlan plan, int rounds, Sandboxing sandboxing) {
      this.sandboxing = sandboxing;
      this.secretValues = secretValues(server);
      this.server = server;
      this.identity = identity;
      this.plan = plan;
      this.rounds = rounds;
      String nonce = hex(4);
      List<String> suffixes = Stream.generate(() -> hex(4)).limit(rounds).toList();
      this.a = caller("A", "alpha", "cotenant-probe-a-" + nonce, nonce, suffixes);
      this.b = caller("B", "bravo", "cotenant-probe-b-" + nonce, nonce, suffixes);
    }

    private Caller caller(String label, String prefix, String workspace, String nonce, List<String> suffixes) {
      List<String> m = new ArrayList<>();
      List<String> w = new ArrayList<>();
      for (int r = 1; r <= suffixes.size(); r++) {
        m.add(prefix + "-" + r + "-" + suffixes.get(r - 1));
        w.add(workspace + "-" + r);
      }
      return new Caller(label, prefix, m, w, "cotenant-probe-" + nonce);
    }

    SurfaceReport notRun(String why) {
      return report(Optional.of(why));
    }

    SurfaceReport execute() throws InterruptedException {
      ScheduledExecutorService watchdog = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "cotenant-surface-probe-watchdog");
        t.setDaemon(true);
        return t;
      });
      watchdog.schedule(() -> abortAll("the probe took longer than its budget of "
          + StatelessnessProbe.duration(budget.toMillis()) + " (" + BUDGET_MS + ")"), budget.toMillis(), TimeUnit.MILLISECONDS);
      Optional<String> stopped = Optional.empty();
      try {
        before = phase(false, true);
        shared = phase(true, false);
        after = phase(false, false);
      } catch (SessionException e) {
        String why = aborted.get();
        stopped = Optional.of(why != null ? why : e.getMessage());
      } finally {
        watchdog.shutdownNow();
        closeAll();
      }
      return report(stopped);
    }

    private synchronized void abortAll(String why) {
      aborted.compareAndSet(null, why);
      for (Backend backend : open) {
        if (backend.session != null) {
          backend.session.abort(why);
        }
      }
    }

    private synchronized void closeAll() {
      for (Backend backend : open) {
        if (backend.session != null) {
          backend.session.close();
        }
      }
      open.clear();
      if (scratchRoot != null) {
        deleteQuietly(scratchRoot);
      }
    }

    /** Opens a backend, hands it its handshake, and keeps it for teardown. */
    private Backend open(boolean isShared, String label) throws SessionException, InterruptedException {
      Path scratch;
      try {
        synchronized (this) {
          if (scratchRoot == null) {
            Sandbox.sweepLeftovers(SCRATCH_PREFIX);
            scratchRoot = Files.createTempDirectory(SCRATCH_PREFIX + ProcessHandle.current().pid() + "-");
            backends = sandboxing.sandboxed()
                ? sandbox.around(sessions, sandboxing.network(), List.of(scratchRoot))
                : sessions;
          }
          // One name for every phase's backends: a path a tool echoes differs between any two
          // backends by its random part only, which the dedicated runs show to be volatile.
          scratch = Files.createTempDirectory(scratchRoot, "backend-");
        }
      } catch (IOException e) {
        throw new SessionException(SessionException.Kind.START, "no scratch directory: " + e.getMessage());
      }
      Backend backend = new Backend(isShared, scratch);
      ServerDescription run = server.cwd().isPresent() ? server : server.withCwd(Optional.of(scratch.toString()));
      synchronized (this) {
        open.add(backend);
        if (aborted.get() != null) {
          throw new SessionException(SessionException.Kind.TIMEOUT, aborted.get());
        }
        backend.session = Objects.requireNonNull(backends).open(run, label, backend);
      }
      backend.handshake = backend.session().handshake(
          era, Map.of("name", "cotenant-surface-probe", "version", "1"), NO_CAPABILITIES, handshakeTimeout);
      return backend;
    }

    /** Runs every round on two dedicated backends, or on one shared backend. */
    private List<Lane> phase(boolean isShared, boolean first) throws SessionException, InterruptedException {
      List<Lane> lanes;
      if (isShared) {
        Backend s = open(true, "probe-shared");
        sharedBackend = s;
        lanes = List.of(new Lane(a, s), new Lane(b, s));
      } else {
        Backend da = open(false, "probe-dedicated-a");
        Backend db = open(false, "probe-dedicated-b");
        lanes = List.of(new Lane(a, da), new Lane(b, db));
      }
      if (first) {
        decide(lanes.get(0));
        calibrate();
        checkReadOnly();
      }
      try {
        listings(lanes, 0);
        for (int r = 1; r <= rounds; r++) {
          for (Planned tool : called) {
            if (!dropped.containsKey(tool.name())) {
              int round = r;
              step(lanes, key(r, "tools/call " + tool.name()), isShared, tool.name(),
                  lane -> call(lane, "tools/call", callParams(lane, tool, round)));
            }
          }
          listings(lanes, r);
        }
      } finally {
        for (Lane lane : lanes) {
          if (lane.backend.session != null) {
            lane.backend.session.close();
          }
        }
      }
      return lanes;
    }

    /** Lists the tools on the first backend and decides what is called, skipped, and how. */
    private void decide(Lane lane) throws SessionException, InterruptedException {
      Map<String, Object> hs = lane.backend.handshake;
      callerMetaKey = markers.callerMetaKey(hs);
      callerBlocks = callerMetaKey.isPresent();
      Object caps = hs.get("capabilities");
      Map<?, ?> capabilities = caps instanceof Map<?, ?> ? (Map<?, ?>) caps : Map.of();
      resources = capabilities.containsKey("resources");
      prompts = capabilities.containsKey("prompts");
      Map<String, Object> listed = pages(List.of(lane), "tools/list", "tools").get(0);
      List<Planned> plannedCalls = new ArrayList<>();
      List<String> names = new ArrayList<>();
      Object result = listed.get("result");
      List<?> tools = result instanceof Map<?, ?> && ((Map<?, ?>) result).get("tools") instanceof List<?>
          ? (List<?>) ((Map<?, ?>) result).get("tools")
          : List.of();
      if (listed.containsKey("error")) {
        throw new SessionException(SessionException.Kind.GARBAGE,
            "tools/list answered an error: " + LogSafe.escape(StatelessnessProbe.toJson(listed.get("error")), 200));
      }
      for (Object t : tools) {
        if (!(t instanceof Map<?, ?>) || !(((Map<?, ?>) t).get("name") instanceof String)) {
          continue;
        }
        Map<?, ?> tool = (Map<?, ?>) t;
        String name = (String) tool.get("name");
        if (names.contains(name)) {
          continue;
        }
        names.add(name);
        Optional<ProbePlan.Entry> entry = plan.entry(name);
        if (entry.isPresent() && entry.get() instanceof ProbePlan.Skip) {
          skippedTools.add(new ToolResult(name, ToolStatus.SKIPPED_BY_PLAN, ((ProbePlan.Skip) entry.get()).reason(), "",
              List.of(), List.of()));
          continue;
        }
        if (sandboxing.network() && !readOnly(tool)) {
          skippedTools.add(new ToolResult(name, ToolStatus.SKIPPED,
              "the plan allows the network, so only tools annotated readOnlyHint: true are called; skip it in the plan"
                  + " with a reason", "", List.of(), List.of()));
          continue;
        }
        if (entry.isPresent() && entry.get() instanceof ProbePlan.Arguments) {
          ArgumentTemplate template = ((ProbePlan.Arguments) entry.get()).template();
          plannedCalls.add(new Planned(name, template, "plan " + template, readOnly(tool)));
          continue;
        }
        if (destructive(tool) && entry.isEmpty() && !sandboxing.sandboxed()) {
          skippedTools.add(new ToolResult(name, ToolStatus.SKIPPED,
              "annotated destructiveHint: true, and no sandbox to call it in (" + sandboxing.why()
                  + "); include it in a plan (\"include\": true, or \"arguments\") to call it on the operator's own data",
              "", List.of(), List.of()));
          continue;
        }
        Object schema = tool.get("inputSchema");
        @SuppressWarnings("unchecked")
        Map<String, Object> inputSchema = schema instanceof Map<?, ?> ? (Map<String, Object>) schema : Map.of();
        SchemaArguments.Synthesis s = SchemaArguments.synthesize(inputSchema);
        if (s instanceof SchemaArguments.Unsupported) {
          skippedTools.add(new ToolResult(name, ToolStatus.SKIPPED, "no arguments could be made from its inputSchema ("
              + ((SchemaArguments.Unsupported) s).why() + "); give them in a plan", "", List.of(), List.of()));
          continue;
        }
        ArgumentTemplate template = ((SchemaArguments.Synthesized) s).template();
        // Other argument sets to try when this one answers an error, each checked against the schema.
        SchemaCheck check = SchemaCheck.of(inputSchema);
        List<ArgumentTemplate> alternatives = SchemaArguments.candidates(inputSchema).stream()
            .filter(c -> !c.equals(template) && check.problem(c).isEmpty()).toList();
        plannedCalls.add(new Planned(name, template, "schema " + template, readOnly(tool), alternatives));
      }
      listedTools = List.copyOf(names);
      // Writers before readers: what one caller writes is there when the other reads.
      List<Planned> ordered = new ArrayList<>(plannedCalls.stream().filter(p -> !p.readOnly()).toList());
      ordered.addAll(plannedCalls.stream().filter(Planned::readOnly).toList());
      called = List.copyOf(ordered);
    }

    private boolean readOnly(Map<?, ?> tool) {
      Object annotations = tool.get("annotations");
      return annotations instanceof Map<?, ?> && Boolean.TRUE.equals(((Map<?, ?>) annotations).get("readOnlyHint"));
    }

    /**
     * For each tool whose arguments came from its schema and that has other candidates: on a
     * backend of its own (so no phase's backend is touched), calls it as caller A with each
     * candidate in turn until one answers without a JSON-RPC error or {@code isError}, and keeps
     * that one for every phase. Writers first, as in the rounds. A tool none of whose candidates
     * works keeps its first, and ends not proven as before.
     */
    private void calibrate() throws SessionException, InterruptedException {
      boolean paths = called.stream().anyMatch(p -> !pathKeys(p).isEmpty());
      boolean ids = called.stream().anyMatch(p -> !idKeys(p).isEmpty());
      if (called.stream().allMatch(p -> p.alternatives().isEmpty()) && !paths && !ids) {
        return;
      }
      Backend backend = open(false, "probe-calibration");
      Lane lane = new Lane(a, backend);
      List<Planned> chosen = new ArrayList<>();
      // What the calls that worked answered, in order: ids and names a later tool may take.
      List<Object> answered = new ArrayList<>();
      try {
        List<String> returned = paths ? returnedDirectories(lane) : List.of();
        for (Planned p : called) {
          // Values other tools returned: a directory a read-only tool named, for a path argument.
          List<ArgumentTemplate> fromAnswers = new ArrayList<>();
          for (String dir : returned) {
            for (String key : pathKeys(p)) {
              fromAnswers.add(p.arguments().with(key, dir));
              fromAnswers.add(p.arguments().with(key, dir + "/" + ArgumentTemplate.MARKER + ".txt"));
            }
          }
          // Ids and names an earlier tool answered, for an argument named after one.
          List<ArgumentTemplate> fromIds = new ArrayList<>();
          for (String key : idKeys(p)) {
            for (String value : returnedValues(answered, key, backend)) {
              fromIds.add(p.arguments().with(key, value));
            }
          }
          if (p.alternatives().isEmpty() && fromAnswers.isEmpty() && fromIds.isEmpty() && !ids) {
            chosen.add(p);
            continue;
          }
          List<ArgumentTemplate> tries = new ArrayList<>();
          tries.add(p.arguments());
          tries.addAll(p.alternatives());
          fromAnswers.stream().filter(t -> !tries.contains(t)).limit(MAX_RETURNED_TRIES).forEach(tries::add);
          fromIds.stream().filter(t -> !tries.contains(t)).limit(MAX_RETURNED_TRIES).forEach(tries::add);
          Planned keep = p;
          for (int i = 0; i < tries.size(); i++) {
            ArgumentTemplate t = tries.get(i);
            Optional<Map<String, Object>> answer = callOnce(lane, new Planned(p.name(), t, p.source(), p.readOnly()), 1);
            if (answer.isEmpty()) {
              break;
            }
            Map<String, Object> got = answer.get();
            if (!failed(got)) {
              answered.add(got.get("result"));
              if (i > 0) {
                keep = new Planned(p.name(), t, "schema, candidate " + (i + 1) + " of " + tries.size()
                    + " (the first that answered without an error) " + t, p.readOnly());
              }
              break;
            }
          }
          chosen.add(keep);
        }
      } finally {
        if (backend.session != null) {
          backend.session.close();
        }
      }
      called = List.copyOf(chosen);
    }

    /**
     * Whether the tools annotated {@code readOnlyHint: true} keep what their calls send: on a
     * backend of its own, only they are called, each with a marker of its own, then each again;
     * a marker of an earlier call that shows in a later answer (the tool's own or another
     * reader's) was kept by the tool it was sent to, since no other tool was called. Such a tool
     * is noted ({@link SurfaceReport#annotationNotes()}) and is called with the writers from then
     * on, so that what it keeps is there when the other caller reads. The per-call scratch
     * directories the probe made itself are not counted.
     */
    private void checkReadOnly() throws SessionException, InterruptedException {
      List<Planned> readers = called.stream().filter(Planned::readOnly).toList();
      if (readers.isEmpty()) {
        return;
      }
      int n = readers.size();
      String nonce = hex(4);
      Caller probe = caller("A", "alpha-readonly", "cotenant-probe-r-" + nonce, nonce,
          Stream.generate(() -> hex(4)).limit(2L * n).toList());
      Backend backend = open(false, "probe-annotations");
      Lane lane = new Lane(probe, backend);
      // Per reader called in the first pass: its marker, and the scratch directory the probe made for the call.
      Map<String, String[]> sent = new LinkedHashMap<>();
      try {
        for (int pass = 0; pass < 2; pass++) {
          for (int i = 0; i < n; i++) {
            Planned r = readers.get(i);
            int round = pass * n + i + 1;
            Optional<Map<String, Object>> answer = callOnce(lane, r, round);
            if (answer.isEmpty()) {
              return;
            }
            String text = StatelessnessProbe.toJson(answer.get());
            for (Map.Entry<String, String[]> e : sent.entrySet()) {
              String[] m = e.getValue();
              if (!contradicted.containsKey(e.getKey()) && text.replace(m[1], "").contains(m[0])) {
                contradicted.put(e.getKey(), LogSafe.escape(e.getKey(), 80) + " is annotated readOnlyHint: true, but the marker"
                    + " of its earlier call came back in " + (e.getKey().equals(r.name()) ? "its own" : LogSafe.escape(r.name(), 80)
                    + "'s") + " later answer, with no other tool called: it keeps what it is sent, and was called with the"
                    + " writers");
              }
            }
            if (pass == 0) {
              sent.put(r.name(), new String[] {probe.marker(round), backend.scratch.resolve(probe.marker(round)).toString()});
            }
          }
        }
      } finally {
        if (backend.session != null) {
          backend.session.close();
        }
      }
      if (!contradicted.isEmpty()) {
        List<Planned> reordered = new ArrayList<>(called.stream().filter(p -> !p.readOnly() || contradicted.containsKey(p.name()))
            .toList());
        reordered.addAll(called.stream().filter(p -> p.readOnly() && !contradicted.containsKey(p.name())).toList());
        called = List.copyOf(reordered);
      }
    }

    /**
     * The top-level string arguments of a schema-synthesised call whose names mean an id or a
     * name ({@code id}, {@code taskId}, {@code task_id}, {@code name}, {@code entityName}, {@code
     * key}), other than paths.
     */
    private List<String> idKeys(Planned p) {
      if (!p.source().startsWith("schema")) {
        return List.of();
      }
      List<String> paths = pathKeys(p);
      return p.arguments().stringKeys().stream().filter(k -> !paths.contains(k)).filter(k -> {
        String n = SchemaArguments.plainName(k);
        return n.endsWith("id") || n.endsWith("name") || n.equals("key");
      }).toList();
    }

    /**
     * Up to {@value #MAX_RETURNED} values that {@code answers} give a field of the same name as
     * {@code key} (ignoring case, {@code _} and {@code -}), or a field {@code id} or {@code name}
     * for a key ending so: in the structured content, and in a text content that is JSON. The
     * caller's own marker and workspace value in a value become their placeholders, so each
     * caller sends its own in every phase; a value holding a brace, a line break or the scratch
     * directory, or longer than 200 characters, is not used.
     */
    private List<String> returnedValues(List<Object> answers, String key, Backend backend) {
      String k = SchemaArguments.plainName(key);
      List<String> out = new ArrayList<>();
      for (Object answer : answers) {
        List<Object> roots = new ArrayList<>();
        if (answer instanceof Map<?, ?>) {
          Map<?, ?> result = (Map<?, ?>) answer;
          if (result.get("structuredContent") != null) {
            roots.add(result.get("structuredContent"));
          }
          if (result.get("content") instanceof List<?>) {
            for (Object c : (List<?>) result.get("content")) {
              if (c instanceof Map<?, ?> && ((Map<?, ?>) c).get("text") instanceof String) {
                String text = ((String) ((Map<?, ?>) c).get("text")).strip();
                if ((text.startsWith("{") || text.startsWith("[")) && text.length() <= 1_000_000) {
                  try {
                    roots.add(JSON.readValue(text, Object.class));
                  } catch (RuntimeException e) {
                    // not JSON: nothing to take from it
                  }
                }
              }
            }
          }
        }
        for (Object root : roots) {
          fieldValues(root, k, out, 0);
        }
      }
      List<String> usable = new ArrayList<>();
      for (String v : out) {
        String t = v;
        for (int round = 1; round <= rounds; round++) {
          t = t.replace(a.marker(round), ArgumentTemplate.MARKER).replace(a.workspace(round), ArgumentTemplate.WORKSPACE);
        }
        String placeholders = t.replace(ArgumentTemplate.MARKER, "").replace(ArgumentTemplate.WORKSPACE, "");
        if (!placeholders.contains("{") && !placeholders.contains("}") && !t.contains("\n") && t.length() <= 200
            && !t.contains(backend.scratch.toString()) && !t.isBlank() && !usable.contains(t)) {
          usable.add(t);
        }
        if (usable.size() >= MAX_RETURNED) {
          break;
        }
      }
      return usable;
    }

    private void fieldValues(@Nullable Object value, String key, List<String> out, int depth) {
      if (depth > 16 || out.size() >= 64) {
        return;
      }
      if (value instanceof Map<?, ?>) {
        for (Map.Entry<?, ?> e : ((Map<?, ?>) value).entrySet()) {
          String field = SchemaArguments.plainName(String.valueOf(e.getKey()));
          boolean named = field.equals(key) || (key.endsWith("id") && field.equals("id"))
              || (key.endsWith("name") && field.equals("name"));
          Object v = e.getValue();
          if (named && (v instanceof String || v instanceof Integer || v instanceof Long
              || v instanceof java.math.BigInteger)) {
            out.add(String.valueOf(v));
          } else {
            fieldValues(v, key, out, depth + 1);
          }
        }
      } else if (value instanceof List<?>) {
        for (Object v : (List<?>) value) {
          fieldValues(v, key, out, depth + 1);
        }
      }
    }

    /** The top-level string arguments of a schema-synthesised call whose names mean a path. */
    private List<String> pathKeys(Planned p) {
      if (!p.source().startsWith("schema")) {
        return List.of();
      }
      return p.arguments().stringKeys().stream().filter(k -> SchemaArguments.pathFor(k).isPresent()).toList();
    }

    /**
     * Absolute directories the answers of the read-only tools that take no arguments name (an
     * allowed directory, a root), at most {@value #MAX_RETURNED}: each tool called once, as
     * caller A, on the calibration backend.
     */
    private List<String> returnedDirectories(Lane lane) throws SessionException, InterruptedException {
      List<String> out = new ArrayList<>();
      for (Planned p : called) {
        if (!p.readOnly() || !p.arguments().equals(ArgumentTemplate.empty()) || out.size() >= MAX_RETURNED) {
          continue;
        }
        Optional<Map<String, Object>> answer = callOnce(lane, p, 1);
        if (answer.isEmpty()) {
          continue;
        }
        java.util.regex.Matcher m = ABSOLUTE_PATH.matcher(String.join("\n", strings(answer.get().get("result"))));
        while (m.find() && out.size() < MAX_RETURNED) {
          String dir = m.group(1).replaceAll("/+$", "");
          if (!dir.isEmpty() && !out.contains(dir) && Files.isDirectory(Path.of(dir)) && !dir.equals("/")
              && Stream.of("/usr", "/etc", "/proc", "/sys", "/dev", "/bin", "/lib").noneMatch(dir::startsWith)) {
            out.add(dir);
          }
        }
      }
      return out;
    }

    /**
     * Calls {@code p} once, outside the rounds (calibration, the read-only check); empty when it
     * did not answer within the call timeout (the call is then cancelled). A timeout of the whole
     * probe, or any other failure, is thrown.
     */
    private Optional<Map<String, Object>> callOnce(Lane lane, Planned p, int round)
        throws SessionException, InterruptedException {
      CompletableFuture<Map<String, Object>> answer = call(lane, "tools/call", callParams(lane, p, round));
      try {
        return Optional.of(await(answer, System.nanoTime() + callTimeout.toNanos(), "tools/call " + p.name()));
      } catch (SessionException e) {
        if (e.kind() != SessionException.Kind.TIMEOUT || aborted.get() != null) {
          throw e;
        }
        answer.cancel(false);
        return Optional.empty();
      }
    }

    /** Every string value in {@code value}, at any depth. */
    private List<String> strings(@Nullable Object value) {
      List<String> out = new ArrayList<>();
      if (value instanceof String) {
        out.add((String) value);
      } else if (value instanceof Map<?, ?>) {
        ((Map<?, ?>) value).values().forEach(v -> out.addAll(strings(v)));
      } else if (value instanceof List<?>) {
        ((List<?>) value).forEach(v -> out.addAll(strings(v)));
      }
      return out;
    }

    private boolean failed(Map<String, Object> answer) {
      Object result = answer.get("result");
      return answer.containsKey("error")
          || (result instanceof Map<?, ?> && Boolean.TRUE.equals(((Map<?, ?>) result).get("isError")));
    }

    private boolean destructive(Map<?, ?> tool) {
      Object annotations = tool.get("annotations");
      return annotations instanceof Map<?, ?> && Boolean.TRUE.equals(((Map<?, ?>) annotations).get("destructiveHint"));
    }

    /** The listings of one round, and reads of the resources that appeared since round 0. */
    private void listings(List<Lane> lanes, int round) throws SessionException, InterruptedException {
      record(lanes, key(round, "tools/list"), pages(lanes, "tools/list", "tools"));
      if (resources) {
        List<Map<String, Object>> listed = pages(lanes, "resources/list", "resources");
        record(lanes, key(round, "resources/list"), listed);
        record(lanes, key(round, "resources/templates/list"), pages(lanes, "resources/templates/list", "resourceTemplates"));
        List<List<String>> reads = new ArrayList<>();
        for (int i = 0; i < lanes.size(); i++) {
          Lane lane = lanes.get(i);
          List<String> uris = uris(listed.get(i));
          if (round == 0) {
            lane.baselineUris.addAll(uris);
            reads.add(List.of());
          } else {
            reads.add(uris.stream().filter(u -> !lane.baselineUris.contains(u)).limit(MAX_READS).toList());
          }
        }
        int most = reads.stream().mapToInt(List::size).max().orElse(0);
        for (int n = 0; n < most; n++) {
          int index = n;
          List<Lane> reading = new ArrayList<>();
          for (int i = 0; i < lanes.size(); i++) {
            if (reads.get(i).size() > index) {
              reading.add(lanes.get(i));
            }
          }
          Map<Lane, String> uriOf = new java.util.IdentityHashMap<>();
          for (Lane lane : reading) {
            uriOf.put(lane, reads.get(lanes.indexOf(lane)).get(index));
          }
          for (Lane lane : reading) {
            String uri = uriOf.get(lane);
            lane.readUris.add(uri);
            step(List.of(lane), key(round, "resources/read " + uri), false, null,
                l -> call(l, "resources/read", params(l, round, Map.of("uri", uri))));
          }
        }
      }
      if (prompts) {
        record(lanes, key(round, "prompts/list"), pages(lanes, "prompts/list", "prompts"));
      }
    }

    private void record(List<Lane> lanes, String key, List<Map<String, Object>> answers) {
      for (int i = 0; i < lanes.size(); i++) {
        lanes.get(i).answers.put(key, answers.get(i));
      }
    }

    /**
     * Every page of a listing, for each lane (both written before either is read), merged into
     * one answer per lane: {@code {"result": {"<items>": [...]}}}, or the first page's error.
     */
    private List<Map<String, Object>> pages(List<Lane> lanes, String method, String items)
        throws SessionException, InterruptedException {
      List<List<Object>> collected = new ArrayList<>();
      List<@Nullable Map<String, Object>> errors = new ArrayList<>();
      List<@Nullable String> cursors = new ArrayList<>();
      for (int i = 0; i < lanes.size(); i++) {
        collected.add(new ArrayList<>());
        errors.add(null);
        cursors.add("");
      }
      for (int page = 0; page < MAX_PAGES; page++) {
        List<CompletableFuture<Map<String, Object>>> pending = new ArrayList<>();
        for (int i = 0; i < lanes.size(); i++) {
          String cursor = cursors.get(i);
          if (cursor == null) {
            pending.add(null);
            continue;
          }
          Map<String, Object> p = new LinkedHashMap<>();
          if (!cursor.isEmpty()) {
            p.put("cursor", cursor);
          }
          pending.add(call(lanes.get(i), method, params(lanes.get(i), 0, p)));
        }
        long deadline = System.nanoTime() + callTimeout.toNanos();
        boolean more = false;
        for (int i = 0; i < lanes.size(); i++) {
          CompletableFuture<Map<String, Object>> f = pending.get(i);
          if (f == null) {
            continue;
          }
          Map<String, Object> answer = await(f, deadline, method);
          if (answer.containsKey("error") || !(answer.get("result") instanceof Map<?, ?>)) {
            if (page == 0) {
              errors.set(i, kept(answer));
            }
            cursors.set(i, null);
            continue;
          }
          Map<?, ?> result = (Map<?, ?>) answer.get("result");
          if (result.get(items) instanceof List<?>) {
            collected.get(i).addAll((List<?>) result.get(items));
          }
          Object next = result.get("nextCursor");
          cursors.set(i, next instanceof String && !((String) next).isEmpty() ? (String) next : null);
          more |= cursors.get(i) != null;
        }
        if (!more) {
          break;
        }
      }
      List<Map<String, Object>> out = new ArrayList<>();
      for (int i = 0; i < lanes.size(); i++) {
        Map<String, Object> error = errors.get(i);
        out.add(error != null ? error : kept(Map.of("result", Map.of(items, List.copyOf(collected.get(i))))));
      }
      return out;
    }

    private List<String> uris(Map<String, Object> listing) {
      List<String> out = new ArrayList<>();
      if (listing.get("result") instanceof Map<?, ?> && ((Map<?, ?>) listing.get("result")).get("resources") instanceof List<?>) {
        for (Object r : (List<?>) ((Map<?, ?>) listing.get("result")).get("resources")) {
          if (r instanceof Map<?, ?> && ((Map<?, ?>) r).get("uri") instanceof String) {
            out.add((String) ((Map<?, ?>) r).get("uri"));
          }
        }
      }
      return out;
    }

    /**
     * One step: each lane's request written, then every answer awaited. A call without an answer
     * in time is lost: its tool is not called again.
     */
    private void step(List<Lane> lanes, String key, boolean isShared, @Nullable String tool,
        Function<Lane, CompletableFuture<Map<String, Object>>> request) throws SessionException, InterruptedException {
      List<CompletableFuture<Map<String, Object>>> pending = new ArrayList<>();
      for (Lane lane : lanes) {
        pending.add(request.apply(lane));
      }
      long deadline = System.nanoTime() + callTimeout.toNanos();
      for (int i = 0; i < lanes.size(); i++) {
        try {
          lanes.get(i).answers.put(key, kept(await(pending.get(i), deadline, key)));
        } catch (SessionException e) {
          if (e.kind() != SessionException.Kind.TIMEOUT || aborted.get() != null) {
            throw e;
          }
          pending.get(i).cancel(false);
          if (isShared) {
            sharedLostCalls = true;
          }
          if (tool != null) {
            dropped.putIfAbsent(tool, "no answer in " + StatelessnessProbe.duration(callTimeout.toMillis())
                + " (" + CALL_TIMEOUT_MS + ") to " + lanes.get(i).caller.label() + "'s call in round "
                + key.substring(0, key.indexOf(' ')) + (isShared ? " on the shared backend" : " on a dedicated backend"));
          }
        }
      }
    }

    private CompletableFuture<Map<String, Object>> call(Lane lane, String method, Map<String, Object> params) {
      try {
        return lane.backend.session().request(method, params);
      } catch (SessionException e) {
        return CompletableFuture.failedFuture(e);
      }
    }

    private Map<String, Object> callParams(Lane lane, Planned tool, int round) {
      Map<String, Object> p = new LinkedHashMap<>();
      p.put("name", tool.name());
      String marker = lane.caller.marker(round);
      Path scratch = lane.backend.scratch.resolve(marker);
      if (tool.arguments().carriesScratch()) {
        try {
          Files.createDirectories(scratch);
        } catch (IOException e) {
          // the call goes ahead: a path that does not exist is an answer the probe can read
        }
      }
      p.put("arguments", tool.arguments().render(marker, lane.caller.workspace(round), scratch.toString()));
      Map<String, Object> params = params(lane, round, p);
      String token = lane.caller.prefix() + "-progress-" + progress.incrementAndGet();
      lane.backend.progressOwners.put(token, lane.caller.label());
      @SuppressWarnings("unchecked")
      Map<String, Object> meta = new LinkedHashMap<>((Map<String, Object>) params.getOrDefault("_meta", Map.of()));
      meta.put("progressToken", token);
      params.put("_meta", meta);
      return params;
    }

    /** {@code base} with the era's {@code _meta} and, for a server that declares it, the caller's block. */
    private Map<String, Object> params(Lane lane, int round, Map<String, Object> base) {
      Map<String, Object> params = new LinkedHashMap<>(base);
      Map<String, Object> meta = new LinkedHashMap<>(lane.backend.session().eraMeta(
          Map.of("name", "cotenant-probe-" + lane.caller.label().toLowerCase(Locale.ROOT), "version", "1"), NO_CAPABILITIES));
      callerMetaKey.ifPresent(k -> meta.put(k, Map.of(
          "session", lane.caller.workspace(Math.max(1, round)).replaceAll("-\\d+$", ""), "tenant", lane.caller.tenant())));
      if (!meta.isEmpty()) {
        params.put("_meta", meta);
      }
      return params;
    }

    private Map<String, Object> await(CompletableFuture<Map<String, Object>> answer, long deadlineNanos, String what)
        throws SessionException, InterruptedException {
      try {
        return answer.get(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
      } catch (TimeoutException e) {
        throw new SessionException(SessionException.Kind.TIMEOUT,
            "no answer to " + what + " in " + StatelessnessProbe.duration(callTimeout.toMillis()));
      } catch (ExecutionException e) {
        if (e.getCause() instanceof SessionException) {
          throw (SessionException) e.getCause();
        }
        throw new SessionException(SessionException.Kind.GARBAGE, "the answer to " + what + " failed: "
            + (e.getCause() == null ? "unknown" : e.getCause().getClass().getSimpleName()));
      }
    }

    // ---- the report ----

    SurfaceReport report(Optional<String> stopped) {
      Map<String, List<Finding>> findings = new LinkedHashMap<>();
      Map<String, List<String>> volatiles = new LinkedHashMap<>();
      if (shared != null) {
        compare(findings, volatiles);
      }
      List<ToolResult> tools = new ArrayList<>();
      Map<String, ToolResult> skipped = new LinkedHashMap<>();
      skippedTools.forEach(t -> skipped.put(t.name(), t));
      for (String name : listedTools) {
        if (skipped.containsKey(name)) {
          tools.add(skipped.get(name));
          continue;
        }
        Planned p = called.stream().filter(c -> c.name().equals(name)).findFirst().orElseThrow();
        String channel = "tools/call " + name;
        List<Finding> f = findings.getOrDefault(channel, List.of());
        List<String> v = volatiles.getOrDefault(channel, List.of());
        tools.add(toolResult(p, f, v, stopped.isPresent()));
      }
      List<ListingResult> listings = new ArrayList<>();
      for (String method : List.of("tools/list", "resources/list", "resources/templates/list", "resources/read", "prompts/list")) {
        if (findings.containsKey(method) || volatiles.containsKey(method) || seen(method)) {
          List<Finding> f = findings.getOrDefault(method, List.of());
          listings.add(new ListingResult(method, f.stream().anyMatch(SurfaceProbe::observation), f,
              volatiles.getOrDefault(method, List.of())));
        }
      }
      Traffic traffic = sharedBackend == null ? Traffic.none() : new Traffic(
          sharedBackend.notifications, sharedBackend.unattributable, sharedBackend.requests, sharedBackend.unroutable);
      Map<HazardCode, String> hazards = new EnumMap<>(HazardCode.class);
      Stream.concat(tools.stream().flatMap(t -> t.findings().stream()), listings.stream().flatMap(l -> l.findings().stream()))
          .filter(SurfaceProbe::observation).findFirst()
          .ifPresent(f -> hazards.put(HazardCode.CROSS_SESSION_LEAK, f.detail()));
      if (!traffic.unattributable().isEmpty()) {
        hazards.put(HazardCode.UNATTRIBUTABLE_NOTIFICATION, counts(traffic.unattributable())
            + " on the shared backend, which no caller can be told apart as the owner of");
      }
      if (!traffic.unroutable().isEmpty()) {
        hazards.put(HazardCode.UNROUTABLE_SERVER_REQUEST, counts(traffic.unroutable())
            + " from the shared backend, which cannot be routed to the caller it is for");
      }
      Outcome outcome;
      if (!hazards.isEmpty()) {
        outcome = Outcome.HAZARD;
      } else if (stopped.isPresent()) {
        outcome = Outcome.NOT_RUN;
      } else if (tools.stream().allMatch(t -> t.status() == ToolStatus.PASSED || t.status() == ToolStatus.SKIPPED_BY_PLAN)) {
        outcome = Outcome.PASSED;
      } else {
        outcome = Outcome.NOT_PROVEN;
      }
      List<String> planNotes = plan.tools().stream().filter(t -> !listedTools.contains(t)).sorted()
          .map(t -> "the plan names " + LogSafe.escape(t, 80) + ", which the server does not list").toList();
      long elapsed = (System.nanoTime() - started) / 1_000_000;
      return new SurfaceReport(server.name(), identity, rounds, callerBlocks, tools, listings, traffic, hazards, outcome,
          stopped.map(StatelessnessProbe::bounded), Optional.empty(), planNotes, elapsed, sandboxing,
          List.copyOf(contradicted.values()));
    }

    private boolean seen(String method) {
      return shared != null && shared.stream().anyMatch(l -> l.answers.keySet().stream().anyMatch(k -> channel(k).equals(method)));
    }

    private ToolResult toolResult(Planned p, List<Finding> f, List<String> v, boolean stopped) {
      if (f.stream().anyMatch(SurfaceProbe::observation)) {
        return new ToolResult(p.name(), ToolStatus.LEAKED, "", p.source(), f, v);
      }
      if (dropped.containsKey(p.name())) {
        return new ToolResult(p.name(), ToolStatus.NOT_PROVEN, dropped.get(p.name()), p.source(), f, v);
      }
      Optional<String> error = dedicatedError(p.name());
      if (error.isPresent()) {
        return new ToolResult(p.name(), ToolStatus.NOT_PROVEN, error.get(), p.source(), f, v);
      }
      if (!f.isEmpty()) {
        return new ToolResult(p.name(), ToolStatus.NOT_PROVEN,
            "its answers differed after the shared backend had lost a call, which proves nothing", p.source(), f, v);
      }
      if (stopped || after == null) {
        return new ToolResult(p.name(), ToolStatus.NOT_PROVEN, "the probe stopped before every run was compared",
            p.source(), f, v);
      }
      return new ToolResult(p.name(), ToolStatus.PASSED, "", p.source(), f, v);
    }

    /** Why a tool proved nothing on a dedicated backend: a JSON-RPC error or {@code isError}. */
    private Optional<String> dedicatedError(String tool) {
      if (before == null) {
        return Optional.empty();
      }
      for (Lane lane : before) {
        for (Map.Entry<String, Map<String, Object>> e : lane.answers.entrySet()) {
          if (!channel(e.getKey()).equals("tools/call " + tool)) {
            continue;
          }
          Map<String, Object> answer = e.getValue();
          Object result = answer.get("result");
          if (answer.containsKey("error")) {
            return Optional.of("answered a JSON-RPC error on a dedicated backend: "
                + redact(LogSafe.escape(StatelessnessProbe.toJson(answer.get("error")), 160))
                + "; give it arguments in a plan, or skip it with a reason");
          }
          if (result instanceof Map<?, ?> && Boolean.TRUE.equals(((Map<?, ?>) result).get("isError"))) {
            return Optional.of("answered isError on a dedicated backend: "
                + redact(LogSafe.escape(StatelessnessProbe.toJson(result), 160))
                + "; give it arguments in a plan, or skip it with a reason");
          }
        }
      }
      return Optional.empty();
    }

    /** Marker scan and dedicated-versus-shared comparison of every answer on the shared backend. */
    private void compare(Map<String, List<Finding>> findings, Map<String, List<String>> volatiles) {
      List<Lane> s = Objects.requireNonNull(shared);
      for (int i = 0; i < s.size(); i++) {
        Lane lane = s.get(i);
        Caller other = lane.caller == a ? b : a;
        for (Map.Entry<String, Map<String, Object>> e : lane.answers.entrySet()) {
          String key = e.getKey();
          String channel = channel(key);
          int round = Integer.parseInt(key.substring(0, key.indexOf(' ')));
          Object answer = e.getValue();
          Optional<Finding> marker = markerFinding(round, lane.caller, other, channel, answer);
          if (marker.isPresent()) {
            add(findings, channel, marker.get());
            continue;
          }
          if (before == null || after == null) {
            continue;
          }
          Map<String, Object> d1 = before.get(i).answers.get(key);
          Map<String, Object> d2 = after.get(i).answers.get(key);
          if (d1 == null || d2 == null) {
            continue;
          }
          AnswerDiff.Comparison c = AnswerDiff.compare(d1, d2, answer);
          Set<AnswerDiff.Place> places = volatilePlaces.computeIfAbsent(channel, k -> new LinkedHashSet<>());
          for (AnswerDiff.Place place : c.volatilePlaces()) {
            if (places.size() < AnswerDiff.MAX_PLACES) {
              places.add(place);
            }
          }
          if (!c.volatileParts().isEmpty()) {
            List<String> v = volatiles.computeIfAbsent(channel, k -> new ArrayList<>());
            for (String part : c.volatileParts()) {
              String shown = redact(part);
              if (!v.contains(shown) && v.size() < MAX_FINDINGS) {
                v.add(shown);
              }
            }
          }
          for (AnswerDiff.Difference d : c.differences()) {
            FindingKind kind = sharedLostCalls ? FindingKind.UNCONFIRMED : FindingKind.CHANGED_ANSWER;
            add(findings, channel, new Finding(round, lane.caller.label(), kind, d.path(), redact(
                lane.caller.label() + "'s answer to " + what(channel) + " on the shared backend differs from a dedicated "
                    + "backend's at " + d)));
            break;
          }
        }
      }
    }

    private Optional<Finding> markerFinding(int round, Caller self, Caller other, String channel, Object answer) {
      String text = StatelessnessProbe.toJson(answer);
      for (String trace : other.traces()) {
        if (text.contains(trace)) {
          String path = locate(answer, trace, "$").orElse("$");
          String kind = trace.startsWith(other.prefix()) ? "marker" : "workspace value";
          return Optional.of(new Finding(round, self.label(), FindingKind.MARKER, path, redact(
              other.label() + "'s " + kind + " " + trace + " appeared in " + self.label() + "'s answer to " + what(channel)
                  + " at " + path)));
        }
      }
      return Optional.empty();
    }

    private String redact(String text) {
      String out = text;
      for (String secret : secretValues) {
        out = out.replace(secret, REDACTED);
      }
      return out;
    }

    private List<String> secretValues(ServerDescription s) {
      List<String> values = new ArrayList<>();
      Map<String, String> env = new TreeMap<>(System.getenv());
      env.putAll(s.env());
      env.forEach((k, v) -> {
        if (secrets.isSecret(k) && v.length() >= 4) {
          values.add(v);
        }
      });
      values.sort(Comparator.comparingInt(String::length).reversed());
      return values;
    }

    /**
     * An answer as it is kept: the caller's view ({@link #normal}) with every secret value
     * replaced in every string and key, before anything is compared or excerpted, so that no
     * part of a secret reaches a report.
     */
    private Map<String, Object> kept(Map<String, Object> answer) {
      @SuppressWarnings("unchecked")
      Map<String, Object> out = (Map<String, Object>) scrub(normal(answer));
      return out;
    }

    private Object scrub(@Nullable Object value) {
      if (secretValues.isEmpty()) {
        return value == null ? Json.NULL : value;
      }
      if (value instanceof String) {
        return redact((String) value);
      }
      if (value instanceof Map<?, ?>) {
        Map<String, Object> m = new LinkedHashMap<>();
        ((Map<?, ?>) value).forEach((k, v) -> m.put(redact(String.valueOf(k)), scrub(v)));
        return m;
      }
      if (value instanceof List<?>) {
        List<Object> l = new ArrayList<>();
        ((List<?>) value).forEach(v -> l.add(scrub(v)));
        return l;
      }
      return value == null ? Json.NULL : value;
    }
  }

  private static final tools.jackson.databind.json.JsonMapper JSON = tools.jackson.databind.json.JsonMapper.builder().build();

  /** True when a finding is an observation (recorded), not an unconfirmed difference. */
  private static boolean observation(Finding f) {
    return f.kind() != FindingKind.UNCONFIRMED;
  }

  private static void add(Map<String, List<Finding>> findings, String channel, Finding f) {
    List<Finding> list = findings.computeIfAbsent(channel, k -> new ArrayList<>());
    if (list.size() < MAX_FINDINGS) {
      list.add(f);
    }
  }

  /** The step key: {@code "<round> <channel>"}. */
  private static String key(int round, String channel) {
    return round + " " + channel;
  }

  /** The channel of a step key; every {@code resources/read} is one channel. */
  private static String channel(String key) {
    String c = key.substring(key.indexOf(' ') + 1);
    return c.startsWith("resources/read ") ? "resources/read" : c;
  }

  /** {@code tools/call echo} reads as {@code echo}; a listing as itself. */
  private static String what(String channel) {
    return channel.startsWith("tools/call ") ? channel.substring("tools/call ".length()) : channel;
  }

  /** A response reduced to what a caller sees of it: its {@code result} or its {@code error}. */
  private static Map<String, Object> normal(Map<String, Object> answer) {
    if (answer.containsKey("error")) {
      return Map.of("error", answer.get("error"));
    }
    Object result = answer.get("result");
    return Map.of("result", result == null ? Json.NULL : result);
  }

  /** The path of the first string containing {@code needle}. */
  static Optional<String> locate(@Nullable Object value, String needle, String path) {
    if (value instanceof String) {
      return ((String) value).contains(needle) ? Optional.of(path) : Optional.empty();
    }
    if (value instanceof Map<?, ?>) {
      for (Map.Entry<?, ?> e : ((Map<?, ?>) value).entrySet()) {
        String k = String.valueOf(e.getKey());
        if (k.contains(needle)) {
          return Optional.of(path + "." + k);
        }
        Optional<String> inner = locate(e.getValue(), needle, path + "." + k);
        if (inner.isPresent()) {
          return inner;
        }
      }
    }
    if (value instanceof List<?>) {
      List<?> list = (List<?>) value;
      for (int i = 0; i < list.size(); i++) {
        Optional<String> inner = locate(list.get(i), needle, path + "[" + i + "]");
        if (inner.isPresent()) {
          return inner;
        }
      }
    }
    return Optional.empty();
  }

  private static String counts(Map<String, Integer> counts) {
    return new TreeMap<>(counts).entrySet().stream().map(e -> e.getKey() + " x" + e.getValue())
        .reduce((x, y) -> x + ", " + y).orElse("");
  }

  private static void deleteQuietly(Path dir) {
    try (Stream<Path> walk = Files.walk(dir)) {
      walk.sorted(Comparator.reverseOrder()).forEach(p -> {
        try {
          Files.deleteIfExists(p);
        } catch (IOException e) {
          // best effort: a scratch directory under the temp dir
        }
      });
    } catch (IOException e) {
      // already gone
    }
  }

  private static String hex(int bytes) {
    byte[] b = new byte[bytes];
    RANDOM.nextBytes(b);
    return HexFormat.of().formatHex(b);
  }
}
