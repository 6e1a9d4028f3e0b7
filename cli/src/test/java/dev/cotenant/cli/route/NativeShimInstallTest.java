package dev.cotenant.cli.route;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link NativeShim#install}: the binary in place whole, 0755, and nothing else beside it. */
class NativeShimInstallTest {
  @TempDir Path home;

  private static final byte[] BINARY = {0x7f, 'E', 'L', 'F', 2, 1, 1, 0};

  private List<String> namesIn(Path dir) throws IOException {
    try (Stream<Path> s = Files.list(dir)) {
      return s.map(p -> p.getFileName().toString()).sorted().toList();
    }
  }

  @Test
  void theShimIsInstalledWholeAndExecutableUnderItsContentName() throws IOException {
    Path lib = home.resolve("lib");
    Path installed = NativeShim.install(lib, BINARY);
    assertEquals(lib.resolve(NativeShim.fileName(BINARY)), installed);
    assertArrayEquals(BINARY, Files.readAllBytes(installed));
    assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(installed)));
    assertEquals(List.of(installed.getFileName().toString()), namesIn(lib), "no temp file left");
  }

  @Test
  void aCopyThatIsNotExecutableIsReplacedByOneThatIs() throws IOException {
    Path lib = Files.createDirectories(home.resolve("lib"));
    Path stale = Files.write(lib.resolve(NativeShim.fileName(BINARY)), BINARY);
    Files.setPosixFilePermissions(stale, PosixFilePermissions.fromString("rw-------"));
    Path installed = NativeShim.install(lib, BINARY);
    assertEquals(stale, installed);
    assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(installed)));
    assertEquals(List.of(installed.getFileName().toString()), namesIn(lib));
  }

  /** A copy others may write is written again, 0700, in a {@code lib/} made 0700. Mutant: content and mode alone checked. */
  @Test
  void aCopyOthersMayWriteIsReplaced() throws IOException {
    Path lib = Files.createDirectories(home.resolve("lib"));
    Files.setPosixFilePermissions(lib, PosixFilePermissions.fromString("rwxrwxr-x"));
    Path stale = Files.write(lib.resolve(NativeShim.fileName(BINARY)), BINARY);
    Files.setPosixFilePermissions(stale, PosixFilePermissions.fromString("rwxrwxrwx"));
    Path installed = NativeShim.install(lib, BINARY);
    assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(installed)));
    assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(lib)));
    assertArrayEquals(BINARY, Files.readAllBytes(installed));
  }
}
