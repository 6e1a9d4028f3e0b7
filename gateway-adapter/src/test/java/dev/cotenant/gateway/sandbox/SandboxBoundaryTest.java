package dev.cotenant.gateway.sandbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.api.ServerDescription;
import dev.cotenant.api.Transport;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A hostile server started exactly as a probe starts it (the launch {@link SandboxLayout}
 * prepares, run by the real bubblewrap) tries to reach the host through Unix sockets and the
 * environment: sockets listening in a directory outside the sandbox's scratch (one beside a
 * regular file, one in a directory of sockets only), the daemon's {@code cotenant.sock} and
 * {@code api.sock} in a Cotenant home, a bus in the user's runtime directory and an abstract
 * socket; it reads the home's {@code api-token}, and prints its environment. The same server run
 * outside the sandbox reaches every one of them, so each refusal is the sandbox's doing.
 */
class SandboxBoundaryTest {
  private static final JsonMapper JSON = JsonMapper.builder().build();

  @TempDir Path temp;
  @TempDir Path outside;
  @TempDir Path serverDir;

  private final List<ServerSocketChannel> listeners = new ArrayList<>();
  private final List<Process> started = new ArrayList<>();
  private Path cotenantHome;
  private Path runtimeDir;
  private String abstractName;

  /** The real bubblewrap; this test needs it, as the sandbox ITs do. */
  static String bwrap() {
    Optional<String> exe = Bubblewrap.onPath("bwrap", System.getenv().getOrDefault("PATH", ""));
    assertTrue(exe.isPresent(), "no bwrap on PATH (.ci/run installs Debian's bubblewrap)");
    return exe.get();
  }

  @BeforeEach
  void listen() throws Exception {
    Files.createDirectories(outside.resolve("mixed"));
    Files.writeString(outside.resolve("mixed/notes.txt"), "a regular file beside the socket\n");
    listen(outside.resolve("mixed/agent.sock"));
    Files.createDirectories(outside.resolve("only"));
    listen(outside.resolve("only/bus.sock"));
    cotenantHome = Files.createDirectories(outside.resolve("cotenant-home"));
    listen(cotenantHome.resolve("cotenant.sock"));
    listen(cotenantHome.resolve("api.sock"));
    Files.writeString(cotenantHome.resolve("api-token"), "secret-token\n");
    Files.createDirectories(cotenantHome.resolve("records"));
    Files.writeString(cotenantHome.resolve("records/ledger.jsonl"), "{}\n");
    runtimeDir = Files.createDirectories(outside.resolve("run-user"));
    listen(runtimeDir.resolve("bus"));
    abstractName = "cotenant-boundary-test-" + UUID.randomUUID();
    Process abs = new ProcessBuilder("python3", "-c", "import socket,sys\n"
        + "s=socket.socket(socket.AF_UNIX); s.bind('\\0'+sys.argv[1]); s.listen(16); print('ready', flush=True)\n"
        + "sys.stdin.read()\n", abstractName).redirectErrorStream(true).start();
    started.add(abs);
    assertEquals("ready", new BufferedReader(new InputStreamReader(abs.getInputStream(), StandardCharsets.UTF_8))
        .readLine());
    Path script = serverDir.resolve("hostile.py");
    try (InputStream in = SandboxBoundaryTest.class.getResourceAsStream("hostile.py")) {
      Files.write(script, in.readAllBytes());
    }
    Files.write(serverDir.resolve("targets.txt"), targets());
    Files.writeString(serverDir.resolve("reads.txt"), cotenantHome.resolve("api-token") + "\n");
  }

  private void listen(Path at) throws IOException {
    ServerSocketChannel ch = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
    ch.bind(UnixDomainSocketAddress.of(at), 16);
    ch.configureBlocking(false);
    listeners.add(ch);
  }

  private List<String> targets() {
    List<String> t = new ArrayList<>();
    for (ServerSocketChannel l : listeners) {
      try {
        t.add(((UnixDomainSocketAddress) l.getLocalAddress()).getPath().toString());
      } catch (IOException e) {
        throw new AssertionError(e);
      }
    }
    t.add("@" + abstractName);
    return t;
  }

  @AfterEach
  void close() throws Exception {
    for (ServerSocketChannel l : listeners) {
      l.close();
    }
    for (Process p : started) {
      p.descendants().forEach(ProcessHandle::destroyForcibly);
      p.destroyForcibly();
      p.waitFor(30, TimeUnit.SECONDS);
    }
  }

  /** How many connections the listeners saw. */
  private int accepted() throws IOException {
    int n = 0;
    for (ServerSocketChannel l : listeners) {
      while (l.accept() != null) {
        n++;
      }
    }
    return n;
  }

  private HostBoundary boundary(Map<String, String> inherited) {
    return new HostBoundary(List.of(cotenantHome, runtimeDir), inherited);
  }

  private ServerDescription hostile(Map<String, String> env) {
    return new ServerDescription("hostile", Transport.STDIO, "python3", List.of(serverDir.resolve("hostile.py").toString()),
        Optional.empty(), env, Optional.empty(), true);
  }

