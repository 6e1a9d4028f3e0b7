package dev.cotenant.cli.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The daemon's socket without a daemon: {@link UnixSocketListener} and {@link SocketConnection}
 * with a handler that records what it is handed, and clients that are plain blocking channels.
 * Each wait for something to arrive is bounded (a minute), never a pause.
 */
class SocketConnectionTest {
  private static final long BOUND_SECONDS = 60;

  @TempDir Path dir;
  private final List<AutoCloseable> toClose = new ArrayList<>();

  @AfterEach
  void closeAll() throws Exception {
    for (int i = toClose.size() - 1; i >= 0; i--) {
      toClose.get(i).close();
    }
  }

  /** What a connection's handler was handed: its lines as text, then {@code "ended: WHY"}. */
  private static final class Recorder implements SocketConnection.Handler {
    final BlockingQueue<String> events = new LinkedBlockingQueue<>();
    final SocketConnection connection;
    final BiConsumer<Recorder, String> onLine;

    Recorder(SocketConnection connection, BiConsumer<Recorder, String> onLine) {
      this.connection = connection;
      this.onLine = onLine;
    }

    @Override
    public void line(byte[] line) {
      String text = new String(line, StandardCharsets.UTF_8);
      events.add(text);
      onLine.accept(this, text);
    }

    /** Records the end and closes the connection, as the daemon's sessions do. */
    @Override
    public void ended(String why) {
      events.add("ended: " + why);
      connection.close();
    }

    String next() throws InterruptedException {
      String e = events.poll(BOUND_SECONDS, TimeUnit.SECONDS);
      assertNotNull(e, "nothing handed to the handler within " + BOUND_SECONDS + " s");
      return e;
    }
  }

  private final BlockingQueue<Recorder> recorders = new LinkedBlockingQueue<>();

  private UnixSocketListener listen(BiConsumer<Recorder, String> onLine) throws IOException {
    UnixSocketListener l = UnixSocketListener.open(dir.resolve("s.sock"), c -> {
      Recorder r = new Recorder(c, onLine);
      recorders.add(r);
      return r;
    });
    toClose.add(l);
    return l;
  }

