package dev.cotenant.cli.daemon.http;

import dev.cotenant.api.LogSafe;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The endpoint's client sessions: those opened by {@code initialize}, each under a random 128-bit
 * id, and those of stateless requests in flight. A timer writes each open stream's keep-alive and
 * closes a session with nothing in flight, no open stream and no request for the idle timeout.
 * Once {@link #close() closed} it holds no session, and the endpoint opens none. Thread-safe.
 */
final class HttpSessions implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(HttpSessions.class);

  private final Duration idleTimeout;
  private final SecureRandom random = new SecureRandom();
  private final Map<String, HttpClientSession> sessions = new ConcurrentHashMap<>();
  /** The sessions of stateless requests in flight. */
  private final Set<HttpClientSession> oneShots = ConcurrentHashMap.newKeySet();
  private final ScheduledExecutorService timers;
  private volatile boolean closed;

  HttpSessions(Duration keepAlive, Duration idleTimeout) {
    this.idleTimeout = idleTimeout;
    this.timers = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "cotenant-http-timers");
      t.setDaemon(true);
      return t;
    });
    long every = keepAlive.toMillis();
    timers.scheduleWithFixedDelay(this::tick, every, every, TimeUnit.MILLISECONDS);
  }

  /** The sessions open now (stateless requests' not counted). */
  int count() {
    return sessions.size();
  }

  /** Whether {@link #close()} was called. */
  boolean isClosed() {
    return closed;
  }

  /** A new random session id: 32 hex digits. */
  String newId() {
    byte[] bytes = new byte[16];
    random.nextBytes(bytes);
    return HexFormat.of().formatHex(bytes);
  }

  /** The session {@code id} of server {@code serverName}, if it is open. */
  Optional<HttpClientSession> find(String serverName, String id) {
    HttpClientSession s = sessions.get(id);
    return s != null && s.serverName().equals(serverName) ? Optional.of(s) : Optional.empty();
  }

  /** Keeps {@code session} under its id. */
  void add(HttpClientSession session) {
    sessions.put(session.id(), session);
  }

  /** Forgets {@code session} if it is still the one under its id; whether it was. */
  boolean remove(HttpClientSession session) {
    return sessions.remove(session.id(), session);
  }

  /** Forgets {@code session} and closes it. */
  void discard(HttpClientSession session, String why) {
    sessions.remove(session.id(), session);
    session.close(why);
  }

  /** Keeps the session of a stateless request while it is in flight. */
  void addOneShot(HttpClientSession session) {
    oneShots.add(session);
  }

  /** Forgets the session of a stateless request and closes it. */
  void endOneShot(HttpClientSession session, String why) {
    oneShots.remove(session);
    session.close(why);
  }

  /** Runs {@code work} off the caller's thread (a backend's reader must not wait for a close). */
  void later(Runnable work) {
    try {
      timers.execute(work);
    } catch (RejectedExecutionException e) {
      work.run();
    }
  }

  /** Keep-alives, and closing the sessions left idle. */
  private void tick() {
    try {
      long cutoff = System.nanoTime() - idleTimeout.toNanos();
      for (HttpClientSession s : List.copyOf(sessions.values())) {
        if (s.idleSince(cutoff)) {
          LOG.info("HTTP session {} of {} closed after {} s idle", s.id(), LogSafe.escape(s.serverName()),
              idleTimeout.toSeconds());
          discard(s, "it was idle for " + idleTimeout.toSeconds() + " s");
        } else {
          s.keepAlive();
        }
      }
    } catch (RuntimeException e) {
      LOG.warn("HTTP keep-alive failed: {}", LogSafe.escape(String.valueOf(e.getMessage()), 200));
    }
  }

  /** Closes every session; later requests find none. */
  @Override
  public void close() {
    closed = true;
    timers.shutdownNow();
    for (HttpClientSession s : List.copyOf(sessions.values())) {
      discard(s, "the daemon is stopping");
    }
    for (HttpClientSession s : List.copyOf(oneShots)) {
      endOneShot(s, "the daemon is stopping");
    }
  }
}
