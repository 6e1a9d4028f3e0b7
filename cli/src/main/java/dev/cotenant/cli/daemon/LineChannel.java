package dev.cotenant.cli.daemon;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ByteChannel;
import org.jspecify.annotations.Nullable;

/**
 * Newline-delimited messages over a byte channel (the daemon's Unix socket): one reader and any
 * number of writers at once. Reads and writes go straight to the channel (a socket channel allows
 * one reading and one writing thread concurrently), never through the channel's stream adapters,
 * which serialise reads and writes on one lock.
 */
public final class LineChannel implements AutoCloseable {
  /** The longest message either side may send, in bytes. */
  public static final int MAX_LINE = 32 << 20;

  private final ByteChannel channel;
  private final ByteBuffer in = ByteBuffer.allocate(64 * 1024);
  private final Object writeLock = new Object();
  private boolean eof;

  /** Reads and writes {@code channel}, which must be in blocking mode. */
  public LineChannel(ByteChannel channel) {
    this.channel = channel;
    in.flip();
  }

  /** The channel. */
  public ByteChannel channel() {
    return channel;
  }

  /**
   * The next line without its {@code \n} and its trailing {@code \r}, spaces and tabs, or null at
   * the end of the stream. A last line without a newline is returned. Blank lines are skipped,
   * and nothing of them is carried into the next line.
   *
   * @throws IOException when reading fails or a line is longer than {@value #MAX_LINE} bytes
   */
  public byte @Nullable [] readLine() throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream(256);
    while (true) {
      while (in.hasRemaining()) {
        byte b = in.get();
        if (b == '\n') {
          byte[] l = trimmed(line.toByteArray());
          if (l.length == 0) {
            line.reset(); // a blank line: nothing of it is carried into the next
            continue;
          }
          return l;
        }
        if (line.size() >= MAX_LINE) {
          throw new IOException("a message longer than " + MAX_LINE + " bytes");
        }
        line.write(b);
      }
      if (eof) {
        byte[] l = trimmed(line.toByteArray());
        return l.length == 0 ? null : l;
      }
      in.clear();
      int n = channel.read(in);
      in.flip();
      if (n < 0) {
        eof = true;
      }
    }
  }

  private static byte[] trimmed(byte[] l) {
    int end = l.length;
    while (end > 0 && (l[end - 1] == '\r' || l[end - 1] == ' ' || l[end - 1] == '\t')) {
      end--;
    }
    return end == l.length ? l : java.util.Arrays.copyOf(l, end);
  }

  /** Writes {@code line} and a newline, whole, before any other writer's. */
  public void writeLine(byte[] line) throws IOException {
    ByteBuffer b = ByteBuffer.allocate(line.length + 1);
    b.put(line).put((byte) '\n').flip();
    synchronized (writeLock) {
      while (b.hasRemaining()) {
        channel.write(b);
      }
    }
  }

  @Override
  public void close() throws IOException {
    channel.close();
  }
}
