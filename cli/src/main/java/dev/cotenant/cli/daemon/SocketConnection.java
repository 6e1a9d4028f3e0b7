package dev.cotenant.cli.daemon;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.CancelledKeyException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Iterator;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One connection to the daemon's Unix socket, in non-blocking mode: newline-delimited messages
 * read by the socket's one thread ({@link UnixSocketListener}), handed in order to a
 * {@link Handler} that runs on a shared pool of workers, one line at a time, and messages written
 * from whatever thread has one, without ever blocking it.
 *
 * <p><b>Reading.</b> Lines are split as {@link LineChannel#readLine} splits them: trailing CR,
 * spaces and tabs trimmed, blank lines skipped, a last line without a newline kept, a line longer
 * than {@value LineChannel#MAX_LINE} bytes ending the connection. The lines waiting for the
 * handler are bounded ({@value #QUEUED_LINES} lines, {@value #QUEUED_BYTES} bytes): past that the
 * socket is not read until the handler catches up, so a client that writes faster than its
 * backend answers is held back by its socket, as a blocking reader would hold it.
 *
 * <p><b>Writing.</b> {@link #write} queues a line and writes what the socket takes at once, on
 * the caller's thread; what it does not take is written by the socket's thread when the socket
 * can take more. A client that stops reading never holds up the writer: its lines wait, up to a
 * bound the caller gives.
 *
 * <p>No thread is kept per connection: an idle connection is a few objects. Thread-safe.
 */
final class SocketConnection {
  private static final Logger LOG = LoggerFactory.getLogger(SocketConnection.class);

  /** Reads one connection's lines; one call at a time, in order, on a worker. */
  interface Handler {
    /** The next line from the peer (without its newline). */
    void line(byte[] line);

    /**
     * The last call: the peer closed its side, reading or writing failed, or the connection was
     * closed. Lines the peer sent before are all handled first.
     *
     * @param why what went wrong; null when the peer closed the connection or it was closed here
     */
    void ended(@Nullable String why);
  }

  /** The most lines read and not yet handled before the socket stops being read. */
  static final int QUEUED_LINES = 64;
  /** The most bytes of lines read and not yet handled before the socket stops being read. */
  static final int QUEUED_BYTES = 1 << 20;
  /** The most bytes written to the socket at once (see {@link #flushLocked}). */
  static final int WRITE_PIECE = 64 * 1024;
  /** A partial line's buffer larger than this is let go once its line is complete. */
  private static final int KEPT_BUFFER = 64 * 1024;
  /** The marker of the end of the input in the queue of lines. */
  private static final byte[] END = new byte[0];

  private final SocketChannel channel;
  private final Selector selector;
  private final Executor workers;
  private volatile @Nullable Handler handler;
  private volatile @Nullable SelectionKey key;

  // Reading: the socket's thread only.
  private byte @Nullable [] partial;
  private int partialLength;

  // Handing over.
  private final ConcurrentLinkedQueue<byte[]> inbox = new ConcurrentLinkedQueue<>();
  private final AtomicInteger queuedLines = new AtomicInteger();
  private final AtomicLong queuedBytes = new AtomicLong();
  private final AtomicBoolean running = new AtomicBoolean();
  private final AtomicBoolean readingPaused = new AtomicBoolean();
  private final AtomicBoolean inputEnded = new AtomicBoolean();
  private volatile @Nullable String endReason;

  // Writing: under `out`.
  private final Object out = new Object();
  private final ArrayDeque<ByteBuffer> outbox = new ArrayDeque<>();
  private boolean awaitingWritable;
  private boolean closeWhenWritten;
  private boolean closed;

  SocketConnection(SocketChannel channel, Selector selector, Executor workers) {
    this.channel = channel;
    this.selector = selector;
    this.workers = workers;
  }

  /** Starts handing lines to {@code h}; called once, by the socket's thread, before it reads. */
  void start(Handler h, SelectionKey k) {
    handler = h;
    key = k;
  }

  // ---- reading (the socket's thread) ----

  /** The socket is readable: reads what it has into {@code buffer} and hands over each whole line. */
  void readable(ByteBuffer buffer) {
    buffer.clear();
    int n;
    try {
      n = channel.read(buffer);
    } catch (IOException e) {
      endInput(e.getMessage());
      return;
    }
    if (n < 0) {
      if (partialLength > 0) {
        completeLine();
      }
      endInput(null);
      return;
    }
    buffer.flip();
    int start = buffer.position();
    int limit = buffer.limit();
    for (int i = start; i < limit; i++) {
      if (buffer.get(i) == '\n') {
        if (!append(buffer, start, i)) {
          return;
        }
        completeLine();
        start = i + 1;
      }
    }
    if (start < limit && !append(buffer, start, limit)) {
      return;
    }
    if (queuedLines.get() >= QUEUED_LINES || queuedBytes.get() >= QUEUED_BYTES) {
      pauseReading();
    }
  }

  /** Adds bytes {@code from..to} of {@code buffer} to the line being read; false (and the input ended) past the bound. */
  private boolean append(ByteBuffer buffer, int from, int to) {
    int n = to - from;
    if (n == 0) {
      return true;
    }
    if (partialLength + n > LineChannel.MAX_LINE) {
      partial = null;
      partialLength = 0;
      endInput("a message longer than " + LineChannel.MAX_LINE + " bytes");
      return false;
    }
    byte[] p = partial;
    if (p == null || p.length < partialLength + n) {
      int size = Math.max(256, p == null ? 0 : p.length);
      while (size < partialLength + n) {
        size = (int) Math.min((long) size * 2, LineChannel.MAX_LINE);
      }
      p = p == null ? new byte[size] : Arrays.copyOf(p, size);
      partial = p;
    }
    buffer.get(from, p, partialLength, n);
    partialLength += n;
    return true;
  }

  /** The line read so far is whole: trimmed, and handed over unless blank. */
  private void completeLine() {
    byte[] p = partial;
    int end = partialLength;
    while (end > 0 && p != null && (p[end - 1] == '\r' || p[end - 1] == ' ' || p[end - 1] == '\t')) {
      end--;
    }
    if (end > 0 && p != null) {
      deliver(Arrays.copyOf(p, end));
    }
    partialLength = 0;
    if (p != null && p.length > KEPT_BUFFER) {
      partial = null;
    }
  }

  private void deliver(byte[] line) {
    queuedLines.incrementAndGet();
    queuedBytes.addAndGet(line.length);
    inbox.add(line);
    schedule();
  }

  /** Stops reading until the handler has caught up; a worker that caught up meanwhile starts it again. */
  private void pauseReading() {
    SelectionKey k = key;
    if (k == null || !k.isValid() || !readingPaused.compareAndSet(false, true)) {
      return;
    }
    interest(SelectionKey.OP_READ, false);
    resumeReadingIfCaughtUp();
  }

  private void resumeReadingIfCaughtUp() {
    if (queuedLines.get() < QUEUED_LINES / 2 && queuedBytes.get() < QUEUED_BYTES / 2
        && readingPaused.compareAndSet(true, false) && !inputEnded.get()) {
      interest(SelectionKey.OP_READ, true);
    }
  }

  /** No more input: the handler hears of it after the lines before. Once. */
  private void endInput(@Nullable String why) {
    if (!inputEnded.compareAndSet(false, true)) {
      return;
    }
    endReason = why;
    interest(SelectionKey.OP_READ, false);
    inbox.add(END);
    schedule();
  }

  /**
   * Adds or removes {@code op} from what the socket's thread waits for; an addition wakes it, so
   * that it waits for the new set at once. Nothing once the connection is closed.
   */
  private void interest(int op, boolean add) {
    SelectionKey k = key;
    if (k == null) {
      return;
    }
    try {
      if (add) {
        k.interestOpsOr(op);
        selector.wakeup();
      } else {
        k.interestOpsAnd(~op);
      }
    } catch (CancelledKeyException e) {
      // Closed meanwhile.
    }
  }

  // ---- handling (a worker) ----

  private void schedule() {
    if (running.compareAndSet(false, true)) {
      try {
        workers.execute(this::drain);
      } catch (RejectedExecutionException e) {
        // The socket has closed for good: what is left is handled here.
        drain();
      }
    }
  }

  private void drain() {
    Handler h = handler;
    while (true) {
      byte[] line;
      while ((line = inbox.poll()) != null) {
        if (line == END) {
          // Nothing runs after the end: `running` stays set.
          if (h != null) {
            try {
              h.ended(endReason);
            } catch (RuntimeException e) {
              LOG.warn("a connection's handler failed at its end: {}", e.toString());
            }
          }
          return;
        }
        queuedLines.decrementAndGet();
        queuedBytes.addAndGet(-line.length);
        if (readingPaused.get()) {
          resumeReadingIfCaughtUp();
        }
        if (h != null) {
          try {
            h.line(line);
          } catch (RuntimeException e) {
            LOG.warn("a connection's handler failed: {}; the connection is closed", e.toString());
            close();
          }
        }
      }
      running.set(false);
      if (inbox.isEmpty() || !running.compareAndSet(false, true)) {
        return;
      }
    }
  }

  // ---- writing (any thread) ----

  /**
   * Queues {@code line} and a newline after every line queued before, and writes what the socket
   * takes now.
   *
   * @param maxQueued the most lines that may wait for the peer, this one included
   * @return false, and nothing queued, when the connection is closed or {@code maxQueued} lines
   *     already wait
   */
  boolean write(byte[] line, int maxQueued) {
    ByteBuffer b = ByteBuffer.allocate(line.length + 1);
    b.put(line).put((byte) '\n').flip();
    synchronized (out) {
      if (closed || closeWhenWritten || outbox.size() >= maxQueued) {
        return false;
      }
      outbox.add(b);
      if (!awaitingWritable) {
        flushLocked();
      }
      return true;
    }
  }

  /**
   * Drops the lines not yet begun (one being written is finished, so the stream stays whole) and
   * queues {@code line} instead; false when the connection is closed.
   */
  boolean replaceQueued(byte[] line) {
    synchronized (out) {
      Iterator<ByteBuffer> it = outbox.iterator();
      if (it.hasNext()) {
        ByteBuffer head = it.next();
        if (head.position() == 0) {
          it.remove();
        }
        while (it.hasNext()) {
          it.next();
          it.remove();
        }
      }
    }
    return write(line, Integer.MAX_VALUE);
  }

  /** True once the connection is closed. */
  boolean isClosed() {
    synchronized (out) {
      return closed;
    }
  }

  /** How many lines wait for the peer. */
  int queued() {
    synchronized (out) {
      return outbox.size();
    }
  }

  /** Waits up to {@code millis} until every queued line is written (or the connection closed); true when it was. */
  boolean awaitWritten(long millis) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
    synchronized (out) {
      while (!closed && !outbox.isEmpty()) {
        long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
        if (left <= 0) {
          return false;
        }
        out.wait(left);
      }
      return true;
    }
  }

  /** The socket can take more: writes what waits. The socket's thread. */
  void writable() {
    synchronized (out) {
      awaitingWritable = false;
      interest(SelectionKey.OP_WRITE, false);
      flushLocked();
    }
  }

  /** Writes what the socket takes; asks to be told when it takes more. Under {@code out}. */
  private void flushLocked() {
    try {
      while (!outbox.isEmpty()) {
        ByteBuffer head = outbox.peek();
        while (head.hasRemaining()) {
          // In pieces: the JDK copies what a channel writes from the heap into a native buffer
          // of that size, which for one large message the C library would keep once freed.
          ByteBuffer piece = head.slice(head.position(), Math.min(WRITE_PIECE, head.remaining()));
          int n = channel.write(piece);
          head.position(head.position() + n);
          if (piece.hasRemaining()) {
            awaitingWritable = true;
            interest(SelectionKey.OP_WRITE, true);
            return;
          }
        }
        outbox.poll();
      }
    } catch (IOException e) {
      closeLocked(e.getMessage());
      return;
    }
    out.notifyAll();
    if (closeWhenWritten) {
      closeLocked(null);
    }
  }

  // ---- closing ----

  /** Closes the connection once every queued line is written (at once when none is). */
  void closeWhenWritten() {
    synchronized (out) {
      if (outbox.isEmpty()) {
        closeLocked(null);
      } else {
        closeWhenWritten = true;
      }
    }
  }

  /** Closes the connection now; what waits to be written is dropped. Idempotent. */
  void close() {
    synchronized (out) {
      closeLocked(null);
    }
  }

  private void closeLocked(@Nullable String why) {
    if (closed) {
      return;
    }
    closed = true;
    outbox.clear();
    out.notifyAll();
    try {
      channel.close();
    } catch (IOException e) {
      // Closed already.
    }
    // The socket's thread lets go of the channel (and its file descriptor) at its next turn.
    selector.wakeup();
    endInput(why);
  }
}
