package dev.cotenant.examples.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import tools.jackson.databind.JsonNode;

/**
 * A shim's side of the daemon's socket, spoken line by line as a shim speaks it (docs/daemon.md,
 * "The shim's protocol"), keeping the daemon's own notices ({@code placed}, {@code stopping}) that
 * a shim would not pass to its client: what the daemon tells a shim, seen without a shim.
 */
final class SocketPeer implements AutoCloseable {
  private final SocketChannel channel;
  private final OutputStream out;
  private final BufferedReader in;
  /** The placements the daemon's {@code placed} notices said, in order. */
  final List<String> placed = new CopyOnWriteArrayList<>();

  /** Connects to the daemon of {@code f} and says hello for {@code server}; fails unless it is answered {@code connected}. */
  SocketPeer(DaemonFixture f, String server) throws Exception {
    channel = SocketChannel.open(StandardProtocolFamily.UNIX);
    channel.connect(UnixDomainSocketAddress.of(f.home().resolve("cotenant.sock")));
    out = Channels.newOutputStream(channel);
    in = new BufferedReader(new InputStreamReader(Channels.newInputStream(channel), StandardCharsets.UTF_8));
    send("{\"cotenant\":\"connect\",\"version\":1,\"server\":\"" + server + "\",\"configs\":[\"" + DaemonFixture.CONFIG
        + "\"],\"pid\":" + ProcessHandle.current().pid() + "}");
    String hello = in.readLine();
    assertEquals("connected", DaemonFixture.JSON.readTree(String.valueOf(hello)).path("cotenant").asString(), hello);
  }

  void send(String line) throws Exception {
    out.write((line + "\n").getBytes(StandardCharsets.UTF_8));
    out.flush();
  }

  /** Reads until the answer to {@code id}, keeping the notices read meanwhile. */
  JsonNode answer(int id) throws Exception {
    String line;
    while ((line = in.readLine()) != null) {
      JsonNode n = DaemonFixture.JSON.readTree(line);
      if (n.has("cotenant")) {
        if (n.path("cotenant").asString().equals("placed")) {
          placed.add(n.path("placement").asString());
        }
        continue;
      }
      if (n.path("id").asInt(-1) == id && !n.has("method")) {
        return n;
      }
    }
    throw new AssertionError("the daemon closed the session before answering " + id);
  }

  /** Initializes as a 2025-11-25 client declaring no capability; returns the answer. */
  JsonNode initialize() throws Exception {
    send("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\","
        + "\"capabilities\":{},\"clientInfo\":{\"name\":\"peer\",\"version\":\"1\"}}}");
    JsonNode init = answer(1);
    send("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
    return init;
  }

  /** Calls {@code tool} with {@code arguments} (a JSON object) as request {@code id}; returns the answer. */
  JsonNode call(int id, String tool, String arguments) throws Exception {
    send("{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":{\"name\":\"" + tool
        + "\",\"arguments\":" + arguments + "}}");
    return answer(id);
  }

  @Override
  public void close() throws Exception {
    channel.close();
  }
}
