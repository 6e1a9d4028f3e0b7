package dev.cotenant.spi.files;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/**
 * The one crash-safe way Cotenant replaces a file, and a cross-process lock for files that
 * several processes read, merge and write. Every module that writes a whole file uses it: the
 * record stores, the daemon's state and token files, the installed jar and native shim, the MCP
 * configurations the runtime edits. A host's own record store may use it too.
 *
 * <p>{@link #replace}: the content goes to a temp file in the target's directory, created with the
 * wanted permissions from the start (so its content is never readable by more users than the
 * target's), fsynced, then atomically renamed over the target, then the directory is fsynced where
 * the platform allows. A reader, or a process killed at any moment, sees the previous file or the
 * new one, never a mix; a write that fails deletes its temp file. {@link #write} is the records'
 * form: an owner-only file in a directory created owner-only when missing. {@link #lock}: an
 * exclusive lock on a sibling {@code <file>.lock} ({@link FileChannel#lock}) that other processes
 * respect, stacked on an in-process lock because a JVM may hold a file lock only once. Writers
 * read, merge and write under it so two processes lose nothing.
 */
public final class AtomicFiles {
  /** {@code rw-------}: readable and writable by the owner only. */
  public static final Set<PosixFilePermission> OWNER_ONLY = Set.copyOf(PosixFilePermissions.fromString("rw-------"));

  /** {@code rwxr-xr-x}: an executable anyone may run, writable by the owner only. */
  public static final Set<PosixFilePermission> EXECUTABLE = Set.copyOf(PosixFilePermissions.fromString("rwxr-xr-x"));

  /** Mode 0700: a program only its owner may read, run or change. */
  public static final Set<PosixFilePermission> OWNER_EXECUTABLE = Set.copyOf(PosixFilePermissions.fromString("rwx------"));

  private static final ConcurrentHashMap<Path, ReentrantLock> IN_PROCESS = new ConcurrentHashMap<>();
  private static final SecureRandom NAMES = new SecureRandom();

  private AtomicFiles() {}

  /** Writes the content of the new file into the temp file's stream, which {@link #replace} closes. */
  @FunctionalInterface
  public interface Content {
    /** Writes every byte of the new file to {@code out}. */
    void writeTo(OutputStream out) throws IOException;
  }

  /** A last check after the new content is written and synced, just before the rename. */
  @FunctionalInterface
  public interface BeforeReplace {
    /** Throws to leave the target as it is; the temp file is then deleted. */
    void check() throws IOException;
  }

  /** The prefix of the temp files written beside {@code target}: {@code .<name>.}. */
  public static String tempPrefix(Path target) {
    return "." + target.getFileName() + ".";
  }

  /**
   * Atomically replaces {@code target} with {@code content}, creating its directory (owner-only
   * where POSIX permissions exist) when missing. The file is readable by its owner only
   * ({@link #OWNER_ONLY}). This is the form the record files are written in.
   */
  public static void write(Path target, byte[] content) throws IOException {
    createDirectories(target.toAbsolutePath().getParent());
    replace(target, content, OWNER_ONLY);
  }

  /**
   * Atomically replaces {@code target}, whose directory must exist, with {@code content}.
   *
   * @param mode the permissions of the new file, exactly (the umask does not widen or narrow
   *     them), held from the temp file's creation on; {@code null} for what a new file gets by
   *     default (the process umask applies). Ignored where the file system has no POSIX
   *     permissions.
   */
  public static void replace(Path target, byte[] content, @Nullable Set<PosixFilePermission> mode) throws IOException {
    replace(target, mode, out -> out.write(content), () -> {});
  }

  /** As {@link #replace(Path, byte[], Set)}, the content written by {@code content}. */
  public static void replace(Path target, @Nullable Set<PosixFilePermission> mode, Content content) throws IOException {
    replace(target, mode, content, () -> {});
  }