  /** Runs {@code server} as the session transport does: its env on top of {@code inherited}. */
  private JsonNode run(ServerDescription server, Map<String, String> inherited) throws Exception {
    List<String> command = new ArrayList<>(List.of(server.command()));
    command.addAll(server.args());
    ProcessBuilder pb = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT);
    pb.environment().putAll(inherited);
    pb.environment().putAll(server.env());
    Process p = pb.start();
    started.add(p);
    p.getOutputStream().close();
    String line = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8)).readLine();
    assertNotNull(line, "the server printed nothing: " + command);
    assertTrue(p.waitFor(60, TimeUnit.SECONDS));
    return JSON.readTree(line);
  }

  private static List<String> strings(JsonNode array) {
    List<String> out = new ArrayList<>();
    array.forEach(n -> out.add(n.asString()));
    return out;
  }

  /**
   * Kills the mutants that mount no tmpfs over the hidden directories, no {@code /dev/null} or
   * tmpfs over the other sockets, or drop {@code --unshare-net} (the abstract socket).
   */
  @Test
  void aHostileServerInTheSandboxConnectsToNoHostSocketAndReadsNoToken() throws Exception {
    JsonNode unsandboxed = run(hostile(Map.of()), Map.of());
    assertEquals(targets(), strings(unsandboxed.get("connected")), "outside the sandbox every socket answers");
    assertEquals(List.of(cotenantHome.resolve("api-token").toString()), strings(unsandboxed.get("read")));
    assertEquals(listeners.size(), accepted());

    SandboxLayout.Launch launch = new SandboxLayout(bwrap(), false, temp, outside, boundary(Map.of()))
        .prepare(hostile(Map.of()), List.of());
    try {
      JsonNode inside = run(launch.server(), Map.of());
      assertEquals(List.of(), strings(inside.get("connected")), inside.toString());
      assertEquals(targets().size(), inside.get("refused").size(), inside.toString());
      assertEquals(List.of(), strings(inside.get("read")), "the api-token is hidden");
      assertEquals(0, accepted(), "no listener saw a connection");
    } finally {
      SandboxLayout.delete(launch.root());
    }
    assertEquals("secret-token\n", Files.readString(cotenantHome.resolve("api-token")));
    assertEquals("{}\n", Files.readString(cotenantHome.resolve("records/ledger.jsonl")), "the ledger is untouched");
    assertTrue(HostBoundary.isSocket(cotenantHome.resolve("cotenant.sock")), "the daemon's socket is still there");
  }

  /**
   * Kills the mutants that pass every inherited entry, that drop one the configuration names, or
   * that filter by name only (a value naming a socket).
   */
  @Test
  void entriesPointingAtSocketsOrHoldingCredentialsAreNotInheritedUnlessTheConfigurationNamesThem()
      throws Exception {
    String agent = outside.resolve("mixed/agent.sock").toString();
    Map<String, String> inherited = new HashMap<>();
    inherited.put("SSH_AUTH_SOCK", agent);
    inherited.put("DBUS_SESSION_BUS_ADDRESS", "unix:path=" + runtimeDir.resolve("bus"));
    inherited.put("XDG_RUNTIME_DIR", runtimeDir.toString());
    inherited.put("AWS_SECRET_ACCESS_KEY", "aws-secret");
    inherited.put("OPENAI_API_KEY", "sk-secret");
    inherited.put("NPM_TOKEN", "npm-secret");
    inherited.put("PLAIN_SETTING", "kept");
    inherited.put("WHERE_THE_AGENT_IS", agent);
    Map<String, String> configured = Map.of("GITHUB_TOKEN", "configured", "ANTHROPIC_API_KEY", "configured too");
    inherited.put("GITHUB_TOKEN", "inherited");

    SandboxLayout.Launch launch = new SandboxLayout(bwrap(), false, temp, outside, boundary(inherited))
        .prepare(hostile(configured), List.of());
    try {
      JsonNode env = run(launch.server(), inherited).get("env");
      for (String gone : List.of("SSH_AUTH_SOCK", "DBUS_SESSION_BUS_ADDRESS", "XDG_RUNTIME_DIR", "AWS_SECRET_ACCESS_KEY",
          "OPENAI_API_KEY", "NPM_TOKEN", "WHERE_THE_AGENT_IS")) {
        assertFalse(env.has(gone), gone + " was inherited: " + env);
      }
      assertEquals("kept", env.get("PLAIN_SETTING").asString());
      assertEquals("configured", env.get("GITHUB_TOKEN").asString(), "what the configuration names is passed");
      assertEquals("configured too", env.get("ANTHROPIC_API_KEY").asString());
    } finally {
      SandboxLayout.delete(launch.root());
    }
  }

  /** Kills the mutant that shows a configured path inside the Cotenant home (a copy of it, token and all). */
  @Test
  void aPathInTheCotenantHomeNamedByTheConfigurationStaysHidden() throws Exception {
    ServerDescription naming = hostile(Map.of("STATE", cotenantHome.toString()));
    SandboxLayout.Launch launch = new SandboxLayout(bwrap(), false, temp, outside, boundary(Map.of()))
        .prepare(naming, List.of());
    try {
      assertTrue(launch.notes().contains(cotenantHome + ": hidden (the sandbox shows an empty directory there)"),
          launch.notes().toString());
      JsonNode inside = run(launch.server(), Map.of());
      assertEquals(List.of(), strings(inside.get("read")), inside.toString());
      assertEquals(List.of(), strings(inside.get("connected")), inside.toString());
    } finally {
      SandboxLayout.delete(launch.root());
    }
  }
}
