package dev.cotenant.providers.records;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Crash-safe whole-file writes and a cross-process lock for the record files.
 *
 * <p>{@link #write}: the bytes go to a temp file in the same directory, which is fsynced, then
 * atomically renamed over the target, then the directory is fsynced where the platform allows.
 * A reader, or a process killed at any moment, sees the previous file or the new one, never a
 * mix. {@link #lock}: an exclusive lock on a sibling {@code <file>.lock} ({@link FileChannel#lock})
 * that other processes respect, stacked on an in-process lock because a JVM may hold a file lock
 * only once. Writers read, merge and write under it so two processes lose nothing.
 */
public final class AtomicFiles {
  private static final ConcurrentHashMap<Path, ReentrantLock> IN_PROCESS = new ConcurrentHashMap<>();

  private AtomicFiles() {}

  /** The prefix of temp files written beside {@code target}. */
  static String tempPrefix(Path target) {
    return "." + target.getFileName() + ".";
  }

  /**
   * Atomically replaces {@code target} with {@code content}, creating its directory (owner-only
   * where POSIX permissions exist) when missing. The file is created readable by its owner only.
   */
  public static void write(Path target, byte[] content) throws IOException {
    Path dir = target.toAbsolutePath().getParent();
    createDirectories(dir);
    Path tmp = Files.createTempFile(dir, tempPrefix(target), ".tmp");
    boolean moved = false;
    try {
      try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
        ByteBuffer buf = ByteBuffer.wrap(content);
        while (buf.hasRemaining()) {
          ch.write(buf);
        }
        ch.force(true);
      }
      try {
        Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        throw new IOException("the file system of " + dir + " cannot rename atomically; records need it", e);
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
   * Deletes temp files left beside {@code target} by a writer that died mid-write. Call only
   * while holding {@link #lock} on {@code target}: every live writer writes under it.
   */
  static void deleteStaleTemps(Path target) {
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
  static void createDirectories(Path dir) throws IOException {
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
    Path lockFile = target.toAbsolutePath().normalize().resolveSibling(target.getFileName() + ".lock");
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
