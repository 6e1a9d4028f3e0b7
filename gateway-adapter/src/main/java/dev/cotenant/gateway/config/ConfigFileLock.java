package dev.cotenant.gateway.config;

import dev.cotenant.spi.files.AtomicFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The lock and the atomic replacement behind {@link LockedJsonFile}: an in-process lock plus an
 * OS file lock on a lock file kept away from the user's file ({@link #lockFileOf}), so two writers in one process or in two
 * processes never interleave; a write replaces the target through {@link AtomicFiles#replace} (a
 * temp file beside it, fsynced, then an atomic rename), so a crash leaves either the old or the
 * new file. A file reached through a symbolic link is written at the link's target; a file keeps
 * its permission bits, and a new one is its owner's only. Owned by the runtime: the user's MCP configuration is not a record.
 */
final class ConfigFileLock implements AutoCloseable {
  private final AtomicFiles.Lock held;

  private ConfigFileLock(AtomicFiles.Lock held) {
    this.held = held;
  }

  /** Blocks until {@code file} is held in this process and across processes. */
  static ConfigFileLock hold(Path file) throws IOException {
    return new ConfigFileLock(AtomicFiles.lockOn(lockFileOf(file)));
  }

  /**
   * The lock file of {@code file}: named after a hash of its real path (so a link and its target
   * share one lock) in {@code <tmpdir>/cotenant-<user>-locks}, a directory only its owner can
   * use. Nothing is ever created beside the user's file.
   */
  static Path lockFileOf(Path file) throws IOException {
    Path target = file.toAbsolutePath().normalize();
    try {
      target = target.toRealPath();
    } catch (IOException e) {
      // a file not created yet: its absolute path names it
    }
    Path dir = Path.of(System.getProperty("java.io.tmpdir"), "cotenant-" + System.getProperty("user.name", "user") + "-locks");
    if (!Files.isDirectory(dir)) {
      try {
        Files.createDirectories(dir, java.nio.file.attribute.PosixFilePermissions.asFileAttribute(
            java.nio.file.attribute.PosixFilePermissions.fromString("rwx------")));
      } catch (UnsupportedOperationException e) {
        Files.createDirectories(dir);
      }
    }
    try {
      byte[] hash = java.security.MessageDigest.getInstance("SHA-256")
          .digest(target.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8));
      return dir.resolve(java.util.HexFormat.of().formatHex(hash, 0, 16) + ".lock");
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is part of every JDK", e);
    }
  }

  /** Replaces {@code file} (or, for a symbolic link, its target) with {@code content}; call while held. */
  void replace(Path file, byte[] content) throws IOException {
    replace(file, content, null);
  }

  /** The file changed between its read and its replacement (an editor that does not take the lock). */
  static final class ChangedMeanwhile extends IOException {
    private static final long serialVersionUID = 1L;

    ChangedMeanwhile(Path file) {
      super(file + " changed while the new text was being written");
    }
  }

  /**
   * As {@link #replace(Path, byte[])}; with {@code expected} (the bytes the file held when it
   * was read, or an empty array for a file that did not exist), the file is read again just
   * before the rename, and a file that no longer holds them is left as it is: {@link
   * ChangedMeanwhile}. An editor that does not take the lock can still write in the moment
   * between that check and the rename, but no longer while the new text is made and synced.
   */
  void replace(Path file, byte[] content, byte @Nullable [] expected) throws IOException {
    Path target = Files.isSymbolicLink(file) ? file.toRealPath() : file;
    Set<PosixFilePermission> mode = null;
    if (Files.exists(target) && Files.getFileAttributeView(target, PosixFileAttributeView.class) != null) {
      mode = Files.getPosixFilePermissions(target);
    }
    AtomicFiles.replace(target, mode == null ? AtomicFiles.OWNER_ONLY : mode, out -> out.write(content), () -> {
      if (expected != null) {
        byte[] now = Files.exists(target) ? Files.readAllBytes(target) : new byte[0];
        if (!java.util.Arrays.equals(now, expected)) {
          throw new ChangedMeanwhile(file);
        }
      }
    });
  }

  /** Releases the OS lock, then the in-process lock. Never throws. */
  @Override
  public void close() {
    held.close();
  }
}
