package dev.cotenant.examples.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.testkit.process.ChecksProcessLeaks;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.client.transport.StdioClientTransport;
import io.modelcontextprotocol.spec.McpSchema;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Clients share a backend only with clients that negotiate as they do: the real daemon, real
 * shims, {@code @modelcontextprotocol/server-everything} (which offers its {@code get-roots-list}
 * tool and asks {@code roots/list} only of a client declaring {@code roots}), raw JSON-RPC clients
 * of two protocol versions and the MCP Java SDK through a routed entry.
 */
@ChecksProcessLeaks(waitMillis = 60_000)
class NegotiationIT {
  private static final String EVERYTHING = "server-everything";
  private static final String OLDER = "2025-06-18";
  private static final String NEWER = "2025-11-25";

  @Test
  void eachClientIsAnsweredItsOwnVersionClientsOfOneVersionShareAndARootsClientIsAlwaysAskedItsRoots()
      throws Exception {
    try (DaemonFixture f = new DaemonFixture()) {
      f.serve("--set", "cotenant.sharing.forced=" + EVERYTHING);
      List<RawShim> shims = new ArrayList<>();
      try {
        // Two clients of each version: each is answered its own version, as the server started
        // directly answers it, and the two of a version share one backend.
        for (String version : List.of(OLDER, OLDER, NEWER, NEWER)) {
          RawShim s = new RawShim(f, EVERYTHING);
          shims.add(s);
          JsonNode result = s.initialize(version, "");
          assertEquals(version, result.path("protocolVersion").asString(), result.toString());
        }
        for (int i = 0; i < shims.size(); i++) {
          String echoed = shims.get(i).call(10, "echo", "{\"message\":\"client-" + i + "\"}");
          assertTrue(echoed.contains("client-" + i), echoed);
        }
        assertEquals(List.of("shared 2", "shared 2"), DaemonIT.backendsOf(f, EVERYTHING),
            "one shared backend per protocol version");

        // A client declaring roots is asked for its own roots: the first on a backend started with
        // its capabilities; the second, since that backend asked the first, on one of its own.
        RawShim first = new RawShim(f, EVERYTHING);
        shims.add(first);
        first.initialize(NEWER, "file:///tmp/cotenant-root-first");
        String firstRoots = first.call(20, "get-roots-list", "{}");
        assertTrue(firstRoots.contains("cotenant-root-first"), firstRoots);
        assertTrue(first.asked.contains("roots/list"), first.asked.toString());
        RawShim second = new RawShim(f, EVERYTHING);
        shims.add(second);
        second.initialize(NEWER, "file:///tmp/cotenant-root-second");
        String secondRoots = second.call(20, "get-roots-list", "{}");
        assertTrue(secondRoots.contains("cotenant-root-second"), secondRoots);
        assertFalse(secondRoots.contains("cotenant-root-first"), secondRoots);
        assertTrue(second.asked.contains("roots/list"), second.asked.toString());
        // Clients without roots never saw the tool of a client with roots.
        String none = shims.get(2).call(30, "get-roots-list", "{}");
        assertFalse(none.contains("cotenant-root"), none);
        assertEquals(List.of("dedicated 1", "shared 1", "shared 2", "shared 2"), DaemonIT.backendsOf(f, EVERYTHING));

        // The MCP Java SDK through the command `route --apply` wrote: answered the version it asked for.
        Path config = Files.writeString(f.home().resolve("client.json"), "{\"mcpServers\": {\"" + EVERYTHING
            + "\": {\"command\": \"" + DaemonFixture.ROOT.resolve("examples/bin/server-everything") + "\"}}}");
        DaemonFixture.Run route = f.run("route", config.toString(), "--apply", "--all");
        assertEquals(0, route.code(), route.err());
        JsonNode entry = DaemonFixture.JSON.readTree(config.toFile()).path("mcpServers").path(EVERYTHING);
        List<String> args = entry.path("args").valueStream().map(JsonNode::stringValue).toList();
        assertTrue(args.contains("connect"), entry.toString());
        StdioClientTransport transport = new StdioClientTransport(ServerParameters.builder(
            entry.path("command").stringValue()).args(args).env(f.env()).build(), DaemonFixture.MCP_JSON);
        transport.setStdErrorHandler(line -> { });
        try (McpSyncClient sdk = McpClient.sync(transport).clientInfo(new McpSchema.Implementation("sdk", "1"))
            .requestTimeout(DaemonFixture.BOUND).initializationTimeout(DaemonFixture.BOUND).build()) {
          McpSchema.InitializeResult result = sdk.initialize();
          assertTrue(List.of(OLDER, NEWER).contains(result.protocolVersion()), result.toString());
          String echoed = DaemonFixture.text(sdk.callTool(new McpSchema.CallToolRequest("echo", Map.of("message", "sdk"))));
          assertTrue(echoed.contains("sdk"), echoed);
        }
      } finally {
        for (RawShim s : shims) {
          s.in.close();
          s.process.waitFor();
        }
      }
    }
  }

