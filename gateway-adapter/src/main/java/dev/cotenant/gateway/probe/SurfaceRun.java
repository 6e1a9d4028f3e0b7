package dev.cotenant.gateway.probe;

import dev.cotenant.api.ServerDescription;
import dev.cotenant.gateway.probe.SurfaceReport.Sandboxing;
import dev.cotenant.gateway.probe.SurfaceReport.ToolResult;
import dev.cotenant.gateway.sandbox.Sandbox;
import dev.cotenant.spi.ServerSession;
import dev.cotenant.spi.SessionException;
import dev.cotenant.spi.SessionTransport;
import dev.cotenant.spi.rpc.RpcMessage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/**
 * One run of the whole-surface probe, and its state: the two callers, the backends it opened, the
 * tools it calls, and every answer, by phase (dedicated before, shared, dedicated after). It
 * orchestrates: opens each backend in a scratch directory of its own ({@link ScratchDirectories}),
 * runs the phases, writes each step's requests before awaiting any answer, and tears every
 * backend down whatever happens, within the budget. Which tools are called is decided by
 * {@link ToolChoice} and {@link Calibration}, the listings are paged by {@link LockstepListings},
 * and the report is built by {@link SurfaceReporter}. One thread drives a run; only the watchdog
 * aborts it from another.
 */
final class SurfaceRun {

  final SurfaceProbeSettings settings;
  private final SessionTransport sessions;
  private final Sandbox sandbox;
  final StatelessnessProbe markers;
  final ServerDescription server;
  final String identity;
  final ProbePlan plan;
  final int rounds;
  final Sandboxing sandboxing;
  final long started = System.nanoTime();
  final ProbeCaller a;
  final ProbeCaller b;
  final Redactor redactor;
  /** The client capabilities the callers declare: none, or {@link ClientAnswers#CAPABILITIES}. */
  final Map<String, Object> capabilities;
  /** Who answers the server's requests as those callers; null when they declare none. */
  private final @Nullable ClientAnswers answers;
  private final AtomicInteger progress = new AtomicInteger();
  private final List<ProbeBackend> open = new ArrayList<>();
  final AtomicReference<String> aborted = new AtomicReference<>();
  /** Tools that stopped being called, with why. */
  final Map<String, String> dropped = new LinkedHashMap<>();
  final List<ToolResult> skippedTools = new ArrayList<>();
  /** Tools annotated readOnlyHint: true that kept what their calls sent, with the note saying so. */
  final Map<String, String> contradicted = new LinkedHashMap<>();
  List<String> listedTools = List.of();
  List<PlannedCall> called = List.of();
  boolean callerBlocks;
  Optional<String> callerMetaKey = Optional.empty();
  boolean resources;
  boolean prompts;
  boolean sharedLostCalls;
  @Nullable List<ProbeLane> before;
  @Nullable List<ProbeLane> shared;
  @Nullable List<ProbeLane> after;
  @Nullable ProbeBackend sharedBackend;

  /** Where the two dedicated answers of a call disagreed, by tool or listing, in any round. */
  final Map<String, Set<AnswerDiff.Place>> volatilePlaces = new LinkedHashMap<>();

  private final ScratchDirectories scratch = new ScratchDirectories();
  /** How backends are started: through the sandbox, or as configured; chosen on the first open. */
  private @Nullable SessionTransport backends;

  SurfaceRun(SurfaceProbeSettings settings, SessionTransport sessions, Sandbox sandbox, StatelessnessProbe markers,
      ServerDescription server, String identity, ProbePlan plan, int rounds, Sandboxing sandboxing,
      boolean capableClients) {
    this.settings = settings;
    this.capabilities = capableClients ? ClientAnswers.CAPABILITIES : Map.of();
    this.answers = capableClients ? new ClientAnswers() : null;
    this.sessions = sessions;
    this.sandbox = sandbox;
    this.markers = markers;
    this.sandboxing = sandboxing;
    this.redactor = new Redactor(server, settings.secrets());
    this.server = server;
    this.identity = identity;
    this.plan = plan;
    this.rounds = rounds;
    String nonce = ProbeCaller.hex(4);
    List<String> suffixes = Stream.generate(() -> ProbeCaller.hex(4)).limit(rounds).toList();
    this.a = ProbeCaller.of("A", "alpha", "cotenant-probe-a-" + nonce, nonce, suffixes);
    this.b = ProbeCaller.of("B", "bravo", "cotenant-probe-b-" + nonce, nonce, suffixes);
  }

  SurfaceReport notRun(String why) {
    return new SurfaceReporter(this).report(Optional.of(why));
  }

