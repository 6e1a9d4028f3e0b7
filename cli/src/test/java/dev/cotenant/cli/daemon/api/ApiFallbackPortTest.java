package dev.cotenant.cli.daemon.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import dev.cotenant.cli.daemon.CotenantHome;
import dev.cotenant.cli.daemon.Daemon;
import dev.cotenant.cli.daemon.ServerDirectory;
import dev.cotenant.gateway.Cotenant;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** When the default port is taken and the daemon serves HTTP on a free one instead, the API is mounted there too. */
class ApiFallbackPortTest {
  @TempDir Path dir;

  @Test
  void theApiIsServedOnTheFreePortTheDaemonFallsBackTo() throws Exception {
    Path config = Files.writeString(dir.resolve("mcp.json"), "{\"mcpServers\":{}}");
    CotenantHome home = new CotenantHome(dir.resolve("home"));
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
      Daemon d = new Daemon(home, Cotenant.builder().recordsDirectory(dir.resolve("records")).build(),
          new ServerDirectory(List.of(config)), taken.getLocalPort(), "", false);
      d.start();
      try {
        int port = d.httpPort().orElseThrow();
        assertNotEquals(taken.getLocalPort(), port);
        String token = Files.readString(home.token(), StandardCharsets.US_ASCII).strip();
        HttpResponse<String> rows = HttpClient.newHttpClient().send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/api/rows"))
                .header("Authorization", "Bearer " + token).build(),
            HttpResponse.BodyHandlers.ofString());
        assertEquals(200, rows.statusCode(), rows.body());
        assertTrue(rows.body().startsWith("{\"servers\":[],\"files\":[{\"path\":"), rows.body());
      } finally {
        d.stop();
      }
    }
  }
}
