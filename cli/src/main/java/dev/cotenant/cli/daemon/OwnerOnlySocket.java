package dev.cotenant.cli.daemon;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * Binds a Unix domain socket that is its owner's only from the first moment: the socket is bound
 * inside a fresh directory only its owner can enter (0700), set to 0600, and only then renamed to
 * its public path (replacing a stale socket there), so no other user can connect through a window
 * between bind and chmod. The private directory has a short name, so the bind path is no longer
 * than the socket's own (a Unix socket path is limited to 107 bytes).
 */
public final class OwnerOnlySocket {
  private OwnerOnlySocket() {}

  /** Binds and starts listening on the socket at the path it is given. */
  @FunctionalInterface
  public interface Binder {
    /** Binds {@code at}; on failure, closes what it opened and throws. */
    void bind(Path at) throws Exception;
  }

  /**
   * Binds a socket at {@code path} through {@code binder}.
   *
   * @param tag one letter telling two sockets of one process apart in the private directory's name
   * @throws IOException when it cannot be bound (the binder's failure as cause)
   */
  public static void bind(Path path, char tag, Binder binder) throws IOException {
    Path privateDir = path.toAbsolutePath().getParent().resolve("." + tag + Long.toString(ProcessHandle.current().pid(), 36));
    Path temp = privateDir.resolve("s");
    Files.deleteIfExists(temp);
    Files.deleteIfExists(privateDir);
    Files.createDirectory(privateDir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
    try {
      binder.bind(temp);
      Files.setPosixFilePermissions(temp, PosixFilePermissions.fromString("rw-------"));
      Files.move(temp, path, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      throw e;
    } catch (Exception e) {
      throw new IOException("cannot listen on " + path + ": " + e.getMessage(), e);
    } finally {
      Files.deleteIfExists(temp);
      Files.deleteIfExists(privateDir);
    }
  }
}
