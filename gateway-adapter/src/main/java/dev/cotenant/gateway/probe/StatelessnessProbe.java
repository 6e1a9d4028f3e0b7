package dev.cotenant.gateway.probe;

import dev.cotenant.api.LogSafe;
import dev.cotenant.api.ServerDescription;
import dev.cotenant.api.Transport;
import dev.cotenant.gateway.probe.ProbeReport.Assertion;
import dev.cotenant.gateway.probe.ProbeReport.Outcome;
import dev.cotenant.gateway.probe.ProbeReport.Round;
import dev.cotenant.spi.CoreSettings;
import dev.cotenant.spi.HandshakeEra;
import dev.cotenant.spi.ProviderConfig;
import dev.cotenant.spi.ServerMessageHandler;
import dev.cotenant.spi.ServerSession;
import dev.cotenant.spi.SessionException;
import dev.cotenant.spi.SessionTransport;
import dev.cotenant.spi.rpc.RpcMessage;
import java.time.Duration;
import tools.jackson.databind.json.JsonMapper;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * The statelessness probe (docs/statelessness.md): ONE backend process, ONE handshake, and two logical
 * callers, A and B, on it. Each round writes both callers' {@code tools/call} requests before
 * reading either answer (the shape a shared backend is exposed to), each carrying its own marker
 * and its own workspace value through the {@link ArgumentTemplate}; for a server that declares
 * the caller-identity extension each call also carries its caller's block in {@code _meta}. An
 * optional read-back call follows, again both written before either is read. Three assertions
 * per round: A never sees B's marker, B never sees A's (in any answer of the round), and each
 * caller gets its own marker back (in a non-error answer of its last call).
 *
 * <p>This class only runs the probe and reports; {@link Statelessness} records what it saw.
 * The backend is started through the runtime's {@link SessionTransport}, so a host's transport
 * applies here as it does to the pre-flight; its bounds are that transport's. The protocol era
 * ({@value CoreSettings#ERA}) and the time limit ({@value CoreSettings#TIMEOUT_MS}) are shared with
 * the pre-flight: the handshake and each batch of calls must complete within it. Any failure to run resolves to {@link Outcome#NOT_RUN} with a reason, never
 * to a pass; the process and its descendants are always torn down. A disabled server is never
 * spawned (probing is the act consent gates). Thread-safe.
 */
public final class StatelessnessProbe {
  /** The {@code capabilities.experimental} key value's field naming the caller block's {@code _meta} key. */
  static final String META_KEY_FIELD = "metaKey";

  /** The caller block's {@code _meta} key when the declaration names none. */
  public static final String DEFAULT_CALLER_META_KEY = "cotenant/caller";

  private static final Map<String, Object> NO_CAPABILITIES = Map.of();
  private static final SecureRandom RANDOM = new SecureRandom();

  /** The error a server's sampling or elicitation request is answered with. */
  private static final String DECLINED = "declined: this client has no user to ask";

  private static final JsonMapper MAPPER = JsonMapper.builder().build();

  private final SessionTransport sessions;
  private final HandshakeEra era;
  private final Duration timeout;
  private final Set<String> callerIdentityKeys;

  /**
   * @param sessions starts the backend
   * @param era the protocol era to speak
   * @param timeout the handshake's and each batch of calls' time limit
   * @param callerIdentityKeys the {@code capabilities.experimental} keys that declare the
   *     caller-identity extension
   */
  public StatelessnessProbe(SessionTransport sessions, HandshakeEra era, Duration timeout, Set<String> callerIdentityKeys) {
    this.sessions = Objects.requireNonNull(sessions, "sessions");
    this.era = Objects.requireNonNull(era, "era");
    this.timeout = Objects.requireNonNull(timeout, "timeout");
    this.callerIdentityKeys = Set.copyOf(callerIdentityKeys);
  }

  /**
   * A probe over {@code sessions} speaking the configured era ({@value CoreSettings#ERA}) within
   * the configured time limit ({@value CoreSettings#TIMEOUT_MS}), recognising the caller-identity
   * keys the evidence sources recognise ({@value CoreSettings#CALLER_IDENTITY_KEYS}).
   *
   * @throws IllegalArgumentException naming the key whose value is malformed
   */
  public static StatelessnessProbe fromConfig(SessionTransport sessions, ProviderConfig config) {
    return new StatelessnessProbe(
        sessions, CoreSettings.era(config), CoreSettings.timeout(config), CoreSettings.callerIdentityKeys(config));
  }

  /**
   * Runs the probe against a fresh process of {@code server}.
   *
   * @param identity the server's ledger identity, carried into the report
   * @throws InterruptedException when interrupted; the process is torn down first
   */
  public ProbeReport run(ServerDescription server, String identity, ProbeSpec spec) throws InterruptedException {
    Objects.requireNonNull(server, "server");
    Objects.requireNonNull(identity, "identity");
    Objects.requireNonNull(spec, "spec");
    if (server.transport() != Transport.STDIO) {
      return notRun(server, identity, spec, false, List.of(), "not a stdio server: there is no backend process to share");
    }
    if (!server.enabled()) {
      return notRun(server, identity, spec, false, List.of(), "disabled: a disabled server is never probed");
    }
    String nonce = HexFormat.of().formatHex(bytes(4));
    String tenant = "cotenant-probe-" + nonce;
    Caller a = new Caller("A", "alpha", "cotenant-probe-a-" + nonce, tenant);
    Caller b = new Caller("B", "bravo", "cotenant-probe-b-" + nonce, tenant);
    List<Round> rounds = new ArrayList<>();
    boolean blocks = false;
    ScheduledExecutorService watchdog = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "cotenant-probe-watchdog");
      t.setDaemon(true);
      return t;
    });
    ServerSession session = null;
    try {
      session = sessions.open(server, "probe", ServerMessageHandler.noUser(DECLINED));
      ServerSession s = session;
      // A write that blocks (a server that stops reading stdin) is ended by killing the process.
      long budget = timeout.toMillis() * (1 + 2L * spec.rounds()) + 1_000;
      watchdog.schedule(() -> s.abort("the probe took longer than " + duration(budget)), budget, TimeUnit.MILLISECONDS);
      Map<String, Object> answer =
          s.handshake(era, Map.of("name", "cotenant-statelessness-probe", "version", "1"), NO_CAPABILITIES, timeout);
      Optional<String> metaKey = callerMetaKey(answer);
      blocks = metaKey.isPresent();
      for (int n = 1; n <= spec.rounds(); n++) {
        rounds.add(round(s, spec, metaKey, n, a, b));
      }
    } catch (SessionException e) {
      return notRun(server, identity, spec, blocks, rounds, e.getMessage());
    } finally {
      watchdog.shutdownNow();
      if (session != null) {
        session.close();
      }
    }
    Outcome outcome = rounds.stream().anyMatch(Round::leaked)
        ? Outcome.LEAKED
        : rounds.stream().allMatch(Round::passed) ? Outcome.PASSED : Outcome.NO_OWN_MARKER;
    return new ProbeReport(server.name(), identity, spec, blocks, rounds, outcome, Optional.empty());
  }

  private static ProbeReport notRun(
      ServerDescription server, String identity, ProbeSpec spec, boolean blocks, List<Round> rounds, String reason) {
    // A leak already seen stays an observation even when a later round could not run.
    Outcome outcome = rounds.stream().anyMatch(Round::leaked) ? Outcome.LEAKED : Outcome.NOT_RUN;
    return new ProbeReport(server.name(), identity, spec, blocks, rounds, outcome, Optional.of(bounded(reason)));
  }

  /**
   * A reason cut at 300 characters. It is not escaped again: a session transport's failure is
   * already escaped where it quotes the server (the {@link SessionException} contract), and
   * escaping it twice would double every backslash the server wrote.
   */
  static String bounded(String reason) {
    if (reason.length() <= 300) {
      return reason;
    }
    int end = Character.isHighSurrogate(reason.charAt(299)) ? 299 : 300;
    return reason.substring(0, end) + "…";
  }

  /** The caller block's {@code _meta} key when the handshake answer declares the caller-identity extension. */
  Optional<String> callerMetaKey(Map<String, Object> handshakeAnswer) {
    Object caps = handshakeAnswer.get("capabilities");
    if (!(caps instanceof Map<?, ?>)) {
      return Optional.empty();
    }
    Object experimental = ((Map<?, ?>) caps).get("experimental");
    if (!(experimental instanceof Map<?, ?>)) {
      return Optional.empty();
    }
    for (Map.Entry<?, ?> e : ((Map<?, ?>) experimental).entrySet()) {
      if (callerIdentityKeys.contains(String.valueOf(e.getKey()))) {
        Object v = e.getValue();
        if (v instanceof Map<?, ?> && ((Map<?, ?>) v).get(META_KEY_FIELD) instanceof String
            && !((String) ((Map<?, ?>) v).get(META_KEY_FIELD)).isBlank()) {
          return Optional.of((String) ((Map<?, ?>) v).get(META_KEY_FIELD));
        }
        return Optional.of(DEFAULT_CALLER_META_KEY);
      }
    }
    return Optional.empty();
  }

  private Round round(ServerSession s, ProbeSpec spec, Optional<String> metaKey, int n, Caller a, Caller b)
      throws SessionException, InterruptedException {
    String suffix = HexFormat.of().formatHex(bytes(4));
    String markerA = a.prefix() + "-" + n + "-" + suffix;
    String markerB = b.prefix() + "-" + n + "-" + suffix;
    String wsA = a.workspace() + "-" + n;
    String wsB = b.workspace() + "-" + n;

    // Both writes go out before either answer is awaited.
    List<RpcMessage.Response> answersA = new ArrayList<>();
    List<RpcMessage.Response> answersB = new ArrayList<>();
    List<String> callsA = new ArrayList<>();
    List<String> callsB = new ArrayList<>();
    batch(s, spec.tool(), spec.arguments(), metaKey, a, markerA, wsA, b, markerB, wsB, answersA, answersB);
    callsA.add(spec.tool());
    callsB.add(spec.tool());
    if (spec.readBack().isPresent()) {
      ProbeSpec.ReadBack rb = spec.readBack().get();
      batch(s, rb.tool(), rb.arguments(), metaKey, a, markerA, wsA, b, markerB, wsB, answersA, answersB);
      callsA.add(rb.tool() + " (read-back)");
      callsB.add(rb.tool() + " (read-back)");
    }

    Assertion aNeverSeesB = never(s, Assertion.A_NEVER_SEES_B, "B", markerB, "A", answersA, callsA);
    Assertion bNeverSeesA = never(s, Assertion.B_NEVER_SEES_A, "A", markerA, "B", answersB, callsB);
    List<String> missing = new ArrayList<>();
    own(s, "A", markerA, answersA.get(answersA.size() - 1), callsA.get(callsA.size() - 1)).ifPresent(missing::add);
    own(s, "B", markerB, answersB.get(answersB.size() - 1), callsB.get(callsB.size() - 1)).ifPresent(missing::add);
    Assertion eachGetsOwn = new Assertion(Assertion.EACH_GETS_OWN, missing.isEmpty(), String.join("; ", missing));
    return new Round(n, markerA, markerB, wsA, wsB, aNeverSeesB, bNeverSeesA, eachGetsOwn);
  }

  private void batch(
      ServerSession s, String tool, ArgumentTemplate args, Optional<String> metaKey,
      Caller a, String markerA, String wsA, Caller b, String markerB, String wsB,
      List<RpcMessage.Response> answersA, List<RpcMessage.Response> answersB)
      throws SessionException, InterruptedException {
    CompletableFuture<Map<String, Object>> fa = s.request("tools/call", params(s, tool, args, metaKey, a, markerA, wsA));
    CompletableFuture<Map<String, Object>> fb = s.request("tools/call", params(s, tool, args, metaKey, b, markerB, wsB));
    long deadline = System.nanoTime() + timeout.toNanos();
    answersA.add(await(fa, deadline, "caller A's " + tool));
    answersB.add(await(fb, deadline, "caller B's " + tool));
  }

  private static Map<String, Object> params(
      ServerSession s, String tool, ArgumentTemplate args, Optional<String> metaKey, Caller c, String marker, String ws) {
    Map<String, Object> params = new LinkedHashMap<>();
    params.put("name", tool);
    params.put("arguments", args.render(marker, ws));
    Map<String, Object> meta = new LinkedHashMap<>(
        s.eraMeta(Map.of("name", "cotenant-probe-" + c.label().toLowerCase(java.util.Locale.ROOT), "version", "1"), NO_CAPABILITIES));
    metaKey.ifPresent(k -> meta.put(k, c.block()));
    if (!meta.isEmpty()) {
      params.put("_meta", meta);
    }
    return params;
  }

  private static Assertion never(
      ServerSession s, String name, String other, String otherMarker, String self,
      List<RpcMessage.Response> answers, List<String> calls) {
    List<String> where = new ArrayList<>();
    for (int i = 0; i < answers.size(); i++) {
      if (toJson(answers.get(i).json()).contains(otherMarker)) {
        where.add(calls.get(i));
      }
    }
    if (where.isEmpty()) {
      return new Assertion(name, true, "");
    }
    return new Assertion(name, false,
        other + "'s marker " + otherMarker + " appeared in " + self + "'s answer to " + String.join(" and ", where));
  }

  /** Why {@code caller} did not get its marker back from {@code answer}; empty when it did. */
  private static Optional<String> own(ServerSession s, String caller, String marker, RpcMessage.Response answer, String call) {
    if (answer.isError()) {
      return Optional.of(caller + "'s " + call + " answered a JSON-RPC error, not " + marker + ": "
          + LogSafe.escape(toJson(answer.json().get("error")), 160));
    }
    @Nullable Object result = answer.result();
    if (!(result instanceof Map<?, ?>)) {
      return Optional.of(caller + "'s " + call + " answered without a result object");
    }
    String text = toJson(result);
    if (Boolean.TRUE.equals(((Map<?, ?>) result).get("isError"))) {
      return Optional.of(caller + "'s " + call + " answered isError: " + LogSafe.escape(text, 160));
    }
    if (!text.contains(marker)) {
      return Optional.of(caller + "'s answer to " + call + " did not carry its marker " + marker
          + " (it answered " + LogSafe.escape(text, 160) + ")");
    }
    return Optional.empty();
  }

  /**
   * Waits for {@code answer} until {@code deadlineNanos}; the session's failure, or
   * {@code "no answer to <what> in 60 s"} (the time limit), as a {@link SessionException}.
   */
  private RpcMessage.Response await(CompletableFuture<Map<String, Object>> answer, long deadlineNanos, String what)
      throws SessionException, InterruptedException {
    return ProbeAnswers.await(answer, deadlineNanos, what, timeout, "the answer failed");
  }

  /** {@code "60 s"} for a whole number of seconds, otherwise {@code "1500 ms"}. */
  static String duration(long millis) {
    return millis % 1000 == 0 && millis != 0 ? millis / 1000 + " s" : millis + " ms";
  }

  /** JSON text of a plain JSON value ({@link dev.cotenant.api.Json#NULL} for null). */
  static String toJson(@Nullable Object value) {
    return MAPPER.writeValueAsString(dev.cotenant.api.Json.thaw(value));
  }

  private static byte[] bytes(int n) {
    byte[] b = new byte[n];
    RANDOM.nextBytes(b);
    return b;
  }

  /** One logical caller. */
  private record Caller(String label, String prefix, String workspace, String tenant) {
    Map<String, Object> block() {
      return Map.of("session", workspace, "tenant", tenant);
    }
  }
}
