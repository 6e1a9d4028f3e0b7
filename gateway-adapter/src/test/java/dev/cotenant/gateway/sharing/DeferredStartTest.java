package dev.cotenant.gateway.sharing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.api.HazardCode;
import dev.cotenant.api.Json;
import dev.cotenant.api.ReasonCode;
import dev.cotenant.api.ServerDescription;
import dev.cotenant.api.Strength;
import dev.cotenant.api.Verdict;
import dev.cotenant.gateway.Cotenant;
import dev.cotenant.gateway.config.ConfiguredServer;
import dev.cotenant.gateway.mux.ClientSink;
import dev.cotenant.gateway.pool.EntrySnapshot;
import dev.cotenant.gateway.pool.Placement;
import dev.cotenant.spi.HandshakeEra;
import dev.cotenant.spi.Mcp;
import dev.cotenant.spi.PreflightRecord;
import dev.cotenant.spi.ServerMessageHandler;
import dev.cotenant.spi.ServerSession;
import dev.cotenant.spi.rpc.ErrorCode;
import dev.cotenant.testkit.process.ChecksProcessLeaks;
import dev.cotenant.testkit.server.FakeServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Deferred starts over real backend processes (the testkit's scripted server), measured by the
 * real pre-flight (in its sandbox where there is one): a session is answered its handshake and
 * listings from the start the pre-flight recorded, exactly as the server answers them, and its
 * backend starts at its first call; a server that talks before its first call, or answers its
 * callers differently, is never deferred; a live listing that differs from the record is observed
 * and the session told; a server that cannot start answers the first call with why.
 */
@ChecksProcessLeaks(waitMillis = 30_000)
class DeferredStartTest {
  private static final Duration WAIT = RecordingClient.WAIT;

  @TempDir Path records;

  private Sharing sharing;

  @AfterEach
  void closeEverything() {
    if (sharing != null) {
      sharing.close();
    }
  }

  private static Map<String, Object> init(String version, Map<String, Object> capabilities) {
    return Map.of("protocolVersion", version, "capabilities", capabilities,
        "clientInfo", Map.of("name", "deferred-start-test", "version", "1"));
  }

  private static Map<String, Object> request(int id, String method, Map<String, Object> params) {
    return Map.of("jsonrpc", "2.0", "id", id, "method", method, "params", params);
  }

  private static Map<String, Object> call(int id, String marker) {
    return request(id, "tools/call", Map.of("name", "echo", "arguments", Map.of("marker", marker)));
  }

  private Cotenant measured(ServerDescription server, String... keyValues) throws Exception {
    Map<String, String> config = new LinkedHashMap<>();
    config.put(SharingSettings.ENABLED, "true");
    for (int i = 0; i < keyValues.length; i += 2) {
      config.put(keyValues[i], keyValues[i + 1]);
    }
    Cotenant cotenant = Cotenant.builder().config(config).recordsDirectory(records).build();
    cotenant.evaluator(1).uncappedPass(List.of(server));
    sharing = cotenant.sharing();
    return cotenant;
  }

  private PreflightRecord row(Cotenant cotenant, ServerDescription server) {
    return cotenant.recordStores().preflightCache().snapshot()
        .measurement(server.name(), cotenant.identityOf(server).cacheKey()).orElseThrow();
  }

  /** What the server answers a client of its own: its initialize result and its tools/list, asked directly. */
  private static Map<String, Object> direct(Cotenant cotenant, ServerDescription server, Map<String, Object> init)
      throws Exception {
    try (ServerSession s = cotenant.sessionTransport().open(server, "direct", ServerMessageHandler.noUser("test"))) {
      @SuppressWarnings("unchecked")
      Map<String, Object> answer = s.handshake(HandshakeEra.INITIALIZE, (Map<String, Object>) init.get("clientInfo"),
          (Map<String, Object>) init.get("capabilities"), (String) init.get("protocolVersion"), WAIT);
      Map<String, Object> tools = s.request("tools/list", Map.of()).get(WAIT.toSeconds(), TimeUnit.SECONDS);
      return Map.of("initialize", answer, "tools/list", tools.get("result"));
    }
  }

  /** The initialize and tools/list answers a session of sharing got. */
  private static Map<String, Object> started(ClientSession c, RecordingClient client, Map<String, Object> init)
      throws InterruptedException {
    c.fromClient(request(0, "initialize", init));
    Map<String, Object> initialize = client.answer(0);
    c.fromClient(Map.of("jsonrpc", "2.0", "method", "notifications/initialized"));
    c.fromClient(request(1, "tools/list", Map.of()));
    Map<String, Object> tools = client.answer(1);
    return Map.of("initialize", initialize.get("result"), "tools/list", tools.get("result"));
  }

  /**
   * A measured server's session is answered its handshake and tools/list from the records, exactly
   * as the server answers a client of its own, for either protocol version the pre-flight asked;
   * no process runs until its first call, which starts its backend and is answered by it.
   */
  @Test
  void aSessionIsAnsweredItsStartFromTheRecordsAndItsBackendStartsAtItsFirstCall() throws Exception {
    ServerDescription server = FakeServer.builder().name("plain").era(FakeServer.Era.LEGACY).tool("echo")
        .logsAtLevels().build().description();
    Cotenant cotenant = measured(server);
    assertTrue(row(cotenant, server).start().isPresent(), row(cotenant, server).startNotRecorded());

    for (String version : List.of(Mcp.LEGACY_VERSION, Mcp.PRIOR_VERSION)) {
      Map<String, Object> init = init(version, Map.of("roots", Map.of("listChanged", true)));
      RecordingClient client = new RecordingClient();
      ClientSession c = sharing.connect(server, "s-" + version, init, client);
      assertTrue(c.deferred(), c.start().why());
      Map<String, Object> got = started(c, client, init);
      assertTrue(Json.same(direct(cotenant, server, init), got), "served " + got + " for " + version);
      assertEquals(version, ((Map<?, ?>) got.get("initialize")).get("protocolVersion"));
      c.fromClient(request(2, "logging/setLevel", Map.of("level", "error")));
      assertEquals(Map.of(), client.answer(2).get("result"));
      c.fromClient(request(3, "ping", Map.of()));
      client.answer(3);
      c.fromClient(Map.of("jsonrpc", "2.0", "method", "notifications/roots/list_changed"));
      assertEquals(List.of(), sharing.accounting(), "no backend before the first call");

      c.fromClient(call(4, "m-" + version));
      Map<String, Object> answer = client.answer(4);
      assertTrue(String.valueOf(answer).contains("m-" + version), answer.toString());
      assertFalse(c.deferred());
      assertTrue(c.backendPid().isPresent());
      assertEquals(1, sharing.accounting().size(), sharing.accounting().toString());
      // The level it asked for while deferred was set on its backend: only "error" and above
      // reached it, and the answer to the level it set was not sent twice.
      assertTrue(client.skipped.stream().noneMatch(m -> "notifications/message".equals(m.get("method"))
          && "debug".equals(((Map<?, ?>) m.get("params")).get("level"))), client.skipped.toString());
      assertTrue(java.util.stream.Stream.concat(client.skipped.stream(), client.got.stream())
          .noneMatch(m -> String.valueOf(m.get("id")).startsWith("cotenant-")),
          "no answer the client did not ask for: " + client.skipped + client.got);
      c.close();
    }
  }

  /** Two deferred sessions of a shared server start one backend, at the first call of the first. */
  @Test
  void deferredSessionsOfASharedServerStartOneBackend() throws Exception {
    ServerDescription server = FakeServer.builder().name("shared").era(FakeServer.Era.LEGACY).tool("echo")
        .experimental("cotenant.caller-identity", Map.of("version", 1)).build().description();
    measured(server);
    Map<String, Object> init = init(Mcp.LEGACY_VERSION, Map.of());
    RecordingClient a = new RecordingClient();
    RecordingClient b = new RecordingClient();
    ClientSession ca = sharing.connect(server, "a", init, a);
    ClientSession cb = sharing.connect(server, "b", init, b);
    assertEquals(Placement.SHARED, ca.placement().placement(), ca.placement().why());
    started(ca, a, init);
    started(cb, b, init);
    assertEquals(List.of(), sharing.accounting());
    ca.fromClient(call(5, "a"));
    a.answer(5);
    cb.fromClient(call(5, "b"));
    b.answer(5);
    List<EntrySnapshot> entries = sharing.accounting();
    assertEquals(1, entries.size(), entries.toString());
    assertEquals(2, entries.get(0).sessions());
    ca.close();
    cb.close();
  }

  /**
   * A server that asks its client for roots as soon as it is initialized talks before its first
   * call: its start is not recorded, and its sessions start their backend at their initialize.
   */
  @Test
  void aServerThatTalksBeforeItsFirstCallIsNeverDeferred() throws Exception {
    ServerDescription server = FakeServer.builder().name("talks").era(FakeServer.Era.LEGACY).tool("echo")
        .asksRootsWhenInitialized().build().description();
    Cotenant cotenant = measured(server);
    PreflightRecord r = row(cotenant, server);
    assertTrue(r.ran());
    assertTrue(r.start().isEmpty());
    assertEquals("it sent a request roots/list before its listings ended", r.startNotRecorded());
    RecordingClient client = new RecordingClient();
    ClientSession c = sharing.connect(server, "s", init(Mcp.LEGACY_VERSION, Map.of("roots", Map.of())), client);
    assertFalse(c.deferred());
    assertEquals("its pre-flight recorded no start: it sent a request roots/list before its listings ended",
        c.start().why());
    assertTrue(c.backendPid().isPresent(), "started at once");
    c.close();
  }

  /** A server whose listing depends on its caller is caller-sensitive: never deferred. */
  @Test
  void aServerWhoseStartIsNotReproducibleIsNeverDeferred() throws Exception {
    ServerDescription server = FakeServer.builder().name("sensitive").era(FakeServer.Era.LEGACY).tool("echo")
        .callerSensitiveTools().build().description();
    Cotenant cotenant = measured(server);
    assertEquals("its tools/list differs between callers", row(cotenant, server).startNotRecorded());
    ClientSession c = sharing.connect(server, "s", init(Mcp.LEGACY_VERSION, Map.of()), new RecordingClient());
    assertFalse(c.deferred());
    assertTrue(c.backendPid().isPresent());
    c.close();
  }

  /**
   * Clients outside what the recording covers start eagerly, with the reason: a protocol version
   * no caller asked, a capability no caller varied.
   */
  @Test
  void aClientTheRecordingDoesNotCoverStartsAtItsInitialize() throws Exception {
    ServerDescription server = FakeServer.builder().name("covers").era(FakeServer.Era.LEGACY).tool("echo").build()
        .description();
    measured(server);
    ClientSession old = sharing.connect(server, "old", init("2025-03-26", Map.of()), new RecordingClient());
    assertFalse(old.deferred());
    assertEquals("the client asks protocol version 2025-03-26; its recorded start covers 2025-06-18, 2025-11-25",
        old.start().why());
    ClientSession odd = sharing.connect(server, "odd", init(Mcp.LEGACY_VERSION,
        Map.of("experimental", Map.of("vendor.x", Map.of()))), new RecordingClient());
    assertFalse(odd.deferred());
    assertEquals("the client declares experimental/vendor.x, which its pre-flight's callers did not vary",
        odd.start().why());
    ClientSession apps = sharing.connect(server, "apps", init(Mcp.LEGACY_VERSION,
        Map.of("extensions", Map.of(Mcp.APPS_EXTENSION, Map.of("mimeTypes", List.of("text/html;profile=mcp-app"))))),
        new RecordingClient());
    assertTrue(apps.deferred(), apps.start().why());
    for (ClientSession c : List.of(old, odd, apps)) {
      c.close();
    }
  }

  /**
   * The server's tools are read from a file: after the pre-flight recorded them, the file gains a
   * tool. A deferred session was listed the recorded tools; when its backend starts, the live
   * listing differs: that is observed (in the ledger, a note beside the verdict, not a refutation),
   * the session is told its tools changed, and no later session of that identity is deferred.
   */
  @Test
  void aListingThatChangedAfterDeferralIsObservedAndTheSessionTold() throws Exception {
    Path dir = Files.createDirectories(Path.of("target", "deferred-start-test", UUID.randomUUID().toString()));
    Path tools = Files.writeString(dir.resolve("tools.txt"), "alpha\n");
    ServerDescription server = FakeServer.builder().name("from-file").era(FakeServer.Era.LEGACY).tool("echo")
        .toolsFromFile(tools.toAbsolutePath()).build().description();
    Cotenant cotenant = measured(server);
    assertTrue(row(cotenant, server).start().isPresent(), row(cotenant, server).startNotRecorded());
    Files.writeString(tools, "alpha\nbeta\n");

    Map<String, Object> init = init(Mcp.LEGACY_VERSION, Map.of());
    RecordingClient client = new RecordingClient();
    ClientSession c = sharing.connect(server, "s", init, client);
    assertTrue(c.deferred(), c.start().why());
    Map<String, Object> got = started(c, client, init);
    assertFalse(String.valueOf(got.get("tools/list")).contains("beta"), "the recorded listing: " + got);
    c.fromClient(call(9, "after"));
    client.answer(9);
    client.seen(m -> "notifications/tools/list_changed".equals(m.get("method")));
    String identity = cotenant.identityOf(server).ledgerKey();
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (!cotenant.recordStores().hazardLedger().codesFor("from-file", identity)
        .contains(HazardCode.DEFERRED_ANSWER_CHANGED) && System.nanoTime() < deadline) {
      TimeUnit.MILLISECONDS.sleep(20);
    }
    assertEquals(java.util.Set.of(HazardCode.DEFERRED_ANSWER_CHANGED),
        cotenant.recordStores().hazardLedger().codesFor("from-file", identity));
    c.fromClient(request(10, "tools/list", Map.of()));
    assertTrue(String.valueOf(client.answer(10)).contains("beta"), "the live listing now");

    ClientSession next = sharing.connect(server, "next", init, new RecordingClient());
    assertFalse(next.deferred());
    assertTrue(next.start().why().startsWith("a start answered from the records differed from the live server"),
        next.start().why());
    Verdict v = cotenant.rows(List.of(new ConfiguredServer(server, records))).get(0).verdict();
    assertNotEquals(Strength.REFUTED, v.strength(), v.toString());
    assertTrue(v.reasons().stream().anyMatch(r -> r.code() == ReasonCode.DEFERRED_ANSWER_CHANGED), v.toString());
    c.close();
    next.close();
  }

  /**
   * A deferred server that cannot start at the first call answers that call with an error naming
   * the server and what it said, at once; a later call, once it can start, is answered.
   */
  @Test
  void aServerThatFailsToStartAnswersTheFirstCallWithWhy() throws Exception {
    Path dir = Files.createDirectories(Path.of("target", "deferred-start-test", UUID.randomUUID().toString()));
    Path tools = Files.writeString(dir.resolve("tools.txt"), "alpha\n");
    ServerDescription server = FakeServer.builder().name("breaks").era(FakeServer.Era.LEGACY).tool("echo")
        .toolsFromFile(tools.toAbsolutePath()).build().description();
    measured(server);
    Files.delete(tools);
    Map<String, Object> init = init(Mcp.LEGACY_VERSION, Map.of());
    RecordingClient client = new RecordingClient();
    ClientSession c = sharing.connect(server, "s", init, client);
    started(c, client, init);
    c.fromClient(call(1, "first"));
    Map<?, ?> error = (Map<?, ?>) client.answer(1).get("error");
    assertEquals(ErrorCode.NO_BACKEND.code(), ((Number) error.get("code")).intValue(), error.toString());
    String message = String.valueOf(error.get("message"));
    assertTrue(message.startsWith("no backend for breaks: "), message);
    assertTrue(message.contains("cannot read the tools file"), message);
    assertTrue(c.deferred(), "still answered from the records");

    Files.writeString(tools, "alpha\n");
    c.fromClient(call(2, "second"));
    assertTrue(String.valueOf(client.answer(2)).contains("second"));
    c.close();
  }
}
