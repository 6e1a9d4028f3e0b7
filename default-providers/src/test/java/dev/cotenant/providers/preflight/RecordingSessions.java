package dev.cotenant.providers.preflight;

import dev.cotenant.api.ServerDescription;
import dev.cotenant.spi.HandshakeEra;
import dev.cotenant.spi.ServerMessageHandler;
import dev.cotenant.spi.ServerSession;
import dev.cotenant.spi.SessionException;
import dev.cotenant.spi.SessionTransport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A {@link SessionTransport} that delegates to another and records what was asked of it: the
 * label of every {@code open}, and how many of the sessions it handed out were closed.
 */
final class RecordingSessions implements SessionTransport {
  private final SessionTransport delegate;
  private final List<String> labels = new ArrayList<>();
  private final AtomicInteger closes = new AtomicInteger();

  RecordingSessions(SessionTransport delegate) {
    this.delegate = delegate;
  }

  @Override
  public ServerSession open(ServerDescription server, String label, ServerMessageHandler handler)
      throws SessionException, InterruptedException {
    synchronized (labels) {
      labels.add(label);
    }
    return new Recorded(delegate.open(server, label, handler));
  }

  /** How many times {@code open} was called. */
  int opens() {
    synchronized (labels) {
      return labels.size();
    }
  }

  /** The label of every {@code open}, in call order. */
  List<String> labels() {
    synchronized (labels) {
      return List.copyOf(labels);
    }
  }

  /** How many {@code close} calls the sessions handed out received. */
  int closes() {
    return closes.get();
  }

  private final class Recorded implements ServerSession {
    private final ServerSession s;

    Recorded(ServerSession s) {
      this.s = s;
    }

    @Override
    public Map<String, Object> handshake(
        HandshakeEra era, Map<String, Object> clientInfo, Map<String, Object> capabilities, Duration timeout)
        throws SessionException, InterruptedException {
      return s.handshake(era, clientInfo, capabilities, timeout);
    }

    @Override
    public Optional<HandshakeEra> completedHandshake() {
      return s.completedHandshake();
    }

    @Override
    public CompletableFuture<Map<String, Object>> request(String method, Map<String, Object> params)
        throws SessionException {
      return s.request(method, params);
    }

    @Override
    public void notify(String method, Map<String, Object> params) throws SessionException {
      s.notify(method, params);
    }

    @Override
    public boolean cancel(CompletableFuture<Map<String, Object>> answer, String reason) throws SessionException {
      return s.cancel(answer, reason);
    }

    @Override
    public OptionalLong pid() {
      return s.pid();
    }

    @Override
    public void abort(String reason) {
      s.abort(reason);
    }

    @Override
    public void close() {
      closes.incrementAndGet();
      s.close();
    }
  }
}
