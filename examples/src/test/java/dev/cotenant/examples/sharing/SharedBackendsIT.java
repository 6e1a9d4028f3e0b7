package dev.cotenant.examples.sharing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.api.ServerDescription;
import dev.cotenant.gateway.Cotenant;
import dev.cotenant.gateway.config.McpConfigReader;
import dev.cotenant.gateway.mux.ClientSink;
import dev.cotenant.gateway.pool.EntrySnapshot;
import dev.cotenant.gateway.pool.Placement;
import dev.cotenant.gateway.sharing.ClientSession;
import dev.cotenant.gateway.sharing.Sharing;
import dev.cotenant.gateway.sharing.SharingSettings;
import dev.cotenant.testkit.process.ChecksProcessLeaks;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Real servers behind the pool and the multiplexer: the MCP Java SDK samples and
 * {@code @modelcontextprotocol/server-everything}, launched through {@code examples/bin} as
 * {@code examples/mcp.json} lists them, each shared by 8 clients that interleave calls carrying
 * their own markers. Every answer must reach only its caller, on one backend process.
 */
@ChecksProcessLeaks(waitMillis = 60_000)
class SharedBackendsIT {
  private static final Path ROOT = Path.of("").toAbsolutePath().getParent();
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final int CLIENTS = 8;
  private static final int CALLS = 6;

  @TempDir Path records;

  private static ServerDescription sample(String name) throws Exception {
    return new McpConfigReader().read(List.of(ROOT.resolve("examples/mcp.json"))).get(name).orElseThrow().description();
  }

  /** A client: answers by id. */
  private static final class Client implements ClientSink {
    final Map<Object, CompletableFuture<Map<String, Object>>> answers = new ConcurrentHashMap<>();

    CompletableFuture<Map<String, Object>> expect(Object id) {
      return answers.computeIfAbsent(id, k -> new CompletableFuture<>());
    }

    @Override
    public void send(Map<String, Object> message) {
      if (message.containsKey("id") && !message.containsKey("method")) {
        expect(message.get("id")).complete(message);
      }
    }
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource({"echo, echo, text", "workspace-keyed, remember, target", "server-everything, echo, message"})
  void eightClientsInterleaveOnOneBackendAndEachAnswerReachesOnlyItsCaller(String server, String tool, String argument)
      throws Exception {
    ServerDescription description = sample(server);
    try (Sharing sharing = Cotenant.builder().config(Map.of(SharingSettings.FORCED, server)).recordsDirectory(records)
        .build().sharing()) {
      List<Client> clients = new ArrayList<>();
      List<ClientSession> connections = new ArrayList<>();
      for (int c = 0; c < CLIENTS; c++) {
        Client client = new Client();
        Map<String, Object> init = Map.of("protocolVersion", "2025-11-25", "capabilities", Map.of(),
            "clientInfo", Map.of("name", "client-" + c, "version", "1"));
        ClientSession connection = sharing.connect(description, "session-" + c, init, client);
        CompletableFuture<Map<String, Object>> initialized = client.expect(0);
        connection.fromClient(Map.of("jsonrpc", "2.0", "id", 0, "method", "initialize", "params", init));
        assertTrue(initialized.get(WAIT.toSeconds(), TimeUnit.SECONDS).containsKey("result"));
        connection.fromClient(Map.of("jsonrpc", "2.0", "method", "notifications/initialized"));
        clients.add(client);
        connections.add(connection);
      }
      assertEquals(Placement.SHARED, connections.get(0).placement().placement());
      List<EntrySnapshot> entries = sharing.accounting();
      assertEquals(1, entries.size(), "one backend for " + CLIENTS + " sessions: " + entries);
      assertEquals(CLIENTS, entries.get(0).sessions());

      // Every client writes all its calls before any answer is read, interleaved across clients;
      // every client uses the same ids, 1..CALLS.
      for (int n = 1; n <= CALLS; n++) {
        for (int c = 0; c < CLIENTS; c++) {
          String marker = "client-" + c + "-call-" + n;
          Map<String, Object> args = server.equals("workspace-keyed")
              ? Map.of("workspace", "ws-" + c + "-" + n, argument, marker)
              : Map.of(argument, marker);
          clients.get(c).expect(n);
          connections.get(c).fromClient(Map.of("jsonrpc", "2.0", "id", n, "method", "tools/call",
              "params", Map.of("name", tool, "arguments", args)));
        }
      }
      List<String> wrong = new ArrayList<>();
      for (int c = 0; c < CLIENTS; c++) {
        for (int n = 1; n <= CALLS; n++) {
          String text = String.valueOf(clients.get(c).expect(n).get(WAIT.toSeconds(), TimeUnit.SECONDS));
          if (!text.contains("client-" + c + "-call-" + n)) {
            wrong.add("client " + c + " call " + n + " got " + text);
          }
          for (int other = 0; other < CLIENTS; other++) {
            if (other != c && text.contains("client-" + other + "-call-")) {
              wrong.add("client " + c + " call " + n + " saw client " + other + "'s marker: " + text);
            }
          }
        }
      }
      assertEquals(List.of(), wrong);
      assertTrue(sharing.accounting().get(0).calls() >= (long) CLIENTS * CALLS, sharing.accounting().toString());
      connections.forEach(ClientSession::close);
    }
  }

  @Test
  void dedicatedSessionsOfTheSameServerRunOneProcessEach() throws Exception {
    ServerDescription echo = sample("echo");
    try (Sharing sharing = Cotenant.builder().recordsDirectory(records).build().sharing()) {
      List<ClientSession> connections = new ArrayList<>();
      for (int c = 0; c < 3; c++) {
        connections.add(sharing.connect(echo, "session-" + c, Map.of("protocolVersion", "2025-11-25",
            "capabilities", Map.of(), "clientInfo", Map.of("name", "c", "version", "1")), new Client()));
      }
      assertEquals(Placement.DEDICATED, connections.get(0).placement().placement());
      assertEquals(3, sharing.accounting().size(), sharing.accounting().toString());
      assertEquals(3, connections.stream().map(ClientSession::backendPid).distinct().count());
      connections.forEach(ClientSession::close);
    }
  }
}
