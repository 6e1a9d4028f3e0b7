package dev.cotenant.examples.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.testkit.process.ChecksProcessLeaks;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpSchema;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Deferred backends through the real daemon, real shims and the official MCP Java SDK client: once
 * {@code cotenant measure} recorded the start of the {@code counter} sample, a client's handshake
 * and tool listing are answered from the records and no process runs for it until its first call;
 * its listing is the one a server of its own lists. {@code server-everything} (the third-party npm
 * server) talks before its first call, so its sessions start their backend at once, and status
 * says why.
 */
@ChecksProcessLeaks(waitMillis = 60_000)
class DeferredBackendIT {
  /** What status says of {@code server}: its entry of {@code servers}, and its backends' count. */
  private static JsonNode server(DaemonFixture f, String server) throws Exception {
    DaemonFixture.Run status = f.run("status", "--json");
    assertEquals(0, status.code(), status.err());
    for (JsonNode s : DaemonFixture.JSON.readTree(status.out()).path("servers")) {
      if (s.path("server").asString().equals(server)) {
        return s;
      }
    }
    throw new AssertionError(server + " is not in status: " + status.out());
  }

  @Test
  void aMeasuredServerRunsNoProcessUntilItsSessionsFirstCall() throws Exception {
    try (DaemonFixture f = new DaemonFixture()) {
      DaemonFixture.Run measure = f.run("measure", "--server", "counter", "--server", "server-everything",
          DaemonFixture.CONFIG.toString());
      assertEquals(0, measure.code(), measure.out() + measure.err());
      f.serve();

      McpSyncClient direct = f.directClient("counter", "direct-twin");
      List<McpSchema.Tool> own = direct.listTools().tools();

      McpSyncClient c = f.stdioClient("counter", "deferred");
      // stdioClient connected it: the shim points at the daemon, which answered initialize.
      List<McpSchema.Tool> listed = c.listTools().tools();
      assertEquals(own.stream().map(McpSchema.Tool::name).sorted().toList(),
          listed.stream().map(McpSchema.Tool::name).sorted().toList());
      assertEquals(own, listed, "the tools a server of its own lists, annotations and schemas included");
      JsonNode waiting = server(f, "counter");
      assertEquals(1, waiting.path("waiting").asInt(), waiting.toString());
      assertEquals(0, waiting.path("backends").asInt(), "no process for a session that has not called: " + waiting);
      assertTrue(waiting.path("deferred").asString().startsWith("its pre-flight recorded the same start for every caller"),
          waiting.toString());

      assertEquals("calls=1", DaemonFixture.text(c.callTool(new McpSchema.CallToolRequest("next", Map.of()))));
      JsonNode started = server(f, "counter");
      assertEquals(0, started.path("waiting").asInt(), started.toString());
      assertEquals(1, started.path("backends").asInt(), started.toString());

      McpSyncClient everything = f.stdioClient("server-everything", "everything");
      everything.listTools();
      JsonNode eager = server(f, "server-everything");
      assertEquals(0, eager.path("waiting").asInt(), eager.toString());
      assertEquals(1, eager.path("backends").asInt(), eager.toString());
      assertTrue(eager.path("not_deferred").asString().startsWith("its pre-flight recorded no start: it sent a"),
          eager.toString());
    }
  }
}
