package dev.cotenant.providers.limiter;

import dev.cotenant.spi.ConcurrencyLimiter;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The in-process limiter: one fair {@link Semaphore} per server. A server's limit is fixed by
 * the first acquire that names it; a later acquire with another limit is refused, since
 * resizing a semaphore with permits out would break the bound. Thread-safe.
 */
public final class SemaphoreLimiter implements ConcurrencyLimiter {
  private static final class Slots {
    final int max;
    final Semaphore semaphore;

    Slots(int max) {
      this.max = max;
      this.semaphore = new Semaphore(max, true);
    }
  }

  private final ConcurrentHashMap<String, Slots> slots = new ConcurrentHashMap<>();

  @Override
  public Optional<Permit> acquire(String serverName, int maxConcurrent, long timeout, TimeUnit unit)
      throws InterruptedException {
    if (maxConcurrent < 1) {
      throw new IllegalArgumentException("maxConcurrent must be positive, got " + maxConcurrent + " for " + serverName);
    }
    Slots s = slots.computeIfAbsent(serverName, k -> new Slots(maxConcurrent));
    if (s.max != maxConcurrent) {
      throw new IllegalStateException(
          "server " + serverName + " is limited to " + s.max + " concurrent calls in this process; refusing a limit of "
              + maxConcurrent + " (restart to change it)");
    }
    if (!s.semaphore.tryAcquire(timeout, unit)) {
      return Optional.empty();
    }
    AtomicBoolean released = new AtomicBoolean();
    return Optional.of(
        () -> {
          if (released.compareAndSet(false, true)) {
            s.semaphore.release();
          }
        });
  }
}
