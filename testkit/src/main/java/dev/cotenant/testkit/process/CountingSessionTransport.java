package dev.cotenant.testkit.process;

import dev.cotenant.api.ServerDescription;
import dev.cotenant.spi.ServerMessageHandler;
import dev.cotenant.spi.ServerSession;
import dev.cotenant.spi.SessionException;
import dev.cotenant.spi.SessionTransport;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A {@link SessionTransport} that counts, without sampling, how many server processes the
 * sessions it opens could have had, and did have, running at once. Every {@code open} and
 * {@code close} passes through it, so no moment is missed.
 *
 * <ul>
 *   <li>{@link #peakPossiblyLive()}: an upper bound. A session counts from the moment
 *       {@code open} is entered (before anything is spawned) until its {@code close} returns
 *       (which tears its process down and waits for it), or until a failed {@code open} returns.
 *   <li>{@link #peakSeenAlive()}: a lower bound. Each time {@code open} returns a session of a
 *       local process, every process of a session opened and not yet closed is checked alive;
 *       each was started before the checks began and is alive at its own check, so all of them
 *       were alive together when the checks began.
 * </ul>
 *
 * <p>Thread-safe.
 */
public final class CountingSessionTransport implements SessionTransport {
  private final SessionTransport delegate;
  private final Object lock = new Object();
  private int possiblyLive;
  private int peakPossiblyLive;
  private final List<Long> openPids = new ArrayList<>();
  private int peakSeenAlive;

  /** Counts what {@code delegate} opens. */
  public CountingSessionTransport(SessionTransport delegate) {
    this.delegate = Objects.requireNonNull(delegate, "delegate");
  }

  /** The most sessions ever between the start of their {@code open} and the end of their {@code close}. */
  public int peakPossiblyLive() {
    synchronized (lock) {
      return peakPossiblyLive;
    }
  }

  /** The most server processes ever seen alive together. */
  public int peakSeenAlive() {
    synchronized (lock) {
      return peakSeenAlive;
    }
  }

  @Override
  public ServerSession open(ServerDescription server, String label, ServerMessageHandler handler)
      throws SessionException, InterruptedException {
    synchronized (lock) {
      possiblyLive++;
      peakPossiblyLive = Math.max(peakPossiblyLive, possiblyLive);
    }
    ServerSession session;
    try {
      session = delegate.open(server, label, handler);
    } catch (SessionException | InterruptedException | RuntimeException | Error e) {
      ended();
      throw e;
    }
    OptionalLong pid = session.pid();
    if (pid.isPresent()) {
      synchronized (lock) {
        openPids.add(pid.getAsLong());
        int alive = 0;
        for (long p : openPids) {
          if (ProcessHandle.of(p).map(ProcessHandle::isAlive).orElse(false)) {
            alive++;
          }
        }
        peakSeenAlive = Math.max(peakSeenAlive, alive);
      }
    }
    return counted(session, pid);
  }

  private void ended() {
    synchronized (lock) {
      possiblyLive--;
    }
  }

  private ServerSession counted(ServerSession session, OptionalLong pid) {
    AtomicBoolean closed = new AtomicBoolean();
    InvocationHandler h =
        (proxy, method, args) -> {
          boolean close =
              method.getName().equals("close") && method.getParameterCount() == 0 && !closed.getAndSet(true);
          if (close && pid.isPresent()) {
            synchronized (lock) {
              openPids.remove(Long.valueOf(pid.getAsLong()));
            }
          }
          try {
            return method.invoke(session, args);
          } catch (InvocationTargetException e) {
            throw e.getCause();
          } finally {
            if (close) {
              ended();
            }
          }
        };
    return (ServerSession)
        Proxy.newProxyInstance(
            ServerSession.class.getClassLoader(), new Class<?>[] {ServerSession.class}, h);
  }
}