  private SocketChannel connect() throws IOException {
    SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX);
    ch.connect(UnixDomainSocketAddress.of(dir.resolve("s.sock")));
    toClose.add(ch);
    return ch;
  }

  private Recorder accepted() throws InterruptedException {
    Recorder r = recorders.poll(BOUND_SECONDS, TimeUnit.SECONDS);
    assertNotNull(r, "no connection accepted");
    return r;
  }

  private static void write(SocketChannel ch, String text) throws IOException {
    ByteBuffer b = ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8));
    while (b.hasRemaining()) {
      ch.write(b);
    }
  }

  /**
   * Lines are split as {@link LineChannel} splits them (trailing CR, spaces and tabs trimmed, blank
   * lines skipped, a last line without a newline kept), handed over in order, then the end.
   * Mutants: the trim or the blank check dropped, the last partial line dropped at the end.
   */
  @Test
  void linesAreSplitTrimmedAndHandedInOrderThenTheEnd() throws Exception {
    listen((r, l) -> {});
    SocketChannel ch = connect();
    write(ch, "first \t\r\n\r\n  \nsec");
    Recorder r = accepted();
    assertEquals("first", r.next());
    write(ch, "ond\nlast\r");
    assertEquals("second", r.next());
    ch.shutdownOutput();
    assertEquals("last", r.next());
    assertEquals("ended: null", r.next());
  }

  /**
   * A line of exactly {@value LineChannel#MAX_LINE} bytes is handed over whole; one byte more
   * ends the connection, saying why. Mutant: the bound at {@code >=}.
   */
  @Test
  void aLineOfTheBoundIsReadAndOneByteMoreEndsTheConnection() throws Exception {
    listen((r, l) -> {});
    byte[] at = new byte[LineChannel.MAX_LINE + 1];
    java.util.Arrays.fill(at, (byte) 'x');
    at[LineChannel.MAX_LINE] = '\n';
    SocketChannel ch = connect();
    ch.write(ByteBuffer.wrap(at));
    Recorder r = accepted();
    assertEquals(LineChannel.MAX_LINE, r.next().length());

    byte[] over = new byte[LineChannel.MAX_LINE + 2];
    java.util.Arrays.fill(over, (byte) 'y');
    over[LineChannel.MAX_LINE + 1] = '\n';
    SocketChannel second = connect();
    Thread writer = new Thread(() -> {
      try {
        second.write(ByteBuffer.wrap(over));
      } catch (IOException e) {
        // The daemon closed the connection before taking it all.
      }
    });
    writer.start();
    Recorder s = accepted();
    assertEquals("ended: a message longer than " + LineChannel.MAX_LINE + " bytes", s.next());
    writer.join(TimeUnit.SECONDS.toMillis(BOUND_SECONDS));
    assertFalse(writer.isAlive());
  }

  /**
   * Far more than the socket takes at once is written in order and whole: what waits is written
   * when the peer reads. Mutant: {@code flushLocked} dropping the head once it is partly written.
   */
  @Test
  void whatTheSocketDoesNotTakeAtOnceIsWrittenInOrderLater() throws Exception {
    int lines = 20_000;
    String payload = "z".repeat(200);
    listen((r, l) -> {
      for (int i = 0; i < lines; i++) {
        assertTrue(r.connection.write((i + " " + payload).getBytes(StandardCharsets.UTF_8), lines));
      }
    });
    SocketChannel ch = connect();
    write(ch, "go\n");
    try (LineChannel in = new LineChannel(ch)) {
      for (int i = 0; i < lines; i++) {
        assertEquals(i + " " + payload, new String(in.readLine(), StandardCharsets.UTF_8));
      }
    }
  }

  /**
   * One line many times {@link SocketConnection#WRITE_PIECE} long, written in pieces while the
   * peer reads, arrives whole, and the line after it too. Mutant: a piece's position not carried
   * back to the line.
   */
  @Test
  void aLongLineIsWrittenInPiecesAndArrivesWhole() throws Exception {
    String longLine = "L".repeat(20 * SocketConnection.WRITE_PIECE + 7);
    listen((r, l) -> {
      assertTrue(r.connection.write(longLine.getBytes(StandardCharsets.UTF_8), 10));
      assertTrue(r.connection.write("after".getBytes(StandardCharsets.UTF_8), 10));
    });
    SocketChannel ch = connect();
    write(ch, "go\n");
    try (LineChannel in = new LineChannel(ch)) {
      assertEquals(longLine, new String(in.readLine(), StandardCharsets.UTF_8));
      assertEquals("after", new String(in.readLine(), StandardCharsets.UTF_8));
    }
  }

  /**
   * A peer that does not read: lines wait up to the bound the writer gives, then {@code write}
   * says no and queues nothing; closing drops what waits. Mutant: the bound not checked.
   */
  @Test
  void linesWaitForAPeerThatDoesNotReadUpToTheBound() throws Exception {
    listen((r, l) -> {});
    connect();
    Recorder r = accepted();
    byte[] line = "w".repeat(4096).getBytes(StandardCharsets.UTF_8);
    int written = 0;
    while (r.connection.write(line, 100)) {
      written++;
      assertTrue(written < 100_000, "the socket took everything");
    }
    assertEquals(100, r.connection.queued());
    assertFalse(r.connection.isClosed());
    r.connection.close();
    assertTrue(r.connection.isClosed());
    assertEquals(0, r.connection.queued());
    assertFalse(r.connection.write(line, 100));
    assertEquals("ended: null", r.next());
  }

  /**
   * A handler that lags: the lines that arrive meanwhile (far more than are read ahead) are all
   * handed over, in order, once it catches up; reading pauses and resumes. Mutant: reading not
   * resumed once the handler caught up.
   */
  @Test
  void aHandlerThatLagsGetsEveryLineInOrder() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    listen((r, l) -> {
      if (l.equals("0")) {
        try {
          release.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    });
    SocketChannel ch = connect();
    int lines = 5 * SocketConnection.QUEUED_LINES;
    StringBuilder all = new StringBuilder();
    for (int i = 0; i < lines; i++) {
      all.append(i).append('\n');
    }
    write(ch, all.toString());
    Recorder r = accepted();
    assertEquals("0", r.next());
    release.countDown();
    for (int i = 1; i < lines; i++) {
      assertEquals(Integer.toString(i), r.next());
    }
    ch.close();
    assertEquals("ended: null", r.next());
  }

  /**
   * Closing the listener removes the socket file and refuses new connections; one already open is
   * still served until it closes. Mutant: {@code close} closing the connections too.
   */
  @Test
  void closingTheListenerKeepsOpenConnectionsServed() throws Exception {
    UnixSocketListener l = listen((r, line) -> r.connection.write(("echo " + line).getBytes(StandardCharsets.UTF_8), 10));
    SocketChannel ch = connect();
    Recorder r = accepted();
    l.close();
    assertFalse(Files.exists(dir.resolve("s.sock")));
    write(ch, "still\n");
    try (LineChannel in = new LineChannel(ch)) {
      assertEquals("echo still", new String(in.readLine(), StandardCharsets.UTF_8));
      assertEquals("still", r.next());
      r.connection.close();
      assertNull(in.readLine());
    }
    assertEquals("ended: null", r.next());
  }
}
