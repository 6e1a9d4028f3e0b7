package dev.cotenant.gateway.sharing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.api.ConcurrencyModel;
import dev.cotenant.api.ConcurrencyRecord;
import dev.cotenant.api.ProbePass;
import dev.cotenant.api.ServerDescription;
import dev.cotenant.api.ShareScope;
import dev.cotenant.gateway.Cotenant;
import dev.cotenant.gateway.mux.ClientSink;
import dev.cotenant.gateway.pool.EntrySnapshot;
import dev.cotenant.gateway.pool.Placement;
import dev.cotenant.spi.Mcp;
import dev.cotenant.spi.rpc.ErrorCode;
import dev.cotenant.testkit.process.ChecksProcessLeaks;
import dev.cotenant.testkit.server.FakeServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Clients of several protocol versions and capability shapes on one stateless server (real
 * backend processes, the real pre-flight): one backend serves every client its evidence covers,
 * each answered the version it asked; a client the evidence does not cover gets a backend of its
 * shape, and the reason says which evidence is missing. Sessions attach at connect here
 * ({@value SharingSettings#DEFER} off): the test is about where they attach.
 */
@ChecksProcessLeaks(waitMillis = 30_000)
class MixedClientsTest {
  private static final Map<String, Object> ROOTS = Map.of("roots", Map.of("listChanged", true));
  private static final Map<String, Object> CAPABLE = Map.of("roots", Map.of(), "sampling", Map.of(),
      "elicitation", Map.of());
  private static final Map<String, Object> APPS = Map.of("extensions",
      Map.of(Mcp.APPS_EXTENSION, Map.of("mimeTypes", List.of("text/html;profile=mcp-app"))));

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
        "clientInfo", Map.of("name", "mixed-" + version, "version", "1"));
  }

  /** A runtime that measured {@code server} and registered it shared on a whole-surface pass of {@code versions}. */
  private Cotenant registered(ServerDescription server, List<String> versions) throws Exception {
    Cotenant cotenant = Cotenant.builder().config(Map.of(SharingSettings.ENABLED, "true", SharingSettings.DEFER, "false"))
        .recordsDirectory(records).build();
    cotenant.evaluator(1).uncappedPass(List.of(server));
    ProbePass pass = ProbePass.wholeSurface(cotenant.identityOf(server).ledgerKey(), 3, 1.0,
        ProbePass.Surface.of(List.of("echo"), Map.of(), Mcp.ASKED_OF_CLIENTS, versions));
    cotenant.recordStores().concurrencyRecords().update(server.name(), current -> Optional.of(
        new ConcurrencyRecord(server.name(), ConcurrencyModel.SHARED, ShareScope.TENANT, OptionalInt.of(8),
            Optional.of(pass))));
    sharing = cotenant.sharing();
    return cotenant;
  }

  private record Session(ClientSession session, RecordingClient client, String version) {}

  private Session connect(ServerDescription server, String id, String version, Map<String, Object> caps)
      throws Exception {
    RecordingClient client = new RecordingClient();
    ClientSession c = sharing.connect(server, id, init(version, caps), client);
    c.fromClient(Map.of("jsonrpc", "2.0", "id", 0, "method", "initialize", "params", init(version, caps)));
    Map<?, ?> result = (Map<?, ?>) client.answer(0).get("result");
    assertEquals(version, result.get("protocolVersion"), id + " is answered the version it asked");
    return new Session(c, client, version);
  }

  @Test
  void twoVersionsAndThreeShapesTheEvidenceCoversShareOneBackend() throws Exception {
    ServerDescription server = FakeServer.builder().name("stateless").era(FakeServer.Era.LEGACY).tool("echo").build()
        .description();
    registered(server, List.of(Mcp.PRIOR_VERSION, Mcp.LEGACY_VERSION));
    List<Session> all = new ArrayList<>();
    int n = 0;
    for (String version : List.of(Mcp.LEGACY_VERSION, Mcp.PRIOR_VERSION)) {
      for (Map<String, Object> caps : List.of(Map.<String, Object>of(), CAPABLE, APPS)) {
        all.add(connect(server, "s" + (n++), version, caps));
      }
    }
    List<EntrySnapshot> entries = sharing.accounting();
    assertEquals(1, entries.size(), entries.toString());
    assertEquals(6, entries.get(0).sessions());
    for (Session s : all) {
      assertEquals(Placement.SHARED, s.session().placement().placement(), s.session().placement().why());
      assertTrue(s.session().placement().why().endsWith("one backend for every client its evidence covers"
          + " (protocol versions 2025-06-18, 2025-11-25)"), s.session().placement().why());
      s.session().fromClient(Map.of("jsonrpc", "2.0", "id", 1, "method", "tools/call",
          "params", Map.of("name", "echo", "arguments", Map.of("marker", s.version()))));
      assertTrue(String.valueOf(s.client().answer(1)).contains(s.version()));
    }

    // A version no caller of its evidence asked for: a backend of its own, and why.
    Session old = connect(server, "old", "2025-03-26", Map.of());
    assertEquals(2, sharing.accounting().size());
    assertNotEquals(all.get(0).session().backendPid(), old.session().backendPid());
    assertTrue(old.session().placement().why().endsWith("a backend of its own version: the client asks protocol version"
        + " 2025-03-26, and its pre-flight covers 2025-06-18, 2025-11-25"), old.session().placement().why());
    all.add(old);
    all.forEach(s -> s.session().close());
  }

  @Test
  void withoutAProbeOfEveryVersionEachVersionHasItsOwnBackend() throws Exception {
    ServerDescription server = FakeServer.builder().name("one-version").era(FakeServer.Era.LEGACY).tool("echo").build()
        .description();
    registered(server, List.of(Mcp.LEGACY_VERSION));
    Session a = connect(server, "a", Mcp.LEGACY_VERSION, Map.of());
    Session b = connect(server, "b", Mcp.LEGACY_VERSION, APPS);
    Session c = connect(server, "c", Mcp.PRIOR_VERSION, Map.of());
    assertEquals(a.session().backendPid(), b.session().backendPid(), "two shapes of a covered version share");
    assertNotEquals(a.session().backendPid(), c.session().backendPid());
    assertTrue(c.session().placement().why().endsWith("a backend of its own version: its whole-surface probe ran as"
        + " clients of 2025-11-25, not 2025-06-18"), c.session().placement().why());
    List.of(a, b, c).forEach(s -> s.session().close());
  }

  /**
   * A server asking its only client for its roots when that client declared none is answered as
   * such a client would (method not found), never forwarded to it.
   */
  @Test
  void aRequestForACapabilityTheClientDidNotDeclareIsAnsweredAsThatClientWould() throws Exception {
    ServerDescription server = FakeServer.builder().name("asks").era(FakeServer.Era.LEGACY).tool("echo")
        .sendsServerRequestOnCall("roots/list").build().description();
    Cotenant cotenant = Cotenant.builder().config(Map.of(SharingSettings.DEFER, "false")).recordsDirectory(records)
        .build();
    sharing = cotenant.sharing();
    Session s = connect(server, "bare", Mcp.LEGACY_VERSION, Map.of());
    s.session().fromClient(Map.of("jsonrpc", "2.0", "id", 1, "method", "tools/call",
        "params", Map.of("name", "echo", "arguments", Map.of("marker", "m"))));
    String answer = String.valueOf(s.client().answer(1));
    assertTrue(answer.contains(String.valueOf(ErrorCode.METHOD_NOT_FOUND.code())), answer);
    assertTrue(answer.contains("the client declared no roots capability"), answer);
    assertTrue(s.client().got.stream().noneMatch(m -> "roots/list".equals(m.get("method"))), s.client().got.toString());
    s.session().close();
  }
}
