package dev.cotenant.gateway.sharing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.api.HazardCode;
import dev.cotenant.api.ServerDescription;
import dev.cotenant.api.Strength;
import dev.cotenant.gateway.Cotenant;
import dev.cotenant.gateway.config.ConfiguredServer;
import dev.cotenant.gateway.mux.ClientSink;
import dev.cotenant.gateway.mux.Multiplexer;
import dev.cotenant.gateway.pool.EntrySnapshot;
import dev.cotenant.gateway.pool.Placement;
import dev.cotenant.providers.records.FileHazardLedger;
import dev.cotenant.spi.rpc.ErrorCode;
import dev.cotenant.testkit.process.ChecksProcessLeaks;
import dev.cotenant.testkit.server.FakeServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Sharing end to end over real backend processes (the testkit's scripted server): placement from
 * the verdict, a hazard observed on a shared backend reaching the ledger and changing where the
 * next session goes, a backend killed mid-call, and admission under {@code maxConcurrent}. Every
 * session attaches at its connect here (deferred starts: {@code DeferredStartTest}).
 */
@ChecksProcessLeaks(waitMillis = 30_000)
class SharingTest {

  @TempDir Path records;

  private Sharing sharing;

  @AfterEach
  void closeEverything() {
    if (sharing != null) {
      sharing.close();
    }
  }

  /**
   * A client declaring no capability a server asks its client about: a server's verdict alone
   * shares it (one declaring roots needs a probe that passed as such clients, tested below).
   */
  private static Map<String, Object> init() {
    return Map.of("protocolVersion", "2025-11-25", "capabilities", Map.of(),
        "clientInfo", Map.of("name", "sharing-test", "version", "1"));
  }

  private static Map<String, Object> call(int id, String marker, long delayMillis) {
    Map<String, Object> args = new LinkedHashMap<>();
    args.put("marker", marker);
    if (delayMillis > 0) {
      args.put("delayMillis", delayMillis);
    }
    return Map.of("jsonrpc", "2.0", "id", id, "method", "tools/call", "params", Map.of("name", "echo", "arguments", args));
  }

  /**
   * A runtime over this test's records with {@code keyValues}. Sessions are not deferred here
   * ({@value SharingSettings#DEFER} off, unless a test sets it): these tests are about sessions
   * attached to backends; deferred starts are tested by {@code DeferredStartTest}.
   */
  private Cotenant cotenant(String... keyValues) {
    Map<String, String> config = new LinkedHashMap<>();
    config.put(SharingSettings.DEFER, "false");
    for (int i = 0; i < keyValues.length; i += 2) {
      config.put(keyValues[i], keyValues[i + 1]);
    }
    return Cotenant.builder().config(config).recordsDirectory(records).build();
  }

  /**
   * A runtime with sharing on (and {@code keyValues} besides) whose evaluator has measured
   * {@code server}; {@link #sharing} is its sharing.
   */
  private Cotenant measuredWithSharingOn(ServerDescription server, String... keyValues) throws Exception {
    List<String> config = new ArrayList<>(List.of(SharingSettings.ENABLED, "true"));
    config.addAll(List.of(keyValues));
    Cotenant cotenant = cotenant(config.toArray(String[]::new));
    cotenant.evaluator(1).uncappedPass(List.of(server));
    sharing = cotenant.sharing();
    return cotenant;
  }

  /** Two clients, A and B, each connected to {@code server} and initialized. */
  private record Pair(RecordingClient a, RecordingClient b, ClientSession ca, ClientSession cb) {}

  private Pair twoSessions(ServerDescription server) throws Exception {
    return twoSessions(server, "session-a", "session-b");
  }

  private Pair twoSessions(ServerDescription server, String sessionA, String sessionB) throws Exception {
    RecordingClient a = new RecordingClient();
    RecordingClient b = new RecordingClient();
    ClientSession ca = sharing.connect(server, sessionA, init(), a);
    ClientSession cb = sharing.connect(server, sessionB, init(), b);
    initialized(ca, a);
    initialized(cb, b);
    return new Pair(a, b, ca, cb);
  }

  private static Map<String, Object> initialized(ClientSession c, RecordingClient client) throws InterruptedException {
    c.fromClient(Map.of("jsonrpc", "2.0", "id", 0, "method", "initialize", "params", init()));
    Map<String, Object> answer = client.answer(0);
    c.fromClient(Map.of("jsonrpc", "2.0", "method", "notifications/initialized"));
    return answer;
  }

  /**
   * A client declaring roots is shared on a verdict only when the whole-surface probe on record,
   * under the server's current identity, also passed as clients declaring roots: before it, the
   * client gets a backend of its own with the reason, while a client declaring nothing shares.
   */
  @Test
  void aClientDeclaringRootsSharesOnlyOnAProbeThatPassedAsSuchClients() throws Exception {
    ServerDescription server = FakeServer.builder().name("caps").era(FakeServer.Era.LEGACY).tool("echo")
        .experimental("cotenant.caller-identity", Map.of("version", 1)).build().description();
    Cotenant cotenant = cotenant(SharingSettings.ENABLED, "true");
    cotenant.evaluator(1).uncappedPass(List.of(server));
    sharing = cotenant.sharing();
    Map<String, Object> roots = init("2025-11-25", Map.of("roots", Map.of("listChanged", true)));

    ClientSession bare = sharing.connect(server, "bare", init(), new RecordingClient());
    assertEquals(Placement.SHARED, bare.placement().placement(), bare.placement().why());
    ClientSession before = sharing.connect(server, "roots-before", roots, new RecordingClient());
    assertEquals(Placement.DEDICATED, before.placement().placement());
    assertEquals("the client declares roots, and no whole-surface probe on record covers clients declaring it"
        + " (`cotenant probe-stateless caps` runs a pass as such clients)", before.placement().why());

    String identity = cotenant.identityOf(server).ledgerKey();
    record(cotenant, "caps", dev.cotenant.api.ProbePass.Surface.of(List.of("echo"), Map.of()), identity);
    ClientSession bareProbe = sharing.connect(server, "roots-bare-probe", roots, new RecordingClient());
    assertEquals(Placement.DEDICATED, bareProbe.placement().placement());
    assertTrue(bareProbe.placement().why().contains("its whole-surface probe covers clients declaring none of roots, "
        + "sampling, elicitation"), bareProbe.placement().why());

    List<String> all = List.of("elicitation", "roots", "sampling");
    record(cotenant, "caps", dev.cotenant.api.ProbePass.Surface.of(List.of("echo"), Map.of(), all), "another-identity");
    assertEquals(Placement.DEDICATED, sharing.connect(server, "roots-stale", roots, new RecordingClient()).placement().placement(),
        "a pass under another launch identity covers nothing");

    record(cotenant, "caps", dev.cotenant.api.ProbePass.Surface.of(List.of("echo"), Map.of(), all), identity);
    ClientSession after = sharing.connect(server, "roots-after", roots, new RecordingClient());
    assertEquals(Placement.SHARED, after.placement().placement(), after.placement().why());
    assertTrue(after.placement().why().contains("and its whole-surface probe also passed as clients declaring roots;"),
        after.placement().why());
    ClientSession second = sharing.connect(server, "roots-after-2", roots, new RecordingClient());
    assertEquals(after.backendPid(), second.backendPid(), "clients declaring roots share one backend");
    assertNotEquals(bare.backendPid(), after.backendPid(), "another capability shape, another backend");
    for (ClientSession c : List.of(bare, before, bareProbe, after, second)) {
      c.close();
    }
  }

  /** Writes a sidecar record of {@code name} whose whole-surface pass covered {@code surface} under {@code identity}. */
  private static void record(Cotenant cotenant, String name, dev.cotenant.api.ProbePass.Surface surface, String identity)
      throws java.io.IOException {
    dev.cotenant.api.ProbePass pass = dev.cotenant.api.ProbePass.wholeSurface(identity, 3, 1.0, surface);
    cotenant.recordStores().concurrencyRecords().update(name, current -> java.util.Optional.of(
        new dev.cotenant.api.ConcurrencyRecord(name, dev.cotenant.api.ConcurrencyModel.SIDECAR,
            dev.cotenant.api.ShareScope.TENANT, java.util.OptionalInt.empty(), java.util.Optional.of(pass))));
  }

  @Test
  void aServerRequestWithTwoSessionsAttachedIsAHazardTheNextSessionGetsABackendOfItsOwn() throws Exception {
    // Declares the caller-identity extension, so once measured it reads declared and recommends sharing.
    ServerDescription server = FakeServer.builder().name("asks").era(FakeServer.Era.LEGACY).tool("echo")
        .experimental("cotenant.caller-identity", Map.of("version", 1))
        .sendsServerRequestOnCall("roots/list").build().description();
    Cotenant cotenant = cotenant(SharingSettings.ENABLED, "true");
    cotenant.evaluator(1).uncappedPass(List.of(server));
    assertTrue(cotenant.rows(List.of(new ConfiguredServer(server, records))).get(0).verdict().recommendShare());
    sharing = cotenant.sharing();

    RecordingClient a = new RecordingClient();
    RecordingClient b = new RecordingClient();
    ClientSession ca = sharing.connect(server, "session-a", init(), a);
    ClientSession cb = sharing.connect(server, "session-b", init(), b);
    assertEquals(Placement.SHARED, ca.placement().placement(), ca.placement().why());
    assertEquals(ca.backendPid(), cb.backendPid(), "both sessions on one backend process");
    initialized(ca, a);
    initialized(cb, b);

    // A's call makes the server ask. Only A has a call in flight, but two sessions are attached
    // and nothing in the request names one: it goes to nobody, and the server is told so.
    ca.fromClient(call(1, "a-1", 0));
    Map<String, Object> aAnswer = a.answer(1);
    assertTrue(String.valueOf(aAnswer).contains("cannot route roots/list: 2 sessions share this backend"),
        "A's call could not have its server request answered: " + aAnswer);
    assertTrue(Stream.concat(a.got.stream(), b.got.stream()).noneMatch(m -> "roots/list".equals(m.get("method"))),
        "the request reached no client: " + a.got + " " + b.got);

    String identity = cotenant.identityOf(server).ledgerKey();
    assertTrue(cotenant.recordStores().hazardLedger().codesFor("asks", identity).contains(HazardCode.UNROUTABLE_SERVER_REQUEST));
    assertEquals(Strength.REFUTED, cotenant.rows(List.of(new ConfiguredServer(server, records))).get(0).strength());
    // The accounting counts what the shared backend was sent for clients and what it was seen doing
    // (mutants: MuxBackend.calls and hazards returning 0).
    EntrySnapshot before = sharedEntry();
    assertEquals(2, before.sessions(), before.toString());
    assertEquals(1, before.hazards(), before.toString());
    assertTrue(before.calls() >= 1, "A's call at least: " + before);

    // The next session goes to a backend of its own.
    RecordingClient c = new RecordingClient();
    ClientSession cc = sharing.connect(server, "session-c", init(), c);
    assertEquals(Placement.DEDICATED, cc.placement().placement(), cc.placement().why());
    assertNotEquals(ca.backendPid(), cc.backendPid());

    // The attached sessions move to backends of their own at their next message.
    long shared = ca.backendPid().orElseThrow();
    ca.fromClient(Map.of("jsonrpc", "2.0", "id", 7, "method", "ping"));
    a.answer(7);
    assertEquals(Placement.DEDICATED, ca.placement().placement());
    assertNotEquals(shared, ca.backendPid().orElseThrow());
    // A moved session has left the shared backend (mutant: current without its leave, which kept A attached there).
    assertEquals(1, sharedEntry().sessions(), sharing.accounting().toString());
    for (ClientSession conn : List.of(ca, cb, cc)) {
      conn.close();
    }
    // Flushed off the caller's thread, and close waits for the flush: a ledger opened afresh sees it.
    sharing.close();
    assertTrue(FileHazardLedger.open(records).codesFor("asks", identity).contains(HazardCode.UNROUTABLE_SERVER_REQUEST));
  }

  /**
   * A hazard recorded outside the multiplexer (an API, another terminal, a replica's ledger):
   * sessions already sharing keep their backend until the host says the records changed; then
   * each moves to a backend of its own at its next call. Fails without
   * {@link Sharing#recordsChanged}: both sessions kept the shared pid on every later call.
   */
  @Test
  void aHazardRecordedElsewhereMovesTheAttachedSessionsOnceTheRecordsChanged() throws Exception {
    ServerDescription server = FakeServer.builder().name("declared").era(FakeServer.Era.LEGACY).tool("echo")
        .experimental("cotenant.caller-identity", Map.of("version", 1)).build().description();
    Cotenant cotenant = measuredWithSharingOn(server);
    Pair p = twoSessions(server);
    long shared = p.ca().backendPid().orElseThrow();
    assertEquals(shared, p.cb().backendPid().orElseThrow());

    cotenant.recordStores().hazardLedger().record("declared", cotenant.identityOf(server).ledgerKey(),
        HazardCode.CROSS_SESSION_LEAK, 2);
    p.ca().fromClient(call(1, "a-1", 0));
    p.a().answer(1);
    assertEquals(shared, p.ca().backendPid().orElseThrow(), "nothing said the records changed: the session stays");

    sharing.recordsChanged();
    p.ca().fromClient(call(2, "a-2", 0));
    assertTrue(String.valueOf(p.a().answer(2)).contains("a-2"));
    p.cb().fromClient(call(2, "b-2", 0));
    assertTrue(String.valueOf(p.b().answer(2)).contains("b-2"));
    for (ClientSession c : List.of(p.ca(), p.cb())) {
      assertEquals(Placement.DEDICATED, c.placement().placement(), c.placement().why());
      assertTrue(c.placement().why().startsWith("the records changed: its verdict (refuted)"), c.placement().why());
      assertNotEquals(shared, c.backendPid().orElseThrow());
    }
    assertNotEquals(p.ca().backendPid().orElseThrow(), p.cb().backendPid().orElseThrow(), "each on a backend of its own");
    p.ca().close();
    p.cb().close();
  }

  /**
   * A hazard moves a session, and its backend of its own cannot be started (here the spawn
   * budget, 1, is the shared backend's). Every later message of the session is answered "no
   * backend" with the reason; the session's next message threw a NullPointerException before,
   * which ended the shim.
   */
  @Test
  void aSessionWhoseMoveFailedIsAnsweredNoBackendAtEachMessageNeverANullPointer() throws Exception {
    ServerDescription server = FakeServer.builder().name("asks-tight").era(FakeServer.Era.LEGACY).tool("echo")
        .experimental("cotenant.caller-identity", Map.of("version", 1))
        .sendsServerRequestOnCall("roots/list").build().description();
    measuredWithSharingOn(server, dev.cotenant.gateway.pool.PoolSettings.SPAWN_BUDGET, "1");
    Pair p = twoSessions(server);
    p.ca().fromClient(call(1, "a-1", 0));
    assertTrue(String.valueOf(p.a().answer(1)).contains("cannot route roots/list"), "the hazard");

    for (int id = 7; id <= 8; id++) {
      p.ca().fromClient(Map.of("jsonrpc", "2.0", "id", id, "method", "ping"));
      Map<String, Object> answer = p.a().answer(id);
      Map<?, ?> error = (Map<?, ?>) answer.get("error");
      assertTrue(error != null, "no backend could be had: " + answer);
      assertEquals(ErrorCode.NO_BACKEND.code(), ((Number) error.get("code")).intValue(), answer.toString());
      assertTrue(String.valueOf(error.get("message")).contains(dev.cotenant.gateway.pool.PoolSettings.SPAWN_BUDGET),
          answer.toString());
    }
    p.ca().close();
    p.cb().close();
  }

  @Test
  void aClientOfAnEarlierVersionOnADedicatedBackendOfADualEraServerIsServed() throws Exception {
    // The backend speaks 2026-07-28 (server/discover); the client initializes with 2025-11-25. Its
    // requests must get the per-request _meta synthesised from its own initialize.
    ServerDescription server = FakeServer.builder().name("both").era(FakeServer.Era.BOTH).tool("echo").build().description();
    sharing = cotenant().sharing();
    RecordingClient a = new RecordingClient();
    ClientSession ca = sharing.connect(server, "session-a", init(), a);
    assertEquals(Placement.DEDICATED, ca.placement().placement());
    Map<String, Object> initialized = initialized(ca, a);
    assertEquals("2025-11-25", ((Map<?, ?>) initialized.get("result")).get("protocolVersion"), initialized.toString());
    ca.fromClient(call(1, "a-1", 0));
    Map<String, Object> answer = a.answer(1);
    assertFalse(answer.containsKey("error"), answer.toString());
    assertTrue(answer.toString().contains("a-1"), answer.toString());
    ca.close();
  }

  private static Map<String, Object> init(String version, Map<String, Object> capabilities) {
    return Map.of("protocolVersion", version, "capabilities", capabilities,
        "clientInfo", Map.of("name", "sharing-test", "version", "1"));
  }

  /**
   * Sessions share a backend only with sessions that negotiate as they do: the same protocol
   * version asked for, the same capabilities declared. Each is answered the version it asked for,
   * as the server started for it alone answers; before, every shared backend was started asking
   * 2025-11-25, so an older client was moved to a backend of its own and answered 2025-11-25.
   */
  @Test
  void sessionsShareOnlyWithSessionsOfTheirVersionAndCapabilitiesAndEachIsAnsweredItsVersion() throws Exception {
    ServerDescription server = FakeServer.builder().name("plain").era(FakeServer.Era.LEGACY).tool("echo").build().description();
    sharing = cotenant(SharingSettings.FORCED, "plain").sharing();
    List<ClientSession> all = new ArrayList<>();
    Map<String, Long> pids = new LinkedHashMap<>();
    String[][] clients = {{"old-1", "2025-06-18", ""}, {"old-2", "2025-06-18", ""}, {"new-1", "2025-11-25", ""},
        {"new-2", "2025-11-25", ""}, {"sampling", "2025-11-25", "sampling"}};
    for (String[] c : clients) {
      Map<String, Object> caps = c[2].isEmpty() ? Map.of() : Map.of(c[2], Map.of());
      RecordingClient client = new RecordingClient();
      ClientSession conn = sharing.connect(server, c[0], init(c[1], caps), client);
      all.add(conn);
      assertEquals(Placement.SHARED, conn.placement().placement(), c[0]);
      conn.fromClient(Map.of("jsonrpc", "2.0", "id", 0, "method", "initialize", "params", init(c[1], caps)));
      Map<String, Object> answer = client.answer(0);
      assertEquals(c[1], ((Map<?, ?>) answer.get("result")).get("protocolVersion"), c[0] + ": " + answer);
      pids.put(c[0], conn.backendPid().orElseThrow());
    }
    assertEquals(pids.get("old-1"), pids.get("old-2"));
    assertEquals(pids.get("new-1"), pids.get("new-2"));
    assertNotEquals(pids.get("old-1"), pids.get("new-1"));
    assertNotEquals(pids.get("new-1"), pids.get("sampling"), "another capability shape, another backend");
    assertEquals(3, sharing.accounting().size(), sharing.accounting().toString());
    all.forEach(ClientSession::close);
  }

  @Test
  void withoutTheSwitchOrARecommendationEverySessionGetsItsOwnBackendUnlessForced() throws Exception {
    ServerDescription server = FakeServer.builder().name("plain").era(FakeServer.Era.LEGACY).tool("echo").build().description();
    sharing = cotenant().sharing();
    ClientSession one = sharing.connect(server, "s1", init(), new RecordingClient());
    ClientSession two = sharing.connect(server, "s2", init(), new RecordingClient());
    assertEquals(Placement.DEDICATED, one.placement().placement());
    assertTrue(one.placement().why().contains("does not recommend sharing"), one.placement().why());
    assertNotEquals(one.backendPid(), two.backendPid());
    assertEquals(2, sharing.accounting().size());
    one.close();
    two.close();
    sharing.close();

    sharing = cotenant(SharingSettings.FORCED, "plain").sharing();
    ClientSession f1 = sharing.connect(server, "s1", init(), new RecordingClient());
    ClientSession f2 = sharing.connect(server, "s2", init(), new RecordingClient());
    assertEquals(Placement.SHARED, f1.placement().placement());
    assertTrue(f1.placement().forced());
    assertEquals(f1.backendPid(), f2.backendPid());
    List<EntrySnapshot> entries = sharing.accounting();
    assertEquals(1, entries.size(), entries.toString());
    assertTrue(entries.get(0).forced(), entries.toString());
    assertEquals(2, entries.get(0).sessions(), entries.toString());
    // Closing a connection releases its place on the backend (mutants: close without its leave, leave
    // without its release).
    f1.close();
    assertEquals(1, sharing.accounting().get(0).sessions(), sharing.accounting().toString());
    f2.close();
    assertEquals(0, sharing.accounting().get(0).sessions(), sharing.accounting().toString());
  }

  /** The one entry of the pool whose backend is shared. */
  private EntrySnapshot sharedEntry() {
    List<EntrySnapshot> shared = sharing.accounting().stream().filter(e -> e.placement() == Placement.SHARED).toList();
    assertEquals(1, shared.size(), sharing.accounting().toString());
    return shared.get(0);
  }

  @Test
  void aBackendKilledMidCallInterruptsTheCallAndTheNextCallRunsOnANewGeneration() throws Exception {
    ServerDescription server = FakeServer.builder().name("dies").era(FakeServer.Era.LEGACY).tool("echo").build().description();
    sharing = cotenant(SharingSettings.FORCED, "dies").sharing();
    RecordingClient a = new RecordingClient();
    ClientSession ca = sharing.connect(server, "s1", init(), a);
    initialized(ca, a);
    long first = ca.backendPid().orElseThrow();
    ca.fromClient(call(1, "slow", 60_000));
    ProcessHandle.of(first).orElseThrow().destroyForcibly();
    Map<String, Object> interrupted = a.answer(1);
    Map<?, ?> error = (Map<?, ?>) interrupted.get("error");
    assertEquals(ErrorCode.CALL_INTERRUPTED.code(), ((Number) error.get("code")).intValue(), interrupted.toString());
    assertTrue(String.valueOf(error.get("message")).startsWith(Multiplexer.CALL_INTERRUPTED_PREFIX), interrupted.toString());

    ca.fromClient(call(2, "after", 0));
    Map<String, Object> after = a.answer(2);
    assertTrue(String.valueOf(after).contains("after"), after.toString());
    assertNotEquals(first, ca.backendPid().orElseThrow(), "a new backend process");
    assertTrue(sharing.accounting().get(0).generation() >= 2, sharing.accounting().toString());
    ca.close();
  }

  @Test
  void aCallBeyondMaxConcurrentIsAnsweredBusyAndTheSlotReturnsWithTheAnswer() throws Exception {
    ServerDescription server = FakeServer.builder().name("narrow").era(FakeServer.Era.LEGACY).tool("echo").build().description();
    Cotenant cotenant = cotenant(SharingSettings.FORCED, "narrow", SharingSettings.ADMIT_TIMEOUT_MS, "300");
    cotenant.recordStores().concurrencyRecords().update("narrow", current -> java.util.Optional.of(
        new dev.cotenant.api.ConcurrencyRecord("narrow", dev.cotenant.api.ConcurrencyModel.SIDECAR,
            dev.cotenant.api.ShareScope.TENANT, java.util.OptionalInt.of(1), java.util.Optional.empty())));
    sharing = cotenant.sharing();
    Pair p = twoSessions(server, "s1", "s2");
    p.ca().fromClient(call(1, "holds-the-slot", 60_000));
    p.cb().fromClient(call(1, "waits", 0));
    Map<?, ?> busy = (Map<?, ?>) p.b().answer(1).get("error");
    assertEquals(ErrorCode.BUSY.code(), ((Number) busy.get("code")).intValue());
    assertTrue(String.valueOf(busy.get("message")).startsWith("busy: narrow already serves its maxConcurrent of 1"), busy.toString());
    // Cancelling the call that holds the slot frees it.
    p.ca().fromClient(Map.of("jsonrpc", "2.0", "method", "notifications/cancelled", "params", Map.of("requestId", 1)));
    p.cb().fromClient(call(2, "now", 0));
    assertTrue(String.valueOf(p.b().answer(2)).contains("now"));
    // The answer to "now" freed the slot it held (kills ClientSession.toClient with the permit's
    // release removed or its null check negated).
    p.ca().fromClient(call(3, "after-an-answer", 0));
    assertTrue(String.valueOf(p.a().answer(3)).contains("after-an-answer"));
    // A session that leaves frees the slot of its call in flight (kills ClientSession.close without
    // the release of its permits).
    p.cb().fromClient(call(4, "left-running", 60_000));
    p.cb().close();
    p.ca().fromClient(call(5, "after-a-close", 0));
    assertTrue(String.valueOf(p.a().answer(5)).contains("after-a-close"));
    // The busy call never reached the backend (kills ClientSession.admit returning true after the
    // busy answer: the refused call still ran).
    assertFalse(String.valueOf(p.b().skipped).contains("waits") || p.b().got.toString().contains("waits"),
        "the busy call reached the backend: " + p.b().skipped + p.b().got);
    p.ca().close();
  }

  /** A limiter that cannot be asked, as a fleet's limiter is while its store is unreachable. */
  private static final class RefusingLimiterProvider implements dev.cotenant.spi.ConcurrencyLimiterProvider {
    final java.util.concurrent.atomic.AtomicInteger asked = new java.util.concurrent.atomic.AtomicInteger();

    @Override
    public String name() {
      return "refusing";
    }

    @Override
    public dev.cotenant.spi.ConcurrencyLimiter create(dev.cotenant.spi.ProviderContext context) {
      return (serverName, maxConcurrent, timeout, unit) -> {
        asked.incrementAndGet();
        throw new IllegalStateException("the test limiter cannot be reached: refusing the call rather than admitting "
            + "it without a limit");
      };
    }
  }

  @Test
  void aCallTheLimiterCannotAdmitIsRefusedWithItsMessageAndNeverForwarded() throws Exception {
    ServerDescription server = FakeServer.builder().name("guarded").era(FakeServer.Era.LEGACY).tool("echo").build().description();
    RefusingLimiterProvider limiter = new RefusingLimiterProvider();
    Cotenant cotenant = Cotenant.builder()
        .config(Map.of(SharingSettings.FORCED, "guarded", "cotenant.limiter.provider", "refusing"))
        .recordsDirectory(records).limiter(limiter).build();
    cotenant.recordStores().concurrencyRecords().update("guarded", current -> java.util.Optional.of(
        new dev.cotenant.api.ConcurrencyRecord("guarded", dev.cotenant.api.ConcurrencyModel.SIDECAR,
            dev.cotenant.api.ShareScope.TENANT, java.util.OptionalInt.of(2), java.util.Optional.empty())));
    sharing = cotenant.sharing();
    RecordingClient a = new RecordingClient();
    ClientSession ca = sharing.connect(server, "s1", init(), a);
    initialized(ca, a);
    long written = sharing.accounting().get(0).calls();
    ca.fromClient(call(1, "never-forwarded", 0));
    Map<String, Object> answer = a.answer(1);
    assertFalse(answer.containsKey("result"), answer.toString());
    Map<?, ?> refused = (Map<?, ?>) answer.get("error");
    assertEquals(ErrorCode.REFUSED.code(), ((Number) refused.get("code")).intValue());
    assertEquals("refused: the test limiter cannot be reached: refusing the call rather than admitting it without a limit",
        refused.get("message"));
    assertEquals(1, limiter.asked.get());
    // The session lives on: a call that is not limited (tools/list) still reaches the backend.
    ca.fromClient(Map.of("jsonrpc", "2.0", "id", 2, "method", "tools/list"));
    assertTrue(String.valueOf(a.answer(2)).contains("echo"));
    assertFalse(String.valueOf(a.skipped).contains("never-forwarded"), "the refused call reached the backend: " + a.skipped);
    // Counted where it is written, so this holds however the backend's answers are ordered (mutant: admit returning
    // true after the refusal, which forwarded the call too).
    assertEquals(written + 1, sharing.accounting().get(0).calls(), "tools/list alone was written to the backend");
    ca.close();
  }

  /**
   * A backend whose session reached a bound of the session transport (here 20 lines that are not
   * JSON, one per call) while its process lives is ended for good: the call it took is interrupted,
   * the process is killed, and the next call runs on a restarted backend.
   */
  @Test
  void aBackendWhoseSessionReachedItsBoundIsRestartedNotLeftHalfAlive() throws Exception {
    ServerDescription server = FakeServer.builder().name("bounded").era(FakeServer.Era.LEGACY).tool("echo")
        .writesNonJsonOnCall().build().description();
    sharing = cotenant(SharingSettings.FORCED, "bounded", "cotenant.session.max-non-json-lines", "20").sharing();
    RecordingClient a = new RecordingClient();
    ClientSession ca = sharing.connect(server, "s1", init(), a);
    initialized(ca, a);
    long first = ca.backendPid().orElseThrow();
    int interruptedAt = -1;
    for (int n = 1; n <= 40 && interruptedAt < 0; n++) {
      ca.fromClient(call(n, "m-" + n, 0));
      Map<String, Object> answer = a.answer(n);
      if (answer.containsKey("error")) {
        assertTrue(String.valueOf(answer).contains(Multiplexer.CALL_INTERRUPTED_PREFIX), answer.toString());
        interruptedAt = n;
      }
    }
    assertTrue(interruptedAt > 0, "the bound of 20 non-JSON lines was never reached");
    ca.fromClient(call(100, "after-the-bound", 0));
    Map<String, Object> after = a.answer(100);
    assertTrue(String.valueOf(after).contains("after-the-bound"), after.toString());
    assertNotEquals(first, ca.backendPid().orElseThrow(), "a new backend process");
    assertFalse(ProcessHandle.of(first).map(ProcessHandle::isAlive).orElse(false), "the half-alive backend was killed");
    ca.close();
  }
}
