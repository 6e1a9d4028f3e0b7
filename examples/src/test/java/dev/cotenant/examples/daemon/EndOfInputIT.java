package dev.cotenant.examples.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.testkit.process.ChecksProcessLeaks;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.JsonNode;

/**
 * A client that ends its input (or its HTTP session) with a call in flight still gets the call's
 * answer: {@code printf '%s\n%s\n%s\n' INIT INITIALIZED CALL | shim} through the native shim and
 * the JVM shim, and a Streamable HTTP session deleted while its call runs. The real daemon, the
 * real shims, server-everything's {@code trigger-long-running-operation} (a call that takes two
 * seconds).
 */
@ChecksProcessLeaks(waitMillis = 60_000)
class EndOfInputIT {
  private static final String EVERYTHING = "server-everything";
  private static final String INIT = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
      + "\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"piped\",\"version\":\"1\"}}}";
  private static final String INITIALIZED = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}";
  private static final String CALL = "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":"
      + "\"trigger-long-running-operation\",\"arguments\":{\"duration\":2,\"steps\":2}}}";

  /**
   * The three lines written and the input closed at once: the shim exits 0 once the call's answer
   * (a result, not an error) is on its output. Kills the daemon that ends a socket session at the
   * client's end of input without waiting for its calls in flight (the answer was lost in 14 of 14
   * runs), and a shim that exits there without relaying what the daemon still sends.
   */
  @ParameterizedTest
  @ValueSource(strings = {"native", "jvm"})
  void aCallInFlightWhenTheClientClosesItsInputIsAnswered(String kind) throws Exception {
    try (DaemonFixture f = new DaemonFixture()) {
      List<String> command = kind.equals("jvm") ? DaemonFixture.shimCommand(EVERYTHING)
          : List.of(NativeShimIT.shimFrom(DaemonFixture.JAR, f.home).toString(), "--java", DaemonFixture.java(), "--jar",
              DaemonFixture.JAR.toString(), "connect", EVERYTHING, DaemonFixture.CONFIG.toString());
      f.serve();
      Process shim = f.start(command, Map.of());
      CompletableFuture<String> out = DaemonFixture.drain(shim.getInputStream());
      CompletableFuture<String> err = DaemonFixture.drain(shim.getErrorStream());
      shim.getOutputStream().write((INIT + "\n" + INITIALIZED + "\n" + CALL + "\n").getBytes(StandardCharsets.UTF_8));
      shim.getOutputStream().close();
      assertTrue(shim.waitFor(DaemonFixture.BOUND.toSeconds(), TimeUnit.SECONDS), "the shim did not exit");
      String printed = out.get(10, TimeUnit.SECONDS);
      JsonNode answer = null;
      for (String line : printed.lines().toList()) {
        JsonNode n = DaemonFixture.JSON.readTree(line);
        if (n.path("id").asInt(-1) == 2) {
          answer = n;
        }
      }
      assertTrue(answer != null && answer.has("result"), "the call's answer, on " + kind + ": " + printed
          + "; stderr: " + err.getNow(""));
      assertEquals(0, shim.exitValue(), err.getNow(""));
    }
  }

  /**
   * A Streamable HTTP session deleted while its call runs (the backend has reported its progress):
   * the DELETE is answered 204, and the call's POST stream still gets the call's result. Kills the
   * DELETE that closed the session at once, answering the call with an error.
   */
  @org.junit.jupiter.api.Test
  void aCallInFlightWhenTheHttpSessionIsDeletedIsAnswered() throws Exception {
    try (DaemonFixture f = new DaemonFixture()) {
      f.serve();
      URI mcp = URI.create("http://127.0.0.1:" + f.state().orElseThrow().path("port").asInt() + "/mcp/" + EVERYTHING);
      String token = f.token();
      HttpClient http = HttpClient.newHttpClient();
      HttpResponse<String> init = http.send(post(mcp, token, null, INIT), HttpResponse.BodyHandlers.ofString());
      assertEquals(200, init.statusCode(), init.body());
      String session = init.headers().firstValue("Mcp-Session-Id").orElseThrow();
      http.send(post(mcp, token, session, INITIALIZED), HttpResponse.BodyHandlers.discarding());
      String call = CALL.replace("\"arguments\":{\"duration\":2,\"steps\":2}}",
          "\"arguments\":{\"duration\":3,\"steps\":3},\"_meta\":{\"progressToken\":\"p\"}}");
      HttpResponse<Stream<String>> stream = http.send(post(mcp, token, session, call), HttpResponse.BodyHandlers.ofLines());
      assertEquals(200, stream.statusCode());
      Iterator<String> lines = stream.body().iterator();
      // In flight at the backend once it reports progress.
      String line = "";
      while (lines.hasNext() && !line.contains("notifications/progress")) {
        line = lines.next();
      }
      assertTrue(line.contains("notifications/progress"), "the backend reported progress");
      HttpResponse<String> deleted = http.send(HttpRequest.newBuilder(mcp).timeout(DaemonFixture.BOUND)
          .header("Authorization", "Bearer " + token).header("Mcp-Session-Id", session).DELETE().build(),
          HttpResponse.BodyHandlers.ofString());
      assertEquals(204, deleted.statusCode(), deleted.body());
      JsonNode answer = null;
      while (lines.hasNext() && answer == null) {
        String l = lines.next();
        if (l.startsWith("data:")) {
          JsonNode n = DaemonFixture.JSON.readTree(l.substring(5).strip());
          if (n.path("id").asInt(-1) == 2) {
            answer = n;
          }
        }
      }
      assertTrue(answer != null && answer.has("result"), "the call's answer after the DELETE: " + answer);
      HttpResponse<String> after = http.send(post(mcp, token, session, CALL.replace("\"id\":2", "\"id\":3")),
          HttpResponse.BodyHandlers.ofString());
      assertEquals(404, after.statusCode(), "the deleted session takes nothing more: " + after.body());
    }
  }

  private static HttpRequest post(URI mcp, String token, String session, String body) {
    HttpRequest.Builder b = HttpRequest.newBuilder(mcp).timeout(DaemonFixture.BOUND)
        .header("Authorization", "Bearer " + token).header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream").POST(HttpRequest.BodyPublishers.ofString(body));
    if (session != null) {
      b.header("Mcp-Session-Id", session);
    }
    return b.build();
  }
}