  /**
   * As {@link #replace(Path, byte[], Set)}, the content written by {@code content}, and
   * {@code beforeReplace} run once it is synced, just before the rename: when it throws, the
   * target is left as it is and the temp file deleted.
   *
   * @throws IOException when the file cannot be written or renamed (the target is then as it was
   *     and no temp file is left), or the file system cannot rename atomically
   */
  public static void replace(Path target, @Nullable Set<PosixFilePermission> mode, Content content,
      BeforeReplace beforeReplace) throws IOException {
    Path dir = target.toAbsolutePath().getParent();
    boolean posix = dir.getFileSystem().supportedFileAttributeViews().contains("posix");
    Set<PosixFilePermission> exact = posix ? mode : null;
    Path tmp = createTemp(dir, tempPrefix(target), exact);
    boolean moved = false;
    try {
      if (exact != null) {
        Files.setPosixFilePermissions(tmp, exact);
      }
      try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
        content.writeTo(Channels.newOutputStream(ch));
        ch.force(true);
      }
      beforeReplace.check();
      try {
        Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        throw new IOException("the file system of " + dir + " cannot rename atomically; " + target + " is replaced only that way", e);
      }
      moved = true;
      fsyncDirectory(dir);
    } finally {
      if (!moved) {
        Files.deleteIfExists(tmp);
      }
    }
  }

  /**
   * A new empty file {@code <prefix><random>.tmp} in {@code dir}, created with {@code mode}
   * (narrowed by the umask; the caller sets it exactly) or, when null, the default permissions.
   */
  private static Path createTemp(Path dir, String prefix, @Nullable Set<PosixFilePermission> mode) throws IOException {
    FileAttribute<?>[] attrs = mode == null
        ? new FileAttribute<?>[0]
        : new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(mode)};
    while (true) {
      Path tmp = dir.resolve(prefix + Long.toUnsignedString(NAMES.nextLong(), 36) + ".tmp");
      try {
        return Files.createFile(tmp, attrs);
      } catch (FileAlreadyExistsException e) {
        // another writer drew the same name: draw again
      }
    }
  }

  /**
   * Deletes temp files left beside {@code target} by a writer that died mid-write. Call only
   * while holding {@link #lock} on {@code target} (or another guarantee that no one else writes
   * it): every live writer of a shared file writes under it.
   */
  public static void deleteStaleTemps(Path target) {
    Path dir = target.toAbsolutePath().getParent();
    if (!Files.isDirectory(dir)) {
      return;
    }
    try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, tempPrefix(target) + "*.tmp")) {
      for (Path p : ds) {
        Files.deleteIfExists(p);
      }
    } catch (IOException e) {
      // a leftover temp file is harmless; the next writer tries again
    }
  }

  /** Makes {@code dir} and its parents; new directories are owner-only where POSIX permissions exist. */
  public static void createDirectories(Path dir) throws IOException {
    if (Files.isDirectory(dir)) {
      return;
    }
    try {
      if (dir.getFileSystem().supportedFileAttributeViews().contains("posix")) {
        Path parent = dir.getParent();
        if (parent != null) {
          Files.createDirectories(parent);
        }
        Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
      } else {
        Files.createDirectories(dir);
      }
    } catch (FileAlreadyExistsException e) {
      if (!Files.isDirectory(dir)) {
        throw e;
      }
    }
  }

  private static void fsyncDirectory(Path dir) {
    try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
      ch.force(true);
    } catch (IOException | UnsupportedOperationException e) {
      // some platforms cannot open or sync a directory; the rename itself is still atomic
    }
  }

  /**
   * Takes the exclusive lock guarding {@code target}: first within this JVM, then across
   * processes on {@code <target>.lock}. Blocks until both are held.
   */
  public static Lock lock(Path target) throws IOException {
    return lockOn(target.toAbsolutePath().normalize().resolveSibling(target.getFileName() + ".lock"));
  }

  /**
   * Takes the exclusive lock of {@code lockFile} itself: first within this JVM, then across
   * processes on that file (created, with its directory, when missing). Blocks until both are
   * held. For a lock kept away from the file it guards.
   */
  public static Lock lockOn(Path lockFile) throws IOException {
    ReentrantLock local = IN_PROCESS.computeIfAbsent(lockFile, k -> new ReentrantLock());
    local.lock();
    FileChannel ch = null;
    try {
      createDirectories(lockFile.getParent());
      ch = FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
      FileLock fl = ch.lock();
      return new Lock(local, ch, fl);
    } catch (IOException | RuntimeException e) {
      if (ch != null) {
        try {
          ch.close();
        } catch (IOException suppressed) {
          e.addSuppressed(suppressed);
        }
      }
      local.unlock();
      throw e;
    }
  }

  /** A held lock; closing it releases the file lock, then the in-process lock. */
  public static final class Lock implements AutoCloseable {
    private final ReentrantLock local;
    private final FileChannel channel;
    private final FileLock fileLock;

    private Lock(ReentrantLock local, FileChannel channel, FileLock fileLock) {
      this.local = local;
      this.channel = channel;
      this.fileLock = fileLock;
    }

    /**
     * Releases the lock. Never throws: closing the channel releases the file lock whatever
     * {@link FileLock#release} reported, and the operating system drops it when the process ends,
     * so a failure here must not make a write that already happened look failed.
     */
    @Override
    public void close() {
      try {
        fileLock.release();
      } catch (IOException e) {
        // released by closing the channel below
      }
      try {
        channel.close();
      } catch (IOException e) {
        // the descriptor and its lock go with the process at the latest
      } finally {
        local.unlock();
      }
    }
  }
}
