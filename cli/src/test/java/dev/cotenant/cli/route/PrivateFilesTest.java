package dev.cotenant.cli.route;

import dev.cotenant.cli.daemon.CotenantHome;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The rule for the home's directories and for what a routed entry may run. */
class PrivateFilesTest {
  @TempDir Path tmp;

  private static String mode(Path p) throws IOException {
    return PosixFilePermissions.toString(Files.getPosixFilePermissions(p));
  }

  /** Missing directories are made 0700, each of them. Mutant: {@code createDirectories} with the umask's mode. */
  @Test
  void missingDirectoriesAreMadeOwnerOnly() throws IOException {
    Path lib = tmp.resolve("home/lib");
    PrivateFiles.directory(lib);
    assertEquals("rwx------", mode(tmp.resolve("home")));
    assertEquals("rwx------", mode(lib));
    assertEquals("rwx------", mode(tmp), "an existing parent is left as it is");
  }

  /** A {@code lib/} of the user's open to others is tightened. Mutant: an existing directory left as it is. */
  @Test
  void anOpenDirectoryIsTightened() throws IOException {
    Path home = Files.createDirectory(tmp.resolve("home"));
    Files.setPosixFilePermissions(home, PosixFilePermissions.fromString("rwxrwxr-x"));
    PrivateFiles.directory(home);
    assertEquals("rwx------", mode(home));
  }

  /** A file others may write, or one in a directory others may write, is not trusted; a sticky directory is. */
  @Test
  void aFileOthersCouldHaveWrittenIsNotTrusted() throws IOException {
    Path dir = Files.createDirectory(tmp.resolve("lib"));
    Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwx------"));
    Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
    Path jar = Files.writeString(dir.resolve("cotenant.jar"), "jar");
    Files.setPosixFilePermissions(jar, PosixFilePermissions.fromString("rw-------"));
    assertEquals(Optional.empty(), PrivateFiles.whyUntrusted(jar));

    Files.setPosixFilePermissions(jar, PosixFilePermissions.fromString("rw-rw-r--"));
    assertEquals(Optional.of(jar + " is writable by others (mode 0664)"), PrivateFiles.whyUntrusted(jar));

    Files.setPosixFilePermissions(jar, PosixFilePermissions.fromString("rw-------"));
    Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxrwxrwx"));
    assertEquals(Optional.of("its directory " + dir.toRealPath() + " is writable by others (mode 0777)"),
        PrivateFiles.whyUntrusted(jar));

    Files.setAttribute(dir, "unix:mode", 01777);
    assertEquals(Optional.empty(), PrivateFiles.whyUntrusted(jar), "a sticky directory: no one else may replace it");

    Path link = Files.createSymbolicLink(tmp.resolve("link.jar"), jar);
    assertEquals(Optional.of(link + " is not a regular file"), PrivateFiles.whyUntrusted(link));
  }

  /** A token others may read stops the daemon; one of the user's alone does not. Mutant: only write bits checked. */
  @Test
  void aTokenOthersMayReadIsRefused() throws IOException {
    CotenantHome home = new CotenantHome(tmp.resolve("home"));
    home.ensure();
    Path token = Files.writeString(home.token(), "0".repeat(64));
    Files.setPosixFilePermissions(token, PosixFilePermissions.fromString("rw-------"));
    home.checkOwnership();
    Files.setPosixFilePermissions(token, PosixFilePermissions.fromString("rw-r--r--"));
    IOException e = assertThrows(IOException.class, home::checkOwnership);
    assertTrue(e.getMessage().startsWith(token + " may be read by others (rw-r--r--): refusing to start"), e.getMessage());
    assertTrue(e.getMessage().endsWith("(chmod 600 " + token.toRealPath() + ")"), e.getMessage());
  }
}
