package dev.cotenant.providers.session;

import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;
import java.util.Optional;

/**
 * Reads newline-delimited lines as raw bytes, refusing a line longer than a bound instead of
 * buffering it. Not thread-safe: one reader thread owns it. It lives as long as its process, so
 * it keeps little between lines: a 16 KiB read buffer, and a line buffer that goes back to
 * 8 KiB after a line longer than {@value #KEPT_LINE} bytes.
 */
final class BoundedLineReader {
  /** Thrown when a line exceeds the bound; the rest of the stream is not read. */
  static final class LineTooLongException extends IOException {
    private static final long serialVersionUID = 1L;

    LineTooLongException(int max) {
      super("a stdout line longer than " + max + " bytes");
    }
  }

  private final InputStream in;
  private final int maxLineBytes;
  /** A line buffer grown past this is let go once its line is read. */
  static final int KEPT_LINE = 64 * 1024;

  private final byte[] chunk = new byte[16 * 1024];
  private int chunkPos;
  private int chunkLen;
  private byte[] line = new byte[8 * 1024];
  private int lineLen;
  private long totalBytes;

  BoundedLineReader(InputStream in, int maxLineBytes) {
    this.in = in;
    this.maxLineBytes = maxLineBytes;
  }

  /** Bytes read so far. */
  long totalBytes() {
    return totalBytes;
  }

  /**
   * The next line without its terminator ({@code \n}, and a {@code \r} before it), or empty at
   * end of stream. A final unterminated line is returned as a line.
   */
  Optional<byte[]> next() throws IOException {
    lineLen = 0;
    while (true) {
      if (chunkPos == chunkLen) {
        int n = in.read(chunk);
        if (n < 0) {
          return lineLen == 0 ? Optional.empty() : Optional.of(finish());
        }
        totalBytes += n;
        chunkPos = 0;
        chunkLen = n;
      }
      int start = chunkPos;
      int end = start;
      while (end < chunkLen && chunk[end] != '\n') {
        end++;
      }
      append(start, end - start);
      if (end < chunkLen) {
        chunkPos = end + 1;
        return Optional.of(finish());
      }
      chunkPos = chunkLen;
    }
  }

  private void append(int from, int count) throws LineTooLongException {
    if ((long) lineLen + count > maxLineBytes) {
      throw new LineTooLongException(maxLineBytes);
    }
    if (lineLen + count > line.length) {
      line = Arrays.copyOf(line, Math.min(maxLineBytes, Math.max(line.length * 2, lineLen + count)));
    }
    System.arraycopy(chunk, from, line, lineLen, count);
    lineLen += count;
  }

  private byte[] finish() {
    int len = lineLen;
    if (len > 0 && line[len - 1] == '\r') {
      len--;
    }
    byte[] out = Arrays.copyOf(line, len);
    if (line.length > KEPT_LINE) {
      line = new byte[8 * 1024];
    }
    lineLen = 0;
    return out;
  }
}
