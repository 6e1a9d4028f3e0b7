package dev.cotenant.providers.session;

import dev.cotenant.api.LogSafe;
import dev.cotenant.api.ServerDescription;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Says why a server's process could not be started, from the error {@link ProcessBuilder#start}
 * reported ({@code error=2} is ENOENT, {@code error=13} EACCES) and a look at the file the command
 * names:
 *
 * <ul>
 *   <li>{@code command not found: <command>}: no such file, or a bare name on no {@code PATH}
 *       directory;
 *   <li>{@code interpreter not found: <interpreter> (named by <file>)}: the file exists, but the
 *       interpreter its {@code #!} line names does not (a {@code \r} left by CRLF line endings
 *       shows as {@code \r});
 *   <li>{@code cannot run <file>: its interpreter or loader is missing}: the file exists, and so
 *       does any interpreter it names, yet the kernel reported no such file (a binary for a loader
 *       this host lacks);
 *   <li>{@code not executable: <file>}: the file (or directory) the command names, as an absolute
 *       path, may not be executed;
 *   <li>{@code could not start <command>: <error>} otherwise.
 * </ul>
 *
 * <p>Every name is escaped and bounded ({@link LogSafe#escape(String, int)}, 120 characters). A
 * bare command is looked up on this process's {@code PATH}, as {@link ProcessBuilder} does.
 */
final class StartFailure {
  private static final int MAX = 120;

  private StartFailure() {}

  static String reason(ServerDescription server, Exception e) {
    String command = server.command();
    String msg = String.valueOf(e.getMessage());
    Optional<Path> file = locate(server);
    if (msg.contains("error=2,")) {
      if (file.isPresent() && Files.isRegularFile(file.get())) {
        Optional<String> interpreter = interpreter(file.get());
        if (interpreter.isPresent() && !exists(interpreter.get())) {
          return "interpreter not found: " + LogSafe.escape(interpreter.get(), MAX)
              + " (named by " + LogSafe.escape(file.get().toString(), MAX) + ")";
        }
        return "cannot run " + LogSafe.escape(file.get().toString(), MAX) + ": its interpreter or loader is missing";
      }
      return "command not found: " + LogSafe.escape(command, MAX);
    }
    if (msg.contains("error=13,")) {
      return "not executable: " + LogSafe.escape(file.map(Path::toString).orElse(command), MAX);
    }
    int cut = msg.indexOf("error=");
    return "could not start " + LogSafe.escape(command, MAX) + ": " + LogSafe.escape(cut >= 0 ? msg.substring(cut) : msg, MAX);
  }

  /**
   * The file the command names, when there is one: a command with a {@code /} taken relative to
   * the server's {@code cwd} (or this process's), a bare name searched on this process's
   * {@code PATH} (the first directory that holds an entry of that name).
   */
  static Optional<Path> locate(ServerDescription server) {
    String command = server.command();
    try {
      if (command.indexOf('/') >= 0) {
        Path p = Path.of(command);
        if (!p.isAbsolute()) {
          p = Path.of(server.cwd().orElse(System.getProperty("user.dir"))).resolve(p);
        }
        p = p.toAbsolutePath().normalize();
        return Files.exists(p) ? Optional.of(p) : Optional.empty();
      }
      String path = System.getenv("PATH");
      for (String dir : (path == null ? "/bin:/usr/bin" : path).split(File.pathSeparator, -1)) {
        Path candidate = Path.of(dir.isEmpty() ? "." : dir).resolve(command).toAbsolutePath().normalize();
        if (Files.exists(candidate)) {
          return Optional.of(candidate);
        }
      }
    } catch (InvalidPathException | SecurityException e) {
      return Optional.empty();
    }
    return Optional.empty();
  }

  private static boolean exists(String file) {
    try {
      return Files.exists(Path.of(file));
    } catch (InvalidPathException e) {
      return false;
    }
  }

  /**
   * The interpreter a {@code #!} line names: the first word after {@code #!}, with a trailing
   * {@code \r} kept (it is why such a script cannot be run); empty without such a line.
   */
  static Optional<String> interpreter(Path file) {
    byte[] head;
    try (InputStream in = Files.newInputStream(file)) {
      head = in.readNBytes(256);
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
    String text = new String(head, StandardCharsets.ISO_8859_1);
    if (!text.startsWith("#!")) {
      return Optional.empty();
    }
    int end = text.indexOf('\n');
    String line = (end >= 0 ? text.substring(2, end) : text.substring(2)).replaceFirst("^[ \t]+", "");
    int space = 0;
    while (space < line.length() && line.charAt(space) != ' ' && line.charAt(space) != '\t') {
      space++;
    }
    String word = line.substring(0, space);
    return word.isEmpty() ? Optional.empty() : Optional.of(word);
  }
}
