package dev.cotenant.gateway.sandbox;

import dev.cotenant.api.LogSafe;
import dev.cotenant.api.ServerDescription;
import dev.cotenant.spi.HandshakeEra;
import dev.cotenant.spi.ServerMessageHandler;
import dev.cotenant.spi.ServerSession;
import dev.cotenant.spi.SessionException;
import dev.cotenant.spi.SessionTransport;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link SessionTransport} that starts every server inside the sandbox: it prepares the
 * server's private directory ({@link SandboxLayout}), opens the bubblewrap command line through
 * the transport it wraps (so that transport's teardown, bounds and spawn cookie apply), and
 * removes the private directory once the session is closed. Thread-safe.
 */
final class SandboxedSessions implements SessionTransport {
  private static final Logger LOG = LoggerFactory.getLogger(SandboxedSessions.class);

  private final SessionTransport delegate;
  private final SandboxLayout layout;
  private final List<Path> live;

  SandboxedSessions(SessionTransport delegate, SandboxLayout layout, List<Path> live) {
    this.delegate = Objects.requireNonNull(delegate, "delegate");
    this.layout = Objects.requireNonNull(layout, "layout");
    this.live = List.copyOf(live);
  }

  @Override
  public ServerSession open(ServerDescription server, String label, ServerMessageHandler handler)
      throws SessionException, InterruptedException {
    SandboxLayout.Launch launch;
    try {
      synchronized (layout) {
        launch = layout.prepare(server, live);
      }
    } catch (SandboxLayout.Unlaunchable e) {
      throw new SessionException(SessionException.Kind.START, LogSafe.escape(String.valueOf(e.getMessage()), 600));
    } catch (IOException | RuntimeException e) {
      throw new SessionException(SessionException.Kind.START, "the sandbox could not be prepared: "
          + LogSafe.escape(String.valueOf(e.getMessage()), 200));
    }
    if (LOG.isDebugEnabled()) {
      LOG.debug("sandbox for {}: {}", LogSafe.escape(server.name(), 80), launch.notes());
    }
    Spawner.Held held;
    try {
      // From a thread that lives as long as the session: bubblewrap's --die-with-parent follows
      // the thread that spawned it.
      held = Spawner.openHeld(delegate, launch.server(), label, handler);
    } catch (SessionException | InterruptedException | RuntimeException e) {
      SandboxLayout.delete(launch.root());
      throw e;
    }
    return new Session(held.session(), launch.root(), held.release());
  }

  /** The session, and the private directory removed after it. */
  private static final class Session implements ServerSession {
    private final ServerSession session;
    private final Path root;
    private final Runnable release;
    private final AtomicBoolean closed = new AtomicBoolean();

    Session(ServerSession session, Path root, Runnable release) {
      this.session = session;
      this.root = root;
      this.release = release;
    }

    @Override
    public Map<String, Object> handshake(
        HandshakeEra era, Map<String, Object> clientInfo, Map<String, Object> capabilities, Duration timeout)
        throws SessionException, InterruptedException {
      return session.handshake(era, clientInfo, capabilities, timeout);
    }

    @Override
    public Map<String, Object> handshake(HandshakeEra era, Map<String, Object> clientInfo,
        Map<String, Object> capabilities, String protocolVersion, Duration timeout)
        throws SessionException, InterruptedException {
      return session.handshake(era, clientInfo, capabilities, protocolVersion, timeout);
    }

    @Override
    public Optional<HandshakeEra> completedHandshake() {
      return session.completedHandshake();
    }

    @Override
    public Map<String, Object> eraMeta(Map<String, Object> clientInfo, Map<String, Object> capabilities) {
      return session.eraMeta(clientInfo, capabilities);
    }

    @Override
    public CompletableFuture<Map<String, Object>> request(String method, Map<String, Object> params)
        throws SessionException {
      return session.request(method, params);
    }

    @Override
    public boolean cancel(CompletableFuture<Map<String, Object>> answer, String reason) throws SessionException {
      return session.cancel(answer, reason);
    }

    @Override
    public void notify(String method, Map<String, Object> params) throws SessionException {
      session.notify(method, params);
    }

    @Override
    public OptionalLong pid() {
      return session.pid();
    }

    @Override
    public void abort(String reason) {
      session.abort(reason);
    }

    @Override
    public void close() {
      try {
        session.close();
      } finally {
        if (closed.compareAndSet(false, true)) {
          release.run();
          SandboxLayout.delete(root);
        }
      }
    }
  }
}