  SurfaceReport execute() throws InterruptedException {
    ScheduledExecutorService watchdog = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "cotenant-surface-probe-watchdog");
      t.setDaemon(true);
      return t;
    });
    long budget = settings.budget().toMillis();
    watchdog.schedule(() -> abortAll("the probe took longer than its budget of "
        + StatelessnessProbe.duration(budget) + " (" + SurfaceProbe.BUDGET_MS + ")"), budget, TimeUnit.MILLISECONDS);
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
    return new SurfaceReporter(this).report(stopped);
  }

  private synchronized void abortAll(String why) {
    aborted.compareAndSet(null, why);
    for (ProbeBackend backend : open) {
      if (backend.session != null) {
        backend.session.abort(why);
      }
    }
  }

  private synchronized void closeAll() {
    for (ProbeBackend backend : open) {
      backend.close();
    }
    open.clear();
    scratch.remove();
  }

  /**
   * Opens a backend, hands it its handshake, and keeps it for teardown.
   *
   * @param owner the only caller of a dedicated backend (who answers what it asks); null for the shared one
   */
  ProbeBackend open(boolean isShared, String label, @Nullable ProbeCaller owner)
      throws SessionException, InterruptedException {
    Path dir;
    try {
      synchronized (this) {
        if (backends == null) {
          backends = sandboxing.sandboxed()
              ? sandbox.around(sessions, sandboxing.network(), List.of(scratch.root()))
              : sessions;
        }
        dir = scratch.forBackend();
      }
    } catch (IOException e) {
      throw new SessionException(SessionException.Kind.START, "no scratch directory: " + e.getMessage());
    }
    ProbeBackend backend = new ProbeBackend(isShared, dir, answers, isShared ? null : owner, isShared ? a : null);
    ServerDescription run = server.cwd().isPresent() ? server : server.withCwd(Optional.of(dir.toString()));
    synchronized (this) {
      open.add(backend);
      if (aborted.get() != null) {
        throw new SessionException(SessionException.Kind.TIMEOUT, aborted.get());
      }
      backend.session = Objects.requireNonNull(backends).open(run, label, backend);
    }
    backend.handshake = backend.session().handshake(settings.era(),
        Map.of("name", "cotenant-surface-probe", "version", "1"), capabilities,
        capabilities.isEmpty() ? SurfaceProbe.BARE_CALLERS_VERSION : SurfaceProbe.CAPABLE_CALLERS_VERSION,
        settings.handshakeTimeout());
    return backend;
  }

  /** Runs every round on two dedicated backends, or on one shared backend. */
  private List<ProbeLane> phase(boolean isShared, boolean first) throws SessionException, InterruptedException {
    List<ProbeLane> lanes;
    if (isShared) {
      ProbeBackend s = open(true, "probe-shared", null);
      sharedBackend = s;
      lanes = List.of(new ProbeLane(a, s), new ProbeLane(b, s));
    } else {
      ProbeBackend da = open(false, "probe-dedicated-a", a);
      ProbeBackend db = open(false, "probe-dedicated-b", b);
      lanes = List.of(new ProbeLane(a, da), new ProbeLane(b, db));
    }
    LockstepListings listings = new LockstepListings(this);
    if (first) {
      ToolChoice.decide(this, lanes.get(0), listings);
      Calibration calibration = new Calibration(this);
      calibration.calibrate();
      calibration.checkReadOnly();
    }
    try {
      listings.round(lanes, 0);
      for (int r = 1; r <= rounds; r++) {
        for (PlannedCall tool : called) {
          if (!dropped.containsKey(tool.name())) {
            int round = r;
            step(lanes, key(r, "tools/call " + tool.name()), isShared, tool.name(),
                lane -> call(lane, "tools/call", callParams(lane, tool, round)));
          }
        }
        listings.round(lanes, r);
      }
    } finally {
      for (ProbeLane lane : lanes) {
        lane.backend.close();
      }
    }
    return lanes;
  }

  /**
   * One step: each lane's request written, then every answer awaited. A call without an answer
   * in time is lost: its tool is not called again.
   */
  void step(List<ProbeLane> lanes, String key, boolean isShared, @Nullable String tool,
      Function<ProbeLane, CompletableFuture<Map<String, Object>>> request) throws SessionException, InterruptedException {
    List<CompletableFuture<Map<String, Object>>> pending = new ArrayList<>();
    for (ProbeLane lane : lanes) {
      pending.add(request.apply(lane));
    }
    long deadline = System.nanoTime() + settings.callTimeout().toNanos();
    for (int i = 0; i < lanes.size(); i++) {
      try {
        lanes.get(i).answers.put(key, redactor.kept(await(pending.get(i), deadline, key)));
      } catch (SessionException e) {
        if (e.kind() != SessionException.Kind.TIMEOUT || aborted.get() != null) {
          throw e;
        }
        pending.get(i).cancel(false);
        if (isShared) {
          sharedLostCalls = true;
        }
        if (tool != null) {
          dropped.putIfAbsent(tool, "no answer in " + StatelessnessProbe.duration(settings.callTimeout().toMillis())
              + " (" + SurfaceProbe.CALL_TIMEOUT_MS + ") to " + lanes.get(i).caller.label() + "'s call in round "
              + key.substring(0, key.indexOf(' ')) + (isShared ? " on the shared backend" : " on a dedicated backend"));
        }
      }
    }
  }

  /**
   * Calls {@code p} once, outside the rounds (calibration, the read-only check); empty when it
   * did not answer within the call timeout (the call is then cancelled). A timeout of the whole
   * probe, or any other failure, is thrown.
   */
  Optional<RpcMessage.Response> callOnce(ProbeLane lane, PlannedCall p, int round)
      throws SessionException, InterruptedException {
    CompletableFuture<Map<String, Object>> answer = call(lane, "tools/call", callParams(lane, p, round));
    try {
      return Optional.of(await(answer, System.nanoTime() + settings.callTimeout().toNanos(), "tools/call " + p.name()));
    } catch (SessionException e) {
      if (e.kind() != SessionException.Kind.TIMEOUT || aborted.get() != null) {
        throw e;
      }
      answer.cancel(false);
      return Optional.empty();
    }
  }

  /**
   * Writes one request on the lane's backend, the caller counted as in flight there until it is
   * answered or given up; a session that cannot take it fails the answer.
   */
  CompletableFuture<Map<String, Object>> call(ProbeLane lane, String method, Map<String, Object> params) {
    lane.backend.calling(lane.caller);
    try {
      CompletableFuture<Map<String, Object>> answer = lane.backend.session().request(method, params);
      answer.whenComplete((v, e) -> lane.backend.answered(lane.caller));
      return answer;
    } catch (SessionException e) {
      lane.backend.answered(lane.caller);
      return CompletableFuture.failedFuture(e);
    }
  }

  /** Waits for one answer until the step's deadline, and reads it. */
  RpcMessage.Response await(CompletableFuture<Map<String, Object>> answer, long deadlineNanos, String what)
      throws SessionException, InterruptedException {
    return ProbeAnswers.await(answer, deadlineNanos, what, settings.callTimeout(), "the answer to " + what + " failed");
  }

  /**
   * The params of a {@code tools/call} of {@code tool} by the lane's caller in {@code round}: its
   * arguments rendered with the caller's marker, workspace value and a scratch directory (made
   * when the arguments carry it), and a progress token the backend attributes to the caller.
   */
  Map<String, Object> callParams(ProbeLane lane, PlannedCall tool, int round) {
    Map<String, Object> p = new LinkedHashMap<>();
    p.put("name", tool.name());
    String marker = lane.caller.marker(round);
    Path dir = lane.backend.scratch.resolve(marker);
    if (tool.arguments().carriesScratch()) {
      try {
        Files.createDirectories(dir);
      } catch (IOException e) {
        // the call goes ahead: a path that does not exist is an answer the probe can read
      }
    }
    p.put("arguments", tool.arguments().render(marker, lane.caller.workspace(round), dir.toString()));
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
  Map<String, Object> params(ProbeLane lane, int round, Map<String, Object> base) {
    Map<String, Object> params = new LinkedHashMap<>(base);
    ServerSession session = lane.backend.session();
    Map<String, Object> meta = new LinkedHashMap<>(session.eraMeta(
        Map.of("name", "cotenant-probe-" + lane.caller.label().toLowerCase(Locale.ROOT), "version", "1"), capabilities));
    callerMetaKey.ifPresent(k -> meta.put(k, Map.of(
        "session", lane.caller.workspace(Math.max(1, round)).replaceAll("-\\d+$", ""), "tenant", lane.caller.tenant())));
    if (!meta.isEmpty()) {
      params.put("_meta", meta);
    }
    return params;
  }

  /** The step key: {@code "<round> <channel>"}. */
  static String key(int round, String channel) {
    return round + " " + channel;
  }

  /** The channel of a step key; every {@code resources/read} is one channel. */
  static String channel(String key) {
    String c = key.substring(key.indexOf(' ') + 1);
    return c.startsWith("resources/read ") ? "resources/read" : c;
  }
}
