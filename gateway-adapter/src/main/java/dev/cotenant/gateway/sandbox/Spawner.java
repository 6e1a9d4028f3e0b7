package dev.cotenant.gateway.sandbox;

import dev.cotenant.api.LogSafe;
import dev.cotenant.api.ServerDescription;
import dev.cotenant.spi.ServerMessageHandler;
import dev.cotenant.spi.ServerSession;
import dev.cotenant.spi.SessionException;
import dev.cotenant.spi.SessionTransport;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.jspecify.annotations.Nullable;

/**
 * The threads bubblewrap processes started with {@code --die-with-parent} are spawned from: the
 * kernel ties that to the <em>thread</em> that spawned the process, so a pool thread that ended
 * would take its sandboxes with it. An instance is one thread, made on first use, that never ends
 * (a task's failure is its future's): the backends' pid namespaces. {@link #openHeld} spawns each
 * probe sandbox from a thread of its own that lives as long as its session. Thread-safe.
 */
final class Spawner {
  private final String name;
  private @Nullable ExecutorService thread;

  Spawner(String name) {
    this.name = name;
  }

  private synchronized ExecutorService thread() {
    if (thread == null) {
      thread = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
      });
    }
    return thread;
  }

  /** Opens {@code server} through {@code delegate} on the spawner's thread, and waits for it. */
  ServerSession open(SessionTransport delegate, ServerDescription server, String label, ServerMessageHandler handler)
      throws SessionException, InterruptedException {
    CompletableFuture<ServerSession> started = CompletableFuture.supplyAsync(() -> opened(delegate, server, label,
        handler), thread());
    return await(started, () -> {});
  }

  /**
   * A session and what ends the thread that spawned it: {@code release} after the session is
   * closed.
   */
  record Held(ServerSession session, Runnable release) {}

  /**
   * Opens {@code server} through {@code delegate} on a new thread of its own that lives until
   * {@link Held#release}: made by the caller's thread, it inherits what the caller's thread holds
   * for the transport (the bounds {@code openWithin} puts in force), and the session's bubblewrap
   * lives as long as it does.
   */
  static Held openHeld(SessionTransport delegate, ServerDescription server, String label, ServerMessageHandler handler)
      throws SessionException, InterruptedException {
    CompletableFuture<ServerSession> started = new CompletableFuture<>();
    java.util.concurrent.CountDownLatch released = new java.util.concurrent.CountDownLatch(1);
    Thread t = new Thread(() -> {
      try {
        started.complete(opened(delegate, server, label, handler));
      } catch (RuntimeException | Error e) {
        started.completeExceptionally(e);
        return;
      }
      while (true) {
        try {
          released.await();
          return;
        } catch (InterruptedException e) {
          // Held until released: the sandbox ends with this thread.
        }
      }
    }, "cotenant-sandbox-" + LogSafe.escape(label, 60));
    t.setDaemon(true);
    t.start();
    ServerSession s = await(started, released::countDown);
    return new Held(s, released::countDown);
  }

  private static ServerSession opened(SessionTransport delegate, ServerDescription server, String label,
      ServerMessageHandler handler) {
    try {
      return delegate.open(server, label, handler);
    } catch (SessionException e) {
      throw new CompletionException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new CompletionException(e);
    }
  }

  /** Waits for {@code started}; on interruption, the session is closed as soon as it exists, then {@code release} runs. */
  private static ServerSession await(CompletableFuture<ServerSession> started, Runnable release)
      throws SessionException, InterruptedException {
    try {
      return started.get();
    } catch (InterruptedException e) {
      // Nobody will use a session that starts now: it is closed as soon as it exists.
      started.whenComplete((session, failure) -> {
        if (session != null) {
          session.close();
        }
        release.run();
      });
      throw e;
    } catch (ExecutionException e) {
      release.run();
      Throwable cause = e.getCause();
      if (cause instanceof SessionException se) {
        throw se;
      }
      if (cause instanceof InterruptedException ie) {
        throw ie;
      }
      if (cause instanceof RuntimeException re) {
        throw re;
      }
      throw new SessionException(SessionException.Kind.START, "the server could not be started: "
          + LogSafe.escape(String.valueOf(cause), 200));
    }
  }
}
