package dev.cotenant.cli.route;


import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Locale;
import java.util.Optional;

/**
 * The rule for what the Cotenant home holds and what a routed entry runs: only files no one but
 * the user could have written. A directory of the home ({@code ~/.cotenant}, {@code lib/},
 * {@code routes/}) is made mode 0700 whatever the umask ({@link #create}); {@code lib/} and
 * {@code routes/}, whose files are checked or rewritten before use, are tightened to 0700 when
 * they are the user's and open to others ({@link #directory}); a file that a routed entry or a shim runs ({@link #whyUntrusted}) must
 * be a regular file the user owns that neither group nor others may write, in directories the user
 * or root owns that neither group nor others may write (unless sticky, as {@code /tmp} is), up to
 * the root: otherwise another user could have replaced it, and whoever runs it would run theirs.
 */
public final class PrivateFiles {
  private static final int GROUP_OR_OTHER_WRITE = 0022;
  private static final int GROUP_OR_OTHER_ANY = 0077;
  private static final int STICKY = 01000;

  private PrivateFiles() {}

  /**
   * Creates {@code dir} (and its missing parents, each 0700) when missing; makes it, or the directory a link
   * at {@code dir} leads to, mode 0700 when it is the user's and open to group or others.
   *
   * @throws IOException when it cannot be made, is not a directory, or is another user's (naming
   *     the owner and what to do)
   */
  public static void directory(Path dir) throws IOException {
    create(dir.toAbsolutePath().normalize());
    if (!Files.isDirectory(dir)) {
      throw new IOException(dir + " is not a directory");
    }
    Path real = dir.toRealPath();
    int uid = uid(real);
    if (uid != self()) {
      throw new IOException(shown(dir, real) + " belongs to uid " + uid + ", not to uid " + self()
          + ", who runs Cotenant: the Cotenant home must be yours alone (chown it, or set COTENANT_HOME"
          + " to a directory of your own)");
    }
    if ((mode(real) & GROUP_OR_OTHER_ANY) != 0) {
      Files.setPosixFilePermissions(real, PosixFilePermissions.fromString("rwx------"));
    }
  }

  /** Creates {@code dir} and its missing parents, each 0700 whatever the umask; leaves what exists as it is. */
  public static void create(Path dir) throws IOException {
    if (Files.isDirectory(dir)) {
      return;
    }
    Path parent = dir.getParent();
    if (parent != null) {
      create(parent);
    }
    try {
      Files.createDirectory(dir);
      Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
    } catch (FileAlreadyExistsException e) {
      // Another process made it first, or something else is there: checked by the caller.
    }
  }

  /**
   * Why {@code file} may not be run or trusted, or empty when it may: it must be a regular file
   * (not a link) the user owns, not writable by group or others, and every directory above it
   * must be the user's or root's and writable by neither group nor others unless sticky.
   */
  public static Optional<String> whyUntrusted(Path file) {
    try {
      Path abs = file.toAbsolutePath().normalize();
      if (!Files.isRegularFile(abs, LinkOption.NOFOLLOW_LINKS)) {
        return Optional.of(abs + " is not a regular file");
      }
      int self = self();
      int uid = uid(abs);
      if (uid != self) {
        return Optional.of(abs + " belongs to uid " + uid + ", not to uid " + self);
      }
      int mode = mode(abs);
      if ((mode & GROUP_OR_OTHER_WRITE) != 0) {
        return Optional.of(abs + " is writable by others (mode " + octal(mode) + ")");
      }
      for (Path d = abs.getParent(); d != null; d = d.getParent()) {
        Path real = d.toRealPath();
        int owner = uid(real);
        int m = mode(real);
        if (owner != self && owner != 0) {
          return Optional.of("its directory " + shown(d, real) + " belongs to uid " + owner + ", not to uid " + self
              + " or root");
        }
        if ((m & GROUP_OR_OTHER_WRITE) != 0 && (m & STICKY) == 0) {
          return Optional.of("its directory " + shown(d, real) + " is writable by others (mode " + octal(m) + ")");
        }
      }
      return Optional.empty();
    } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
      return Optional.of("cannot read " + file + "'s owner and mode: " + e.getMessage());
    }
  }

  /** Whether {@code file} has any permission for group or others. */
  public static boolean openToOthers(Path file) throws IOException {
    return (mode(file) & GROUP_OR_OTHER_ANY) != 0;
  }

  /** The uid this process runs as: the owner of {@code /proc/self}. */
  static int self() throws IOException {
    return (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid");
  }

  private static int uid(Path p) throws IOException {
    return (Integer) Files.getAttribute(p, "unix:uid", LinkOption.NOFOLLOW_LINKS);
  }

  private static int mode(Path p) throws IOException {
    return (Integer) Files.getAttribute(p, "unix:mode", LinkOption.NOFOLLOW_LINKS);
  }

  static String octal(int mode) {
    return String.format(Locale.ROOT, "%04o", mode & 07777);
  }

  private static String shown(Path p, Path real) {
    return real.equals(p) ? p.toString() : p + " (" + real + ")";
  }
}
