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
 * The one thread bubblewrap processes started with {@code --die-with-parent} are spawned from:
 * the kernel ties that to the <em>thread</em> that spawned the process, so a pool thread that
 * ended would take its sandboxes with it. The thread is made on first use and never ends (a
 * task's failure is its future's). Thread-safe.
 */
final class Spawner {
  /** The spawner of the probe's sandboxes, for the life of this process. */
  static final Spawner SANDBOXES = new Spawner("cotenant-sandbox-spawner");

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
    CompletableFuture<ServerSession> started = CompletableFuture.supplyAsync(() -> {
      try {
        return delegate.open(server, label, handler);
      } catch (SessionException e) {
        throw new CompletionException(e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new CompletionException(e);
      }
    }, thread());
    try {
      return started.get();
    } catch (InterruptedException e) {
      // Nobody will use a session that starts now: it is closed as soon as it exists.
      started.thenAccept(ServerSession::close);
      throw e;
    } catch (ExecutionException e) {
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
