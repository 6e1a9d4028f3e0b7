package dev.cotenant.cli.daemon.http;

import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyBoolean;
import static org.mockito.ArgumentMatchers.anyInt;
import static org.mockito.Mockito.doAnswer;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * One HTTP exchange without a server, for the {@link EventStream}s of {@link HttpClientSession}: what
 * the stream wrote (status, headers, body), whether it completed or failed the response, and the
 * listeners it gave the request. Writes complete at once, or, with {@link #holdWrites()}, only
 * when {@link #releaseWrites()} is called, as a slow client's would.
 */
final class FakeExchange {
  private final Request request = mock(Request.class);
  private final Response response = mock(Response.class);
  private final Callback callback = mock(Callback.class);
  private final HttpFields.Mutable headers = HttpFields.build();
  private final ByteArrayOutputStream body = new ByteArrayOutputStream();
  private final List<Callback> held = new ArrayList<>();
  private int status;
  private boolean hold;
  private boolean succeeded;
  private Throwable failed;
  private Predicate<TimeoutException> idleTimeoutListener;
  private Consumer<Throwable> failureListener;
  private EventStream stream;

  FakeExchange() {
    when(response.getHeaders()).thenReturn(headers);
    doAnswer(inv -> {
      status = inv.getArgument(0);
      return null;
    }).when(response).setStatus(anyInt());
    doAnswer(inv -> {
      ByteBuffer b = inv.getArgument(1);
      byte[] bytes = new byte[b.remaining()];
      b.get(bytes);
      body.write(bytes);
      Callback done = inv.getArgument(2);
      if (hold) {
        held.add(done);
      } else {
        done.succeeded();
      }
      return null;
    }).when(response).write(anyBoolean(), any(), any());
    doAnswer(inv -> {
      succeeded = true;
      return null;
    }).when(callback).succeeded();
    doAnswer(inv -> {
      failed = inv.getArgument(0);
      return null;
    }).when(callback).failed(any());
    doAnswer(inv -> {
      idleTimeoutListener = inv.getArgument(0);
      return null;
    }).when(request).addIdleTimeoutListener(any());
    doAnswer(inv -> {
      failureListener = inv.getArgument(0);
      return null;
    }).when(request).addFailureListener(any());
  }

  /** A stream over this exchange. */
  EventStream stream(Consumer<EventStream> onGone) {
    stream = new EventStream(request, response, callback, onGone);
    return stream;
  }

  /** The stream made last over this exchange. */
  EventStream stream() {
    return stream;
  }

  /** From now on a write completes only at {@link #releaseWrites()}. */
  void holdWrites() {
    hold = true;
  }

  /** Completes the writes held so far, and lets later ones complete at once. */
  void releaseWrites() {
    hold = false;
    List<Callback> now = new ArrayList<>(held);
    held.clear();
    now.forEach(Callback::succeeded);
  }

  /** Fails the request as Jetty does when its client goes away. */
  void clientGoesAway(Throwable why) {
    failureListener.accept(why);
  }

  /** What the stream told Jetty to do on an idle timeout: true fails the request. */
  boolean failsOnIdleTimeout() {
    return idleTimeoutListener == null || idleTimeoutListener.test(new TimeoutException("idle"));
  }

  int status() {
    return status;
  }

  String contentType() {
    return headers.get(HttpHeader.CONTENT_TYPE);
  }

  String body() {
    return body.toString(StandardCharsets.UTF_8);
  }

  /** The JSON-RPC messages written: the body itself for JSON, each event's data for an event stream. */
  List<Map<String, Object>> messages() {
    if ("application/json".equals(contentType())) {
      return List.of(McpHttpHarness.parse(body()));
    }
    List<Map<String, Object>> out = new ArrayList<>();
    for (String line : body().split("\n")) {
      if (line.startsWith("data:")) {
        out.add(McpHttpHarness.parse(line.substring(5).trim()));
      }
    }
    return out;
  }

  /** Whether the stream completed the response (its last write done). */
  boolean completed() {
    return succeeded;
  }

  Throwable failure() {
    return failed;
  }
}
