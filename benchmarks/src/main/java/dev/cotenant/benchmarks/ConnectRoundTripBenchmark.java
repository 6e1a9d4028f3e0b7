package dev.cotenant.benchmarks;

import dev.cotenant.api.ServerDescription;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import tools.jackson.databind.JsonNode;

/**
 * The round trip of one {@code tools/call} through {@code cotenant connect} (the client writes to
 * the shim's stdin; the shim relays over the daemon's Unix socket; the daemon hands it to the
 * backend's stdin; and the answer comes back the same way) against the same call on a stdio
 * session with the server process itself, as a client without Cotenant has.
 *
 * <p>The server is {@link EchoServer} (a JVM without a JSON library) in both cases, started with
 * the same command: directly by the benchmark, or by the daemon from a configuration naming it.
 * The daemon ({@code cotenant serve --no-http}) runs in a home of its own under {@code /tmp}; the
 * shim runs with the JVM options a routed entry carries. With {@code placement=shared} the server
 * is forced shared ({@code --set cotenant.sharing.forced=echo}), so the call also passes the
 * multiplexer; with {@code dedicated} nothing is recorded or forced and the session gets a
 * backend of its own. The setup checks the placement with {@code cotenant status --json}. A
 * backend's session has no bound on the messages or bytes it writes over its life
 * ({@code cotenant.session.*}), so a run of any length is served by one backend.
 *
 * <p>Each operation writes one request line and reads lines until its answer (which must carry
 * the echoed text). Sample-time mode: JMH reports the median as {@code p0.50} and {@code p0.99}.
 * The teardown closes the shim's (or the server's) standard input, which must make it exit, sends
 * the daemon SIGTERM and fails unless the daemon and every process below it are gone.
 *
 * <p>Usage, from the repository root after {@code mvn -B -o -q -DskipTests package}:
 * {@code java -jar benchmarks/target/benchmarks.jar ConnectRoundTripBenchmark}; elsewhere add
 * {@code -jvmArgsAppend -Dcotenant.jar=PATH/cli/target/cotenant.jar}.
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 5)
@Measurement(iterations = 5, time = 5)
public class ConnectRoundTripBenchmark {
  static final String SERVER = "echo";
  static final Duration BOUND = Duration.ofSeconds(60);

  /** One {@code tools/call} on {@code peer}, its answer checked. */
  static String call(StdioPeer peer) throws IOException {
    long id = peer.nextId();
    peer.send("{\"jsonrpc\":\"2.0\",\"id\":" + id
        + ",\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"text\":\"hello\"}}}");
    String answer = peer.answer(id);
    if (!answer.contains("\\\"hello\\\"") || answer.contains("\"error\"")) {
      throw new IllegalStateException(peer.label + " answered " + answer);
    }
    return answer;
  }

  /** The command that starts {@link EchoServer}, as the daemon's configuration and the direct case both run it. */
  static ServerDescription echo() {
    ServerDescription d = EchoServer.description(SERVER);
    List<String> args = new ArrayList<>(d.args());
    int cp = args.indexOf("-cp") + 1;
    args.set(cp, Path.of(args.get(cp)).toAbsolutePath().toString());
    return new ServerDescription(d.name(), d.transport(), d.command(), args, d.cwd(), d.env(), d.url(), d.enabled());
  }

  /** A daemon serving {@link EchoServer} and one initialized shim of it. */
  @State(Scope.Thread)
  public static class Connected {
    @Param({"shared", "dedicated"})
    public String placement;

    Path home;
    DaemonProcess daemon;
    StdioPeer shim;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
      CotenantJar cotenant = CotenantJar.locate();
      home = DaemonProcess.newHome("ctrt");
      ServerDescription echo = echo();
      Map<String, Object> entry = new LinkedHashMap<>();
      entry.put("command", echo.command());
      entry.put("args", echo.args());
      Path config = home.resolve("mcp.json");
      Files.write(config, DaemonProcess.JSON.writeValueAsBytes(Map.of("mcpServers", Map.of(SERVER, entry))));
      List<String> args = new ArrayList<>(List.of("--no-http"));
      if (placement.equals("shared")) {
        args.addAll(List.of("--set", "cotenant.sharing.forced=" + SERVER));
      } else if (!placement.equals("dedicated")) {
        throw new IllegalArgumentException("placement is shared or dedicated, not " + placement);
      }
      args.add(config.toString());
      daemon = DaemonProcess.start(cotenant, home, home, args);
      shim = StdioPeer.start("cotenant connect " + SERVER, cotenant.shim(SERVER, config), home,
          DaemonProcess.env(home), ProcessBuilder.Redirect.appendTo(home.resolve("shim.err").toFile()));
      shim.initialize("bench-connect", EchoServer.PROTOCOL_VERSION, BOUND);
      call(shim);
      JsonNode backends = daemon.status().path("backends");
      if (backends.size() != 1 || !placement.equals(backends.get(0).path("placement").asString())) {
        throw new IllegalStateException("expected one " + placement + " backend of " + SERVER + ", the daemon has "
            + backends);
      }
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
      try {
        if (shim != null && !shim.closeAndAwait(BOUND)) {
          throw new IllegalStateException("the shim did not exit when its input closed: killed");
        }
        if (shim != null && shim.process.exitValue() != 0) {
          throw new IllegalStateException("the shim exited with " + shim.process.exitValue());
        }
        if (daemon != null) {
          daemon.stopExpectingZero(BOUND);
        }
      } finally {
        if (daemon != null) {
          daemon.close();
        }
        DaemonProcess.deleteTree(home);
      }
    }
  }

  /** The same server started directly and initialized. */
  @State(Scope.Thread)
  public static class Direct {
    StdioPeer server;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
      ServerDescription echo = echo();
      List<String> cmd = new ArrayList<>(List.of(echo.command()));
      cmd.addAll(echo.args());
      server = StdioPeer.start(SERVER, cmd, Path.of("").toAbsolutePath(), Map.of(), ProcessBuilder.Redirect.DISCARD);
      server.initialize("bench-direct", EchoServer.PROTOCOL_VERSION, BOUND);
      call(server);
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
      long pid = server.pid();
      if (!server.closeAndAwait(BOUND)) {
        throw new IllegalStateException("the server did not exit when its input closed: killed");
      }
      if (ProcStats.alive(pid)) {
        throw new IllegalStateException("the server " + pid + " is still alive");
      }
    }
  }

  @Benchmark
  public String throughConnect(Connected s) throws IOException {
    return call(s.shim);
  }

  @Benchmark
  public String direct(Direct s) throws IOException {
    return call(s.server);
  }
}
