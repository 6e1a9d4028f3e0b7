package dev.cotenant.cli.daemon.http;

import static dev.cotenant.cli.daemon.http.McpHttpHarness.json;
import static dev.cotenant.cli.daemon.http.McpHttpHarness.request;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.testkit.process.ChecksProcessLeaks;
import dev.cotenant.testkit.server.FakeServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.Socket;
import java.net.SocketException;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * What the HTTP side refuses before anything reaches a backend: foreign origins and hosts (DNS
 * rebinding), requests without the bearer token; and that it listens on the loopback interface only.
 */
@ChecksProcessLeaks(waitMillis = 30_000)
class McpHttpGuardTest extends McpHttpServerTest {
  private static final FakeServer FAKE = FakeServer.builder().name("fake").era(FakeServer.Era.LEGACY).tool("echo").build();

  @Test
  void aForeignOriginIsRefusedAndNothingReachesTheBackendALoopbackOriginPasses() throws Exception {
    http = new McpHttpHarness(records, List.of(FAKE.description()));
    HttpResponse<String> init = http.send(http.post("fake", json(McpHttpHarness.initializeRequest(0)),
        "Origin", "http://evil.example"));
    assertEquals(403, init.statusCode(), init.body());
    assertTrue(http.sharing.accounting().isEmpty(), "no backend was started for a refused initialize");
    assertEquals(0, http.endpoint.sessionCount());

    HttpResponse<String> local = http.send(http.post("fake", json(McpHttpHarness.initializeRequest(0)),
        "Origin", "http://localhost:5173"));
    assertEquals(200, local.statusCode(), local.body());
    String session = local.headers().firstValue(McpHttpEndpoint.SESSION_HEADER).orElseThrow();

    // A call of a live session from a foreign page: refused, and the server never hears of it.
    HttpResponse<String> call = http.send(http.post("fake", json(McpHttpHarness.echo(5, Map.of("marker", "evil"))),
        McpHttpEndpoint.SESSION_HEADER, session, "Origin", "https://evil.example:443"));
    assertEquals(403, call.statusCode(), call.body());
    HttpResponse<String> seen = http.post("fake", session, request(6, FakeServer.RECEIVED_REQUESTS, Map.of()));
    assertEquals(200, seen.statusCode(), seen.body());
    assertTrue(seen.body().contains("\"requests\""), seen.body());
    assertFalse(seen.body().contains("tools/call"), "the backend received no tools/call: " + seen.body());
  }

