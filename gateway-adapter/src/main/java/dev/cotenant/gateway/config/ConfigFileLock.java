package dev.cotenant.gateway.config;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The lock and the atomic replacement behind {@link LockedJsonFile}: an in-process lock plus an
 * OS file lock on a sibling {@code <name>.lock} file, so two writers in one process or in two
 * processes never interleave; a write goes to a temp file beside the target (fsynced), which then
 * replaces the target by an atomic rename, so a crash leaves either the old or the new file. A
 * file reached through a symbolic link is written at the link's target and keeps its permission
 * bits. Owned by the runtime: the user's MCP configuration is not a record.
 */
final class ConfigFileLock implements AutoCloseable {
  private static final ConcurrentHashMap<Path, ReentrantLock> HELD_HERE = new ConcurrentHashMap<>();

  private final ReentrantLock local;
  private final FileChannel channel;
  private final FileLock os;

  private ConfigFileLock(ReentrantLock local, FileChannel channel, FileLock os) {
    this.local = local;
    this.channel = channel;
    this.os = os;
  }

  /** Blocks until {@code file} is held in this process and across processes. */
  static ConfigFileLock hold(Path file) throws IOException {
    Path lockFile = file.resolveSibling(file.getFileName() + ".lock");
    ReentrantLock local = HELD_HERE.computeIfAbsent(lockFile, k -> new ReentrantLock());
    local.lock();
    try {
      Files.createDirectories(lockFile.getParent());
      FileChannel ch = FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
      try {
        return new ConfigFileLock(local, ch, ch.lock());
      } catch (IOException | RuntimeException e) {
        ch.close();
        throw e;
      }
    } catch (IOException | RuntimeException e) {
      local.unlock();
      throw e;
    }
  }

  /** Replaces {@code file} (or, for a symbolic link, its target) with {@code content}; call while held. */
  void replace(Path file, byte[] content) throws IOException {
    Path target = Files.isSymbolicLink(file) ? file.toRealPath() : file;
    Set<PosixFilePermission> mode = null;
    if (Files.exists(target) && Files.getFileAttributeView(target, PosixFileAttributeView.class) != null) {
      mode = Files.getPosixFilePermissions(target);
    }
    Path tmp = Files.createTempFile(target.getParent(), "." + target.getFileName() + ".", ".tmp");
    try {
      try (FileChannel out = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
        ByteBuffer buf = ByteBuffer.wrap(content);
        while (buf.hasRemaining()) {
          out.write(buf);
        }
        out.force(true);
      }
      if (mode != null) {
        Files.setPosixFilePermissions(tmp, mode);
      }
      Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } finally {
      Files.deleteIfExists(tmp);
    }
  }

  /** Releases the OS lock, then the in-process lock. Never throws. */
  @Override
  public void close() {
    try {
      os.release();
      channel.close();
    } catch (IOException e) {
      // the descriptor and its lock go with the process at the latest
    } finally {
      local.unlock();
    }
  }
}