  /**
   * A client declaring roots is shared only on evidence gathered by clients declaring it: after
   * {@code cotenant share} (whose probe also passed as such clients, and whose measurement recorded
   * one start for both client shapes) clients declaring roots and clients declaring nothing share
   * one backend; once the record reads as one written before the probe ran as such clients, the
   * next client declaring roots gets a backend of its own with the reason in {@code status}, while
   * a client declaring nothing still shares.
   */
  @Test
  void aClientDeclaringRootsSharesOnlyOnAProbeThatRanAsSuchClients() throws Exception {
    String server = "workspace-keyed";
    try (DaemonFixture f = new DaemonFixture()) {
      DaemonFixture.Run share = f.run("share", server, DaemonFixture.CONFIG.toString());
      assertEquals(0, share.code(), share.out() + share.err());
      assertTrue(share.out().contains("clients declaring elicitation, roots, sampling: covered"), share.out());
      f.serve();
      List<RawShim> shims = new ArrayList<>();
      try {
        for (String root : List.of("", "", "file:///tmp/cotenant-root-1", "file:///tmp/cotenant-root-2")) {
          RawShim s = new RawShim(f, server);
          shims.add(s);
          s.initialize(NEWER, root);
          String echoed = s.call(10, "set_target", "{\"workspace\":\"client-" + shims.size() + "\",\"target\":\"t\"}");
          assertTrue(echoed.contains("client-" + shims.size()), echoed);
        }
        assertEquals(List.of("shared 4"), DaemonIT.backendsOf(f, server),
            "clients declaring roots and clients declaring nothing share one backend: the evidence covers both");

        // The record as an older build wrote it: its pass covers clients declaring nothing.
        Path records = f.home().resolve("records/concurrency-records.json");
        String text = Files.readString(records);
        assertTrue(text.contains("clientCapabilities"), text);
        Files.writeString(records, text.replaceAll(",\\s*\"clientCapabilities\"\\s*:\\s*\\[[^\\]]*\\]", ""));
        String reason = "";
        long deadline = System.nanoTime() + DaemonFixture.BOUND.toNanos();
        while (reason.isEmpty() && System.nanoTime() < deadline) {
          // The daemon re-reads the records within about a second; until then a new client still shares.
          RawShim s = new RawShim(f, server);
          shims.add(s);
          s.initialize(NEWER, "file:///tmp/cotenant-root-late");
          s.call(10, "set_target", "{\"workspace\":\"late\",\"target\":\"t\"}");
          reason = dedicatedReason(f, server);
          if (reason.isEmpty()) {
            Thread.sleep(500);
          }
        }
        assertTrue(reason.startsWith("the client declares roots, and its whole-surface probe covers clients declaring none"
            + " of roots, sampling, elicitation"), reason);
        RawShim bare = new RawShim(f, server);
        shims.add(bare);
        bare.initialize(NEWER, "");
        bare.call(10, "set_target", "{\"workspace\":\"bare\",\"target\":\"t\"}");
        assertTrue(DaemonIT.backendsOf(f, server).contains("shared 5"), "a client declaring nothing still shares: "
            + DaemonIT.backendsOf(f, server));
      } finally {
        for (RawShim s : shims) {
          s.in.close();
          s.process.waitFor();
        }
      }
    }
  }

  /** The reason of the dedicated backend of {@code server} in {@code status}, or "" when there is none. */
  private static String dedicatedReason(DaemonFixture f, String server) throws Exception {
    DaemonFixture.Run status = f.run("status", "--json");
    assertEquals(0, status.code(), status.err());
    for (JsonNode b : DaemonFixture.JSON.readTree(status.out()).path("backends")) {
      if (b.path("server").asString().equals(server) && b.path("placement").asString().equals("dedicated")
          && b.path("sessions").asInt() > 0) {
        return b.path("reason").asString();
      }
    }
    return "";
  }
}
