package dev.cotenant.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * The filter between the CLI's logging and standard error, byte by byte: which lines it rewrites,
 * drops or repeats, and what a flush or a close writes of a line not ended yet.
 */
class OnceEachWarningTest {
  /** A sink that counts its flushes and closes. */
  private static final class Sink extends OutputStream {
    final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    int flushes;
    boolean closed;

    @Override
    public void write(int b) {
      bytes.write(b);
    }

    @Override
    public void flush() {
      flushes++;
    }

    @Override
    public void close() {
      closed = true;
    }

    String text() {
      return bytes.toString(StandardCharsets.UTF_8);
    }
  }

  /** What the filter under test writes to; each test gets its own. */
  private final Sink sink = new Sink();
  /** The filter under test. */
  private final OnceEachWarning filter = new OnceEachWarning(sink);

  private static void write(OutputStream out, String s) throws IOException {
    out.write(s.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void eachWarningIsWrittenOnceAndOtherLinesEveryTime() throws IOException {
    write(filter, "WARN a is unreadable\n");
    write(filter, "WARN b is unreadable\n");
    write(filter, "WARN a is unreadable\n");
    write(filter, "cotenant: warning: b is unreadable\n");
    write(filter, "a table line\n");
    write(filter, "a table line\n");
    write(filter, "ERROR it broke\n");
    write(filter, "ERROR it broke\n");
    write(filter, "WARN c comes once\n");
    assertEquals("cotenant: warning: a is unreadable\ncotenant: warning: b is unreadable\n"
        + "a table line\na table line\ncotenant: error: it broke\ncotenant: error: it broke\n"
        + "cotenant: warning: c comes once\n", sink.text());
  }

  @Test
  void aStackTraceIsLeftOutButALineThatOnlyLooksLikeItsEndIsNot() throws IOException {
    write(filter, "\tat dev.cotenant.X.y(X.java:1)\nCaused by: java.lang.Error\n\t... 3 more\n\t... and more\n");
    assertEquals("\t... and more\n", sink.text());
  }

  @Test
  void aFlushWritesAPartialLineUnlessItMayStillBecomeAWarningOrAStackTraceLine() throws IOException {
    write(filter, "cotenant: partial");
    filter.flush();
    assertEquals("cotenant: partial", sink.text(), "written at the flush, not at the end of the line");
    assertEquals(1, sink.flushes, "the flush reaches the stream below");
    write(filter, " line\n");
    assertEquals("cotenant: partial line\n", sink.text());

    for (String start : new String[] {"W", "WARN", "WARN a is unreadable", "ERROR", "\tat", "\tat x", "Caused by", "\t..",
        "cotenant: warning", "cotenant: warning: a", "\t", "Caused"}) {
      assertEquals("", flushed(start), "'" + start + "' may still become a line to rewrite or drop: held back");
    }
    for (String start : new String[] {"X", "WARNING", "WARNx", "ERRORS", "cotenant: warn!", "\tx", "Caused!"}) {
      assertEquals(start, flushed(start), "'" + start + "' cannot become one: written at the flush");
    }
  }

  /** What a fresh filter writes of {@code partial} when flushed (the flush itself reaching the stream below). */
  private static String flushed(String partial) throws IOException {
    Sink sink = new Sink();
    OnceEachWarning filter = new OnceEachWarning(sink);
    write(filter, partial);
    filter.flush();
    assertEquals(1, sink.flushes);
    return sink.text();
  }

  @Test
  void closingWritesWhatIsPendingEvenAPossibleWarningAndClosesTheStreamBelow() throws IOException {
    write(filter, "WARN cut short");
    filter.close();
    assertEquals("WARN cut short", sink.text(), "nothing is lost at the end");
    assertTrue(sink.closed);

    Sink empty = new Sink();
    OnceEachWarning nothing = new OnceEachWarning(empty);
    write(nothing, "done\n");
    nothing.close();
    assertEquals("done\n", empty.text(), "a close with nothing pending writes nothing more");
    assertTrue(empty.closed);
  }
}
