package dev.cotenant.providers.session;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class BoundedLineReaderTest {

  private static BoundedLineReader reader(String text, int max) {
    return new BoundedLineReader(new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)), max);
  }

  private static String next(BoundedLineReader r) throws IOException {
    return new String(r.next().orElseThrow(), StandardCharsets.UTF_8);
  }

  @Test
  void splitsOnNewlineAndDropsCarriageReturns() throws IOException {
    BoundedLineReader r = reader("one\r\ntwo\n\nthree", 100);
    assertEquals("one", next(r));
    assertEquals("two", next(r));
    assertEquals("", next(r));
    assertEquals("three", next(r));
    assertTrue(r.next().isEmpty());
    assertEquals(15, r.totalBytes());
  }

  @Test
  void aLineAtTheBoundIsAcceptedAndOneByteMoreIsRefused() throws IOException {
    assertEquals("abcd", next(reader("abcd\n", 4)));
    BoundedLineReader r = reader("abcde\n", 4);
    assertThrows(BoundedLineReader.LineTooLongException.class, r::next);
  }

  @Test
  void aHugeLineIsRefusedWithoutBufferingIt() throws IOException {
    // An endless stream of 'x' with no newline: the reader must stop at the bound.
    InputStream endless = new InputStream() {
      @Override
      public int read() {
        return 'x';
      }

      @Override
      public int read(byte[] b, int off, int len) {
        Arrays.fill(b, off, off + len, (byte) 'x');
        return len;
      }
    };
    BoundedLineReader r = new BoundedLineReader(endless, 1 << 20);
    assertThrows(BoundedLineReader.LineTooLongException.class, r::next);
    assertTrue(r.totalBytes() <= (1 << 20) + 64 * 1024);
  }

  @Test
  void linesSpanningChunksAreJoined() throws IOException {
    String big = "y".repeat(200_000);
    BoundedLineReader r = reader(big + "\nz\n", 300_000);
    assertArrayEquals(big.getBytes(StandardCharsets.UTF_8), r.next().orElseThrow());
    assertEquals("z", next(r));
  }
}
