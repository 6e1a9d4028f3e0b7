package dev.cotenant.providers.session;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.cotenant.api.ServerDescription;
import dev.cotenant.api.Transport;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Why a process could not be started, from the error {@link ProcessBuilder#start} reports and a
 * look at the file the command names. Without a process: the errors are the JDK's messages. The
 * tests over real processes ({@code HostileServersTest}) show the same reasons end to end; these
 * kill the mutants of {@link StartFailure} that a narrowed mutation run left uncovered.
 */
class StartFailureTest {
  @TempDir Path dir;

  private static ServerDescription server(String command, Optional<Path> cwd) {
    return new ServerDescription("s", Transport.STDIO, command, List.of(), cwd.map(Path::toString), Map.of(),
        Optional.empty(), true);
  }

  private static IOException error(String command, int code, String text) {
    return new IOException("Cannot run program \"" + command + "\": error=" + code + ", " + text);
  }

  /** The reason for {@code command} failing as the kernel's ENOENT ({@code error=2}). */
  private static String noSuchFile(String command, Optional<Path> cwd) {
    return StartFailure.reason(server(command, cwd), error(command, 2, "No such file or directory"));
  }

  private Path script(String name, String text) throws IOException {
    Path p = dir.resolve(name);
    Files.write(p, text.getBytes(StandardCharsets.ISO_8859_1));
    return p;
  }

  @Test
  void aCommandThatIsNowhereIsNotFound() {
    String cmd = "cotenant-no-such-command-" + ProcessHandle.current().pid();
    assertEquals("command not found: " + cmd, noSuchFile(cmd, Optional.empty()));
    assertEquals("command not found: ./missing", noSuchFile("./missing", Optional.of(dir)));
  }

  @Test
  void aScriptWhoseInterpreterIsMissingNamesIt() throws IOException {
    Path p = script("run.sh", "#!/nonexistent/interpreter -x\necho\n");
    assertEquals("interpreter not found: /nonexistent/interpreter (named by " + p + ")", noSuchFile(p.toString(), Optional.empty()));
    // CRLF line endings: the \r is part of the interpreter's name, and shown.
    Path crlf = script("crlf.sh", "#!/bin/sh\r\necho\r\n");
    assertEquals("interpreter not found: /bin/sh\\r (named by " + crlf + ")", noSuchFile("./crlf.sh", Optional.of(dir)));
    // A name no path can hold is not found either (exists, line 96 at the time, uncovered before).
    Path nul = script("nul.sh", "#!/bin/s\u0000h\n");
    assertEquals("interpreter not found: /bin/s\\u0000h (named by " + nul + ")", noSuchFile(nul.toString(), Optional.empty()));
  }

  @Test
  void aFileWhoseInterpreterExistsCannotRunForALoader() throws IOException {
    Path sh = script("ok.sh", "#!/bin/sh\necho\n");
    assertEquals("cannot run " + sh + ": its interpreter or loader is missing", noSuchFile(sh.toString(), Optional.empty()));
    Path binary = script("a.out", "\u007fELF....");
    assertEquals("cannot run " + binary + ": its interpreter or loader is missing", noSuchFile(binary.toString(), Optional.empty()));
    // A directory is not a regular file: not found.
    assertEquals("command not found: " + dir, noSuchFile(dir.toString(), Optional.empty()));
  }

  @Test
  void aFileThatMayNotRunIsNotExecutableByItsAbsolutePath() throws IOException {
    script("tool", "data");
    assertEquals("not executable: " + dir.resolve("tool"),
        StartFailure.reason(server("./tool", Optional.of(dir)), error("./tool", 13, "Permission denied")));
    assertEquals("not executable: ./gone",
        StartFailure.reason(server("./gone", Optional.of(dir)), error("./gone", 13, "Permission denied")));
  }

  @Test
  void anyOtherErrorIsQuotedFromItsCode() {
    assertEquals("could not start x: error=24, Too many open files",
        StartFailure.reason(server("x", Optional.empty()), error("x", 24, "Too many open files")));
    assertEquals("could not start x: out of\\nmemory",
        StartFailure.reason(server("x", Optional.empty()), new IOException("out of\nmemory")));
  }

  @Test
  void aBareNameIsFoundOnThePath() {
    Optional<Path> sh = StartFailure.locate(server("sh", Optional.empty()));
    assertEquals(true, sh.isPresent() && sh.get().isAbsolute() && sh.get().getFileName().toString().equals("sh"), sh::toString);
    assertEquals(Optional.empty(), StartFailure.locate(server("cotenant-no-such-command", Optional.empty())));
    assertEquals(Optional.empty(), StartFailure.locate(server("a\u0000b/c", Optional.empty())));
  }

  @Test
  void theInterpreterIsTheFirstWordOfTheHashBangLine() throws IOException {
    assertEquals(Optional.of("/usr/bin/env"), StartFailure.interpreter(script("a", "#! \t/usr/bin/env node --flag\n")));
    assertEquals(Optional.of("/bin/bash"), StartFailure.interpreter(script("b", "#!/bin/bash")));
    assertEquals(Optional.of("/bin/sh"), StartFailure.interpreter(script("c", "#!/bin/sh\tx\n")));
    assertEquals(Optional.empty(), StartFailure.interpreter(script("d", "#!\n")));
    assertEquals(Optional.empty(), StartFailure.interpreter(script("e", "echo #!/bin/sh\n")));
    assertEquals(Optional.empty(), StartFailure.interpreter(dir.resolve("missing")));
  }
}
