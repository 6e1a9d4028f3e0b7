package dev.cotenant.cli.daemon.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.cotenant.api.ServerDescription;
import dev.cotenant.cli.daemon.LineChannel;
import dev.cotenant.cli.daemon.api.ApiDaemon.Answer;
import dev.cotenant.testkit.process.ChecksProcessLeaks;
import dev.cotenant.testkit.server.FakeServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * A daemon a shim started has no configuration file of its own: its API's rows and measurements
 * cover the servers of the files its shims named (a client's file, a routed client's sidecar),
 * and say where each file came from. Before the daemon remembered them, the rows were empty and a
 * measurement ran "0 of 0".
 */
@ChecksProcessLeaks(waitMillis = 20_000)
class ApiShimFilesTest {
  @TempDir Path dir;

  @Test
  void aDaemonWithoutConfigurationFilesShowsAndMeasuresTheServersOfTheFilesItsShimsNamed() throws Exception {
    ServerDescription echo = FakeServer.builder().name("echo").echo().build().description();
    ServerDescription calc = FakeServer.builder().name("calc").echo().build().description();
    Path client = dir.resolve("client.json");
    ApiDaemon.writeConfig(client, Map.of("echo", echo), Map.of());
    // What `route --apply` leaves for a routed client: an ordinary configuration file holding the
    // originals, which names the client file it was routed from.
    Path sidecar = Files.createDirectories(dir.resolve("routes")).resolve("mcp-0123456789ab.json");
    ApiDaemon.writeConfig(sidecar, Map.of("calc", calc), Map.of());
    Map<String, Object> withOrigin = new LinkedHashMap<>();
    withOrigin.put("routedFrom", dir.resolve("cursor/mcp.json").toString());
    withOrigin.putAll(ApiDaemon.JSON.readValue(sidecar.toFile(), Map.class));
    Files.write(sidecar, ApiDaemon.JSON.writeValueAsBytes(withOrigin));

    try (ApiDaemon api = ApiDaemon.startWithoutConfig(dir, Map.of())) {
      assertEquals(ApiDaemon.JSON.readTree("{\"servers\":[],\"files\":[]}"), api.get("/api/rows").json(),
          "no shim has named a file yet");

      try (LineChannel a = api.shim("echo", 0, client); LineChannel b = api.shim("calc", 0, sidecar)) {
        Answer rows = api.get("/api/rows");
        assertEquals(200, rows.status(), rows.toString());
        assertEquals(api.cli("assess", client.toString(), sidecar.toString()).path("servers"), rows.json().path("servers"),
            "the servers of the files the shims named, as assess --json prints them");
        assertEquals(List.of("echo", "calc"), names(rows.json()));
        assertEquals(ApiDaemon.JSON.readTree("[{\"path\":\"" + client + "\",\"from\":\"shim\"},{\"path\":\"" + sidecar
            + "\",\"from\":\"shim\",\"routedFrom\":\"" + dir.resolve("cursor/mcp.json") + "\"}]"), rows.json().path("files"));
      }
      assertEquals(List.of("echo", "calc"), names(api.get("/api/rows").json()), "remembered after the shims left");

      Answer started = api.post("/api/measure", "{}");
      assertEquals(202, started.status(), started.toString());
      ApiDaemon.await("the measure job to end", () -> !api.progress().path("running").asBoolean());
      JsonNode progress = api.progress();
      assertEquals(2, progress.path("total").asInt(), "both servers are measured, not 0 of 0: " + progress);
      assertEquals(2, progress.path("measured").asInt(), progress.toString());
      for (JsonNode row : api.get("/api/rows").json().path("servers")) {
        assertEquals("measured", row.path("strength").asString(), row.toString());
      }

      // A file that can no longer be read is listed with why, and its servers are left out.
      Files.writeString(client, "{ not json");
      JsonNode rows = api.get("/api/rows").json();
      assertEquals(List.of("calc"), names(rows));
      assertFalse(rows.path("files").get(0).path("problem").asString().isEmpty(), rows.toString());
      // Gone: no longer listed.
      Files.delete(client);
      assertEquals(1, api.get("/api/rows").json().path("files").size());
    }
  }

  private static List<String> names(JsonNode rows) {
    List<String> out = new java.util.ArrayList<>();
    rows.path("servers").forEach(r -> out.add(r.path("name").asString()));
    return out;
  }
}
