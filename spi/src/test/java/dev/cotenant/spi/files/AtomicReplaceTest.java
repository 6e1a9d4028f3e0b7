package dev.cotenant.spi.files;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link AtomicFiles#replace}, the one way a file is replaced: the content replaced, the
 * permissions asked for held from the temp file's creation on, and no temp file left by a write
 * that failed.
 */
class AtomicReplaceTest {
  @TempDir Path dir;

  private List<String> namesIn(Path d) throws IOException {
    try (Stream<Path> s = Files.list(d)) {
      return s.map(p -> p.getFileName().toString()).sorted().collect(Collectors.toList());
    }
  }

  /** The one temp file being written beside {@code target}. */
  private Path tempOf(Path target) throws IOException {
    try (Stream<Path> s = Files.list(dir)) {
      List<Path> temps = s.filter(p -> p.getFileName().toString().startsWith(AtomicFiles.tempPrefix(target))).toList();
      assertEquals(1, temps.size(), "one temp file beside the target: " + temps);
      return temps.get(0);
    }
  }

  private static String mode(Path p) throws IOException {
    return PosixFilePermissions.toString(Files.getPosixFilePermissions(p));
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void theContentIsReplacedAndNothingElseIsLeft() throws IOException {
    Path target = Files.writeString(dir.resolve("daemon.json"), "{\"pid\": 1}");
    AtomicFiles.replace(target, utf8("{\"pid\": 2}"), null);
    assertEquals("{\"pid\": 2}", Files.readString(target));
    AtomicFiles.replace(target, AtomicFiles.OWNER_ONLY, out -> {
      out.write(utf8("{\"pid\""));
      out.write(utf8(": 3}"));
    });
    assertEquals("{\"pid\": 3}", Files.readString(target), "what the content writer wrote, in order");
    assertEquals(List.of("daemon.json"), namesIn(dir));
  }

  @Test
  void anOwnerOnlyFileIsOwnerOnlyFromItsCreationOn() throws IOException {
    // The target was world-readable; its replacement is not, and the temp file holding the new
    // content never was, while it was written or after it was synced.
    Path target = Files.writeString(dir.resolve("api-token"), "old");
    Files.setPosixFilePermissions(target, PosixFilePermissions.fromString("rw-r--r--"));
    List<String> seen = new ArrayList<>();
    AtomicFiles.replace(target, AtomicFiles.OWNER_ONLY, out -> {
      seen.add(mode(tempOf(target)));
      out.write(utf8("secret"));
      out.flush();
      seen.add(mode(tempOf(target)));
    }, () -> seen.add(mode(tempOf(target))));
    assertEquals(List.of("rw-------", "rw-------", "rw-------"), seen);
    assertEquals("rw-------", mode(target));
    assertEquals("secret", Files.readString(target));
  }

  @Test
  void anExecutableGetsExactlyItsBitsBeforeItIsInPlace() throws IOException {
    Path target = dir.resolve("cotenant-shim-0123456789abcdef");
    List<String> seen = new ArrayList<>();
    AtomicFiles.replace(target, AtomicFiles.EXECUTABLE, out -> out.write(new byte[] {0x7f, 'E', 'L', 'F'}),
        () -> seen.add(mode(tempOf(target))));
    assertEquals(List.of("rwxr-xr-x"), seen);
    assertEquals("rwxr-xr-x", mode(target));
  }

  @Test
  void withoutAModeTheFileGetsWhatANewFileGets() throws IOException {
    Path plain = Files.createFile(dir.resolve("plain"));
    Path target = dir.resolve("daemon.json");
    AtomicFiles.replace(target, utf8("{}"), null);
    assertEquals(mode(plain), mode(target), "the umask's default, as Files.write would create it");
  }

  /**
   * Replaces {@code name}, which holds {@code old}, through {@code content} and
   * {@code beforeReplace}, one of which throws {@code failure}: the failure is what the caller
   * sees, the target still holds {@code old}, and no temp file is left beside it.
   */
  private void failedReplaceLeavesTheTarget(String name, String old, AtomicFiles.Content content,
      AtomicFiles.BeforeReplace beforeReplace, IOException failure) throws IOException {
    Path target = Files.writeString(dir.resolve(name), old);
    IOException thrown = assertThrows(IOException.class,
        () -> AtomicFiles.replace(target, AtomicFiles.OWNER_ONLY, content, beforeReplace));
    assertSame(failure, thrown);
    assertEquals(old, Files.readString(target));
    assertEquals(List.of(name), namesIn(dir));
  }

  @Test
  void aContentWriterThatFailsLeavesTheTargetAndNoTempFile() throws IOException {
    IOException broken = new IOException("the source jar vanished");
    failedReplaceLeavesTheTarget("installed.jar", "the old jar", out -> {
      out.write(utf8("half a j"));
      throw broken;
    }, () -> {}, broken);
  }

  @Test
  void aCheckThatRefusesBeforeTheRenameLeavesTheTargetAndNoTempFile() throws IOException {
    IOException changed = new IOException("changed while the new text was being written");
    failedReplaceLeavesTheTarget("mcp.json", "{\"edited\": \"meanwhile\"}", out -> out.write(utf8("{}")), () -> {
      throw changed;
    }, changed);
  }

  @Test
  void aMissingDirectoryIsAnErrorOfReplaceAndLeavesNothing() throws IOException {
    Path target = dir.resolve("lib").resolve("cotenant.jar");
    assertThrows(IOException.class, () -> AtomicFiles.replace(target, utf8("jar"), null));
    assertEquals(List.of(), namesIn(dir), "replace does not create directories; write does");
  }
}
