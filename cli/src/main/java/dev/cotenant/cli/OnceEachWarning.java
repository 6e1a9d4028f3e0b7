package dev.cotenant.cli;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Set;

/**
 * Standard error for people. A log line as the bundled slf4j-simple writes it without logger and
 * thread names ({@code WARN message}, {@code ERROR message}) becomes {@value #PREFIX}{@code message}
 * or {@code cotenant: error: message}; a stack trace a library attached to a log line is left
 * out (it is shown with {@code --debug}, which does not use this filter); and a warning line
 * already written once in this run is dropped. Every other line passes through. Whole lines only:
 * a partial warning line waits for its end. Thread-safe.
 */
final class OnceEachWarning extends OutputStream {
  /** How every warning line of the CLI starts. */
  static final String PREFIX = "cotenant: warning: ";

  /** Starts of lines that may still be rewritten or dropped once complete. */
  private static final byte[][] STARTS = {
    PREFIX.getBytes(StandardCharsets.UTF_8), "WARN ".getBytes(StandardCharsets.UTF_8),
    "ERROR ".getBytes(StandardCharsets.UTF_8), "\tat ".getBytes(StandardCharsets.UTF_8),
    "Caused by: ".getBytes(StandardCharsets.UTF_8), "\t...".getBytes(StandardCharsets.UTF_8)
  };

  private final OutputStream out;
  private final ByteArrayOutputStream line = new ByteArrayOutputStream();
  private final Set<String> seen = new HashSet<>();

  OnceEachWarning(OutputStream out) {
    this.out = out;
  }

  @Override
  public synchronized void write(int b) throws IOException {
    line.write(b);
    if (b == '\n') {
      String text = forPeople(line.toString(StandardCharsets.UTF_8));
      line.reset();
      if (text != null && (!text.startsWith(PREFIX) || seen.add(text))) {
        out.write(text.getBytes(StandardCharsets.UTF_8));
      }
    }
  }

  @Override
  public synchronized void write(byte[] b, int off, int len) throws IOException {
    for (int i = off; i < off + len; i++) {
      write(b[i]);
    }
  }

  /** The line as a person should read it, or null to leave it out. */
  private static String forPeople(String text) {
    if (text.startsWith("WARN ")) {
      return PREFIX + text.substring("WARN ".length());
    }
    if (text.startsWith("ERROR ")) {
      return "cotenant: error: " + text.substring("ERROR ".length());
    }
    if (text.startsWith("\tat ") || text.startsWith("Caused by: ") || text.matches("\t\\.\\.\\. \\d+ more\\R")) {
      return null;
    }
    return text;
  }

  /** Writes a pending partial line unless it may still become a warning line. */
  @Override
  public synchronized void flush() throws IOException {
    if (line.size() > 0 && !mayBeWarning()) {
      line.writeTo(out);
      line.reset();
    }
    out.flush();
  }

  private boolean mayBeWarning() {
    byte[] pending = line.toByteArray();
    for (byte[] start : STARTS) {
      int n = Math.min(pending.length, start.length);
      boolean prefix = true;
      for (int i = 0; i < n && prefix; i++) {
        prefix = pending[i] == start[i];
      }
      if (prefix) {
        return true;
      }
    }
    return false;
  }

  @Override
  public synchronized void close() throws IOException {
    if (line.size() > 0) {
      line.writeTo(out);
      line.reset();
    }
    out.close();
  }
}