  @Test
  void aRefusalBeforeTheBodyWasReadClosesTheConnectionAndSaysSo() throws Exception {
    http = new McpHttpHarness(records, List.of(FAKE.description()));
    String auth = "Authorization: Bearer " + McpHttpHarness.TOKEN + "\r\n";
    // Half of the body is sent: the refusal cannot wait for the rest, and what follows it on the
    // connection is not a request. A client told nothing would send its next request there.
    String foreign = raw(http.server.port(), "POST /mcp/fake HTTP/1.1\r\nHost: 127.0.0.1\r\n" + auth
        + "Origin: http://evil.example\r\nContent-Type: application/json\r\nContent-Length: 40\r\n\r\n{\"jsonrpc\":");
    assertTrue(foreign.startsWith("HTTP/1.1 403"), foreign);
    assertTrue(head(foreign).contains("\r\nconnection: close"), foreign);
    String noToken = raw(http.server.port(), "POST /mcp/fake HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        + "Content-Type: application/json\r\nContent-Length: 40\r\n\r\n{\"jsonrpc\":");
    assertTrue(noToken.startsWith("HTTP/1.1 401"), noToken);
    assertTrue(head(noToken).contains("\r\nconnection: close"), noToken);
    // A refusal after the whole body arrived keeps the connection: two requests, two answers.
    String bothRefused = raw(http.server.port(), ("POST /mcp/fake HTTP/1.1\r\nHost: 127.0.0.1\r\n" + auth
        + "Origin: http://evil.example\r\nContent-Length: 2\r\n\r\n{}").repeat(2).replaceFirst(
        "(?s)(.*)Content-Length: 2", "$1Connection: close\r\nContent-Length: 2"));
    assertEquals(2, bothRefused.split("HTTP/1.1 403", -1).length - 1, bothRefused);
    assertTrue(http.sharing.accounting().isEmpty(), "no backend was started");
  }

  private static String head(String answer) {
    return answer.substring(0, Math.max(0, answer.indexOf("\r\n\r\n"))).toLowerCase(java.util.Locale.ROOT);
  }

  @Test
  void aMissingOrWrongTokenIs401WithABearerChallenge() throws Exception {
    http = new McpHttpHarness(records, List.of(FAKE.description()));
    HttpResponse<String> wrong = http.send(http.post("fake", json(McpHttpHarness.initializeRequest(0)),
        "Authorization", "Bearer " + McpHttpHarness.TOKEN + "x"));
    assertEquals(401, wrong.statusCode(), wrong.body());
    assertEquals("Bearer", wrong.headers().firstValue("WWW-Authenticate").orElse(""));
    HttpResponse<String> basic = http.send(http.post("fake", json(McpHttpHarness.initializeRequest(0)),
        "Authorization", "Basic " + McpHttpHarness.TOKEN));
    assertEquals(401, basic.statusCode(), basic.body());

    String raw = raw(http.server.port(), "POST /mcp/fake HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2\r\n"
        + "Connection: close\r\n\r\n{}");
    assertTrue(raw.startsWith("HTTP/1.1 401"), raw);
    assertTrue(http.sharing.accounting().isEmpty(), "no backend was started");
  }

  @Test
  void aForeignHostHeaderIsRefused() throws Exception {
    http = new McpHttpHarness(records, List.of(FAKE.description()));
    String auth = "Authorization: Bearer " + McpHttpHarness.TOKEN + "\r\n";
    String rebound = raw(http.server.port(), "DELETE /mcp/fake HTTP/1.1\r\nHost: evil.example:" + http.server.port()
        + "\r\n" + auth + "Mcp-Session-Id: x\r\nConnection: close\r\n\r\n");
    assertTrue(rebound.startsWith("HTTP/1.1 403"), rebound);
    String local = raw(http.server.port(), "DELETE /mcp/fake HTTP/1.1\r\nHost: localhost:" + http.server.port()
        + "\r\n" + auth + "Mcp-Session-Id: x\r\nConnection: close\r\n\r\n");
    assertTrue(local.startsWith("HTTP/1.1 404"), "past the guard, an unknown session: " + local);
    // Neither answer names the server software (mutant: DaemonHttpServer without setSendServerVersion(false),
    // which made Jetty add "Server: Jetty(...)" to every answer).
    for (String answer : List.of(rebound, local)) {
      String head = answer.substring(0, Math.max(0, answer.indexOf("\r\n\r\n"))).toLowerCase(java.util.Locale.ROOT);
      assertFalse(head.contains("\r\nserver:") || head.contains("\r\nx-powered-by:"), answer);
    }
  }

  @Test
  void theServerListensOnTheLoopbackInterfaceOnly() throws Exception {
    http = new McpHttpHarness(records, List.of(FAKE.description()));
    assertEquals("127.0.0.1", http.server.host());
    assertTrue(http.server.port() > 0);
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), http.server.port()), 5_000);
    }
    Optional<InetAddress> other = nonLoopbackAddress();
    Assumptions.assumeTrue(other.isPresent(), "this machine has no non-loopback address to try");
    try (Socket s = new Socket()) {
      assertThrows(ConnectException.class, () -> s.connect(new InetSocketAddress(other.get(), http.server.port()), 5_000),
          "connecting through " + other.get());
    }
  }

  @Test
  void loopbackOriginsAndHostsAreToldApart() {
    for (String o : List.of("http://localhost", "http://localhost:3000", "https://127.0.0.1:8443", "http://[::1]:80",
        "HTTP://LOCALHOST")) {
      assertTrue(HttpGuard.isLoopbackOrigin(o), o);
    }
    for (String o : List.of("http://evil.example", "null", "http://localhost.evil.example", "file://localhost",
        "http://127.0.0.1.nip.io", "http://user@localhost", "ws://localhost", "")) {
      assertFalse(HttpGuard.isLoopbackOrigin(o), o);
    }
    for (String h : List.of("localhost", "localhost:8080", "127.0.0.1:1", "[::1]", "[::1]:9000")) {
      assertTrue(HttpGuard.isLoopbackHost(h), h);
    }
    for (String h : List.of("evil.example", "localhost.evil.example", "127.0.0.1.nip.io:80", "[::2]:80", "localhost:x",
        "10.0.0.1", "")) {
      assertFalse(HttpGuard.isLoopbackHost(h), h);
    }
    assertThrows(IllegalArgumentException.class, () -> new HttpGuard(""));
  }

  /** One request written as is; the whole answer. */
  private static String raw(int port, String request) throws IOException {
    try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
      s.setSoTimeout(30_000);
      OutputStream out = s.getOutputStream();
      out.write(request.getBytes(StandardCharsets.US_ASCII));
      out.flush();
      InputStream in = s.getInputStream();
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  private static Optional<InetAddress> nonLoopbackAddress() throws SocketException {
    for (NetworkInterface ni : Collections.list(NetworkInterface.getNetworkInterfaces())) {
      if (!ni.isUp() || ni.isLoopback()) {
        continue;
      }
      for (InetAddress a : Collections.list(ni.getInetAddresses())) {
        if (!a.isLoopbackAddress() && !a.isLinkLocalAddress() && !(a instanceof Inet6Address)) {
          return Optional.of(a);
        }
      }
    }
    return Optional.empty();
  }
}
