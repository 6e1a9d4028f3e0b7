package dev.cotenant.cli.daemon.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.cli.daemon.ApiSocket;
import dev.cotenant.cli.daemon.api.ApiDaemon.Answer;
import dev.cotenant.testkit.process.ChecksProcessLeaks;
import dev.cotenant.testkit.server.FakeServer;
import java.io.IOException;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code api.sock}: its owner's only, no token needed, the same answers as over TCP, gone when the daemon stops. */
@ChecksProcessLeaks(waitMillis = 20_000)
class ApiSocketTest {
  @TempDir Path dir;

  @Test
  void theSocketIsTheOwnersOnlyAnswersWithoutATokenAndIsRemovedOnStop() throws Exception {
    ApiDaemon api = ApiDaemon.start(dir, Map.of("echo", FakeServer.builder().name("echo").echo().build().description()),
        Map.of(), Map.of());
    try {
      Path socket = api.home.apiSocket();
      assertEquals(api.home.dir().resolve("api.sock"), socket);
      assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(socket)));
      assertEquals(System.getProperty("user.name"), Files.getOwner(socket).getName());
      try (var files = Files.list(api.home.dir())) {
        assertTrue(files.noneMatch(p -> p.getFileName().toString().startsWith(".a")), "no private bind directory is left");
      }
      Answer rows = api.unix("GET", "/api/rows", null);
      assertEquals(200, rows.status(), rows.toString());
      assertEquals("application/json", rows.headers().get("Content-Type"));
      // No answer names the server software (mutant: ApiSocket without setSendServerVersion(false)).
      assertFalse(rows.headers().keySet().stream().anyMatch(k -> k.equalsIgnoreCase("Server") || k.equalsIgnoreCase("X-Powered-By")),
          rows.headers().toString());
      assertEquals(api.get("/api/rows").json(), rows.json(), "the same answer as over TCP");
      Answer recorded = api.unix("POST", "/api/hazards", "{\"server\":\"echo\",\"code\":\"cross_session_leak\",\"attachedSessions\":2}");
      assertEquals(201, recorded.status(), recorded.toString());
      assertEquals(1, api.get("/api/hazards").json().path("servers").size(), "one state behind both");
      ApiDaemon.assertError(400, "bad_json", api.unix("POST", "/api/stub", "{"));
      ApiDaemon.assertError(404, "not_found", api.unix("GET", "/api/none", null));
      assertEquals(404, api.unix("GET", "/mcp/echo", null).status(), "only the API is served on api.sock");
    } finally {
      api.close();
    }
    assertFalse(Files.exists(api.home.apiSocket()), "stopping removes api.sock");
    assertThrows(IOException.class, () -> api.unix("GET", "/api/rows", null));
    assertThrows(IOException.class, () -> api.get("/api/rows"), "HTTP is closed too");
  }

  /**
   * An answer given before the request's body arrived whole says {@code Connection: close}, on
   * {@code api.sock} as over TCP: the unread rest is not a next request.
   */
  @Test
  void anAnswerBeforeTheBodyArrivedClosesTheConnectionAndSaysSo() throws Exception {
    ApiDaemon api = ApiDaemon.start(dir, Map.of("echo", FakeServer.builder().name("echo").echo().build().description()),
        Map.of(), Map.of());
    try (SocketChannel channel = SocketChannel.open(UnixDomainSocketAddress.of(api.home.apiSocket()))) {
      channel.write(ByteBuffer.wrap(("POST /api/none HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
          + "Content-Length: 40\r\n\r\n{\"server\":").getBytes(StandardCharsets.US_ASCII)));
      String answer = new String(Channels.newInputStream(channel).readAllBytes(), StandardCharsets.UTF_8);
      assertTrue(answer.startsWith("HTTP/1.1 404"), answer);
      String head = answer.substring(0, Math.max(0, answer.indexOf("\r\n\r\n"))).toLowerCase(Locale.ROOT);
      assertTrue(head.contains("\r\nconnection: close"), answer);
    } finally {
      api.close();
    }
  }

  private static long apiSocketThreads() {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.isAlive() && t.getName().startsWith(ApiSocket.THREAD_PREFIX)).count();
  }

  /**
   * Closing the socket stops its server: its threads end, not only its file. Mutants:
   * {@code close} without {@code stopQuietly}, and {@code stopQuietly} without {@code stop}.
   */
  @Test
  void closingTheSocketEndsItsServersThreads() throws Exception {
    long before = apiSocketThreads();
    Path home = Files.createDirectories(dir.resolve("home"));
    ApiSocket socket = ApiSocket.open(home.resolve("api.sock"), new org.eclipse.jetty.server.Handler.Abstract() {
      @Override
      public boolean handle(org.eclipse.jetty.server.Request request, org.eclipse.jetty.server.Response response,
          org.eclipse.jetty.util.Callback callback) {
        return false;
      }
    });
    assertTrue(apiSocketThreads() > before, "the server runs threads of its own");
    socket.close();
    assertFalse(Files.exists(home.resolve("api.sock")));
    long deadline = System.nanoTime() + 30_000_000_000L;
    while (apiSocketThreads() > before) {
      assertTrue(System.nanoTime() < deadline, "the socket's threads outlived its close");
      Thread.sleep(20);
    }
  }
}
