package dev.cotenant.gateway.sandbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Which host sockets the sandbox masks. */
class HostBoundaryTest {
  @TempDir Path tmp;

  /**
   * A socket in a directory of another user's that no one else may enter (a PostgreSQL server's,
   * run as its own user) cannot be reached from the sandbox, so it is not masked: bubblewrap
   * could not make its mount point there and the sandbox would not start. A socket of this
   * user's is masked. Needs root (to give a directory to another user); reported skipped
   * otherwise. Mutant: every visible socket masked.
   */
  @Test
  void aSocketInAnotherUsersClosedDirectoryIsNotMasked() throws Exception {
    Assumptions.assumeTrue(System.getProperty("user.name").equals("root"), "not root: no directory of another user's");
    Path theirs = Files.createDirectory(tmp.resolve("theirs"));
    Path mine = Files.createDirectory(tmp.resolve("mine"));
    Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwxr-xr-x"));
    try (ServerSocketChannel a = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        ServerSocketChannel b = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
      a.bind(UnixDomainSocketAddress.of(theirs.resolve("s.sock")));
      b.bind(UnixDomainSocketAddress.of(mine.resolve("s.sock")));
      Files.setOwner(theirs, theirs.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName("nobody"));
      Files.setPosixFilePermissions(theirs, PosixFilePermissions.fromString("rwx------"));
      assertFalse(HostBoundary.reachable(theirs.resolve("s.sock")));
      assertTrue(HostBoundary.reachable(mine.resolve("s.sock")));
      HostBoundary boundary = new HostBoundary(List.of(), Map.of());
      List<String> args = boundary.maskSockets(p -> p.startsWith(tmp), List.of());
      assertFalse(args.contains(theirs.resolve("s.sock").toString()), args.toString());
      assertFalse(args.contains(theirs.toString()), args.toString());
      assertEquals(List.of("--tmpfs", mine.toString()), args.subList(args.indexOf(mine.toString()) - 1,
          args.indexOf(mine.toString()) + 1), args.toString());
    }
  }
}
