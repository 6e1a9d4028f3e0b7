package dev.cotenant.cli.daemon;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.OptionalLong;

/**
 * The one-daemon-per-home lock: an exclusive lock on {@code daemon.lock}, held for the daemon's
 * life, the file holding the holder's pid. The operating system releases it when the process
 * dies, however it dies, so a daemon killed with SIGKILL never blocks the next one. The file is
 * never deleted (deleting a lock file lets two processes hold locks on two different files).
 */
public final class DaemonLock implements AutoCloseable {
  private final FileChannel channel;
  private final FileLock lock;

  private DaemonLock(FileChannel channel, FileLock lock) {
    this.channel = channel;
    this.lock = lock;
  }

  /** Thrown when another process holds the lock. */
  public static final class HeldException extends IOException {
    private static final long serialVersionUID = 1L;
    private final OptionalLong pid;

    HeldException(Path file, OptionalLong pid) {
      super("a Cotenant daemon already runs for " + file.getParent()
          + (pid.isPresent() ? " (pid " + pid.getAsLong() + ")" : "") + "; stop it first, or set "
          + CotenantHome.ENV + " to another directory");
      this.pid = pid;
    }

    /** The pid of the holder, when the file names one. */
    public OptionalLong pid() {
      return pid;
    }
  }

  /**
   * Takes the lock and writes this process's pid into it.
   *
   * @throws HeldException when another daemon holds it
   */
  public static DaemonLock acquire(Path file) throws IOException {
    FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
    FileLock l;
    try {
      l = ch.tryLock();
    } catch (OverlappingFileLockException e) {
      l = null;
    } catch (IOException e) {
      ch.close();
      throw e;
    }
    if (l == null) {
      ch.close();
      throw new HeldException(file, holder(file));
    }
    ch.truncate(0);
    ch.write(ByteBuffer.wrap((ProcessHandle.current().pid() + "\n").getBytes(StandardCharsets.US_ASCII)), 0);
    ch.force(false);
    return new DaemonLock(ch, l);
  }

  /** The pid written in {@code file}, when it holds one. */
  public static OptionalLong holder(Path file) {
    try {
      String s = Files.readString(file, StandardCharsets.US_ASCII).strip();
      return s.isEmpty() ? OptionalLong.empty() : OptionalLong.of(Long.parseLong(s));
    } catch (IOException | NumberFormatException e) {
      return OptionalLong.empty();
    }
  }

  @Override
  public void close() throws IOException {
    try {
      lock.release();
    } finally {
      channel.close();
    }
  }
}
