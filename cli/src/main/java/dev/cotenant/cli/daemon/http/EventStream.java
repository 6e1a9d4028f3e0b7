package dev.cotenant.cli.daemon.http;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.IteratingCallback;

/**
 * One HTTP response that carries JSON-RPC messages to a client, written asynchronously: no thread
 * waits on it. A POST's stream answers with {@code application/json} when the first thing it
 * carries is its last message (the answer), and becomes {@code text/event-stream} as soon as
 * anything else comes first (progress, a server request) or a keep-alive is due; a GET's stream
 * is {@code text/event-stream} from the start.
 *
 * <p>Writes are queued and written one after another (Jetty allows one pending write per
 * response). Idle timeouts of the connection are ignored while the stream is open: keep-alive
 * comments ({@link #keepAlive}) find a client that went away. Thread-safe: {@link #send} and
 * {@link #finish} are called from any thread, and never block.
 */
final class EventStream {
  private static final byte[] KEEP_ALIVE = ":\n\n".getBytes(StandardCharsets.US_ASCII);

  private final Response response;
  private final Callback callback;
  private final Consumer<EventStream> onGone;
  private final Writer writer = new Writer();
  private final ConcurrentLinkedQueue<Frame> frames = new ConcurrentLinkedQueue<>();
  private final AtomicBoolean gone = new AtomicBoolean();
  private final Object lock = new Object();
  /** Headers sent as an event stream. */
  private boolean sse;
  /** The last frame was queued. */
  private boolean ended;

  private record Frame(ByteBuffer bytes, boolean last) {}

  /**
   * @param onGone called once, on any thread, with this stream when it has ended or failed (its client went away)
   */
  EventStream(Request request, Response response, Callback callback, Consumer<EventStream> onGone) {
    this.response = response;
    this.callback = callback;
    this.onGone = onGone;
    request.addIdleTimeoutListener(timeout -> false);
    request.addFailureListener(failure -> writer.abort(failure));
  }

  /** Sends the headers of an event stream now, with a comment, so the client sees it open. */
  void open() {
    synchronized (lock) {
      if (!ended) {
        startSse();
        frames.add(new Frame(ByteBuffer.wrap(KEEP_ALIVE), false));
      }
    }
    writer.iterate();
  }

  /** Sends a message that is not the stream's last; false when the stream has ended. */
  boolean send(String json) {
    return sendSse(event(json));
  }

  /** Ends the stream with its last message; false when it had ended already. */
  boolean finish(String json) {
    synchronized (lock) {
      if (ended || gone.get()) {
        return false;
      }
      ended = true;
      if (sse) {
        frames.add(new Frame(event(json), true));
      } else {
        response.setStatus(200);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
        frames.add(new Frame(ByteBuffer.wrap(json.getBytes(StandardCharsets.UTF_8)), true));
      }
    }
    writer.iterate();
    return true;
  }

  /** Ends the stream without another message (a GET's stream, a session closing). */
  void end() {
    synchronized (lock) {
      if (ended) {
        return;
      }
      ended = true;
      if (!sse) {
        startSse();
      }
      frames.add(new Frame(ByteBuffer.allocate(0), true));
    }
    writer.iterate();
  }

  /** Writes a comment, so that a client that went away is noticed; makes a POST's stream an event stream. */
  void keepAlive() {
    sendSse(ByteBuffer.wrap(KEEP_ALIVE));
  }

  /** Whether the stream still carries messages. */
  boolean isOpen() {
    synchronized (lock) {
      return !ended && !gone.get();
    }
  }

  private boolean sendSse(ByteBuffer frame) {
    synchronized (lock) {
      if (ended || gone.get()) {
        return false;
      }
      startSse();
      frames.add(new Frame(frame, false));
    }
    writer.iterate();
    return true;
  }

  private void startSse() {
    if (!sse) {
      sse = true;
      response.setStatus(200);
      response.getHeaders().put(HttpHeader.CONTENT_TYPE, "text/event-stream");
      response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-cache");
    }
  }

  private static ByteBuffer event(String json) {
    return ByteBuffer.wrap(("event: message\ndata: " + json + "\n\n").getBytes(StandardCharsets.UTF_8));
  }

  private void gone() {
    if (gone.compareAndSet(false, true)) {
      onGone.accept(this);
    }
  }

  /** Writes the queued frames one after another; completes the response after the last. */
  private final class Writer extends IteratingCallback {
    private boolean wroteLast;

    @Override
    protected Action process() {
      if (wroteLast) {
        return Action.SUCCEEDED;
      }
      Frame f = frames.poll();
      if (f == null) {
        return Action.IDLE;
      }
      wroteLast = f.last();
      response.write(f.last(), f.bytes(), this);
      return Action.SCHEDULED;
    }

    @Override
    protected void onCompleteSuccess() {
      callback.succeeded();
      gone();
    }

    @Override
    protected void onCompleteFailure(Throwable cause) {
      callback.failed(cause);
      gone();
    }
  }
}
