package dev.cotenant.examples.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.testkit.process.ChecksProcessLeaks;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpSchema;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * A hazard observed on a shared backend, then cleared, in a running daemon: the real daemon, a
 * real shim, server-everything forced shared, and sessions spoken to on the socket as a shim speaks
 * (so the daemon's {@code placed} notices are seen).
 */
@ChecksProcessLeaks(waitMillis = 60_000)
class HazardsClearIT {
  private static final String EVERYTHING = "server-everything";

  /** The backends of {@code server} that {@code status --json} lists. */
  private static List<JsonNode> backends(DaemonFixture f) throws Exception {
    DaemonFixture.Run status = f.run("status", "--json");
    assertEquals(0, status.code(), status.err());
    List<JsonNode> out = new ArrayList<>();
    DaemonFixture.JSON.readTree(status.out()).path("backends").forEach(b -> {
      if (b.path("server").asString().equals(EVERYTHING)) {
        out.add(b);
      }
    });
    return out;
  }

  /**
   * B's simulated logging, dropped while A and B share a backend, is a hazard: A's next call moves
   * it to a backend of its own, and its shim is told so ({@code placed: dedicated}) before the
   * answer. {@code DELETE /api/hazards} then restores sharing at once: a new session C is told
   * {@code shared}, is answered, and stays on a shared backend that is a fresh one, not the one
   * that saw the hazard (where B still is). Kills the hazardous set keyed by a connection id the
   * next shared backend reuses (C was told {@code shared} and landed on a dedicated backend at its
   * first call), and the {@code placed} notice sent only once (A's shim was never told it moved).
   */
  @Test
  void clearingAHazardSharesNewSessionsOnAFreshBackendAndTheNoticeSaysWhereEachIs() throws Exception {
    try (DaemonFixture f = new DaemonFixture()) {
      f.serve("--set", "cotenant.sharing.forced=" + EVERYTHING);
      try (SocketPeer a = new SocketPeer(f, EVERYTHING)) {
        a.initialize();
        assertEquals(List.of("shared"), a.placed);
        McpSyncClient b = f.stdioClient(EVERYTHING, "b");
        List<JsonNode> shared = backends(f);
        assertEquals(1, shared.size(), shared.toString());
        assertEquals(2, shared.get(0).path("sessions").asInt(), shared.toString());
        long hazardous = shared.get(0).path("pid").asLong();

        b.callTool(new McpSchema.CallToolRequest("toggle-simulated-logging", Map.of()));
        long deadline = System.nanoTime() + DaemonFixture.BOUND.toNanos();
        String hazards = "";
        while (!hazards.contains("unattributable_notification") && System.nanoTime() < deadline) {
          Thread.sleep(200);
          hazards = f.run("hazards", "list", "--json").out();
        }
        assertTrue(hazards.contains("unattributable_notification"), hazards);

        JsonNode moved = a.call(2, "echo", "{\"message\":\"a moves\"}");
        assertTrue(moved.toString().contains("a moves"), moved.toString());
        assertEquals(List.of("shared", "dedicated"), a.placed, "A's shim is told its session is on a backend of its own");

        java.net.http.HttpResponse<String> cleared = java.net.http.HttpClient.newHttpClient().send(
            java.net.http.HttpRequest.newBuilder(java.net.URI.create("http://127.0.0.1:"
                    + f.state().orElseThrow().path("port").asInt() + "/api/hazards/" + EVERYTHING))
                .timeout(DaemonFixture.BOUND).header("Authorization", "Bearer " + f.token()).DELETE().build(),
            java.net.http.HttpResponse.BodyHandlers.ofString());
        assertEquals(200, cleared.statusCode(), cleared.body());
        assertTrue(cleared.body().contains("\"cleared\":true"), cleared.body());

        try (SocketPeer c = new SocketPeer(f, EVERYTHING)) {
          c.initialize();
          JsonNode answered = c.call(2, "echo", "{\"message\":\"c shares\"}");
          assertTrue(answered.toString().contains("c shares"), answered.toString());
          assertEquals(List.of("shared"), c.placed, "C was told it shares, and nothing since");
          List<String> seen = new ArrayList<>();
          JsonNode fresh = null;
          for (JsonNode backend : backends(f)) {
            seen.add(backend.path("placement").asString() + " pid " + backend.path("pid").asLong() + " sessions "
                + backend.path("sessions").asInt());
            if (backend.path("placement").asString().equals("shared") && backend.path("pid").asLong() != hazardous
                && backend.path("sessions").asInt() == 1) {
              fresh = backend;
            }
          }
          assertTrue(fresh != null, "C is on a fresh shared backend, not pid " + hazardous + ": " + seen);
        }
      }
    }
  }
}
