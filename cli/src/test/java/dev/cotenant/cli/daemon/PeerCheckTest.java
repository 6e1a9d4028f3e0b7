package dev.cotenant.cli.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.gateway.config.ConfigException;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Who the daemon's sockets admit ({@link PeerCheck}, which {@code cotenant.sock} and
 * {@code api.sock} both call on every connection), and which client configuration files it
 * starts servers from. A peer is started inside the real bubblewrap with its own user and mount
 * namespaces and the socket's directory bound in, so it can connect: it is refused.
 */
class PeerCheckTest {
  @TempDir Path dir;

  private static String bwrap() {
    for (String d : System.getenv().getOrDefault("PATH", "").split(":")) {
      if (!d.isEmpty() && Files.isExecutable(Path.of(d, "bwrap"))) {
        return Path.of(d, "bwrap").toString();
      }
    }
    throw new AssertionError("no bwrap on PATH (.ci/run installs Debian's bubblewrap)");
  }

  /** A connection accepted from a client process, which runs until this is closed. */
  private record Peer(SocketChannel channel, Process process) implements AutoCloseable {
    @Override
    public void close() throws Exception {
      channel.close();
      process.getOutputStream().close();
      if (!process.waitFor(60, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    }
  }

  /** Accepts the connection {@code client} makes to a socket in {@link #dir}. */
  private Peer acceptFrom(List<String> client) throws Exception {
    Path sock = dir.resolve("cotenant.sock");
    try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
      server.bind(UnixDomainSocketAddress.of(sock));
      Process p = new ProcessBuilder(client).redirectErrorStream(true).start();
      return new Peer(server.accept(), p);
    }
  }

  private List<String> python(String sock) {
    return List.of("python3", "-c", "import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]);"
        + " sys.stdin.read()", sock);
  }

  /**
   * Kills the mutants that check the peer's user alone (bubblewrap maps the same user), and that
   * let a peer through when its namespaces differ.
   */
  @Test
  void aPeerInAnotherUserAndMountNamespaceIsRefusedAndOneOfTheDaemonsOwnIsAdmitted() throws Exception {
    String sock = dir.resolve("cotenant.sock").toString();
    try (Peer peer = acceptFrom(List.of(bwrap(), "--unshare-user", "--ro-bind", "/", "/", "--dev", "/dev",
        "--proc", "/proc", "--bind", dir.toString(), dir.toString(), "--", "python3", "-c",
        "import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); sys.stdin.read()", sock))) {
      SocketChannel sandboxed = peer.channel();
      Optional<String> why = PeerCheck.refusal(sandboxed);
      assertTrue(why.isPresent(), "a sandboxed peer was admitted");
      assertTrue(why.get().contains("in another user namespace"), why.get());
      assertThrows(IOException.class, () -> PeerCheck.admit(sandboxed, sock));
      assertFalse(sandboxed.isOpen(), "the refused connection is closed");
    }
    Files.delete(dir.resolve("cotenant.sock"));
    try (Peer peer = acceptFrom(python(sock))) {
      SocketChannel own = peer.channel();
      assertEquals(Optional.empty(), PeerCheck.refusal(own));
      PeerCheck.admit(own, sock);
      assertTrue(own.isOpen());
    }
  }

  /** Kills the mutant that admits a peer whose namespaces cannot be read. */
  @Test
  void aPeerWhoseNamespacesCannotBeReadIsRefused() throws Exception {
    Path proc = Files.createDirectories(dir.resolve("proc/self/ns"));
    Files.createSymbolicLink(proc.resolve("user"), Path.of("user:[1]"));
    Files.createSymbolicLink(proc.resolve("mnt"), Path.of("mnt:[2]"));
    Optional<String> why = PeerCheck.namespaces(4242, dir.resolve("proc"));
    assertEquals(Optional.of("a connection from process 4242, whose user namespace cannot be read"), why);
    Path peer = Files.createDirectories(dir.resolve("proc/4242/ns"));
    Files.createSymbolicLink(peer.resolve("user"), Path.of("user:[1]"));
    Files.createSymbolicLink(peer.resolve("mnt"), Path.of("mnt:[3]"));
    assertTrue(PeerCheck.namespaces(4242, dir.resolve("proc")).orElseThrow().contains("in another mnt namespace"));
  }

  /**
   * Kills the mutants that start servers from any file a hello names: one writable by every user,
   * or not a regular file.
   */
  @Test
  void aConfigurationFileWritableByEveryUserOrNotARegularFileIsRefused() throws Exception {
    Path ok = Files.writeString(dir.resolve("ok.json"), "{\"mcpServers\":{}}");
    Files.setPosixFilePermissions(ok, PosixFilePermissions.fromString("rw-r--r--"));
    ServerDirectory.checkTrusted(ok);
    Path open = Files.writeString(dir.resolve("open.json"), "{\"mcpServers\":{}}");
    Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rw-rw-rw-"));
    ConfigException e = assertThrows(ConfigException.class, () -> ServerDirectory.checkTrusted(open));
    assertTrue(e.problem().startsWith("is writable by every user"), e.problem());
    ConfigException d = assertThrows(ConfigException.class, () -> ServerDirectory.checkTrusted(dir));
    assertTrue(d.problem().startsWith("is not a regular file"), d.problem());
  }
}
