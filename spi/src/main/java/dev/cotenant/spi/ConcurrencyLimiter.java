package dev.cotenant.spi;

import java.util.concurrent.TimeUnit;

/**
 * Enforces a server's {@code maxConcurrent}: at most that many calls in flight per server.
 * Thread-safe. Every successful {@link #acquire} must be matched by closing its permit.
 */
public interface ConcurrencyLimiter {
  /** A held slot; closing it releases the slot exactly once. */
  interface Permit extends AutoCloseable {
    @Override
    void close();
  }

  /**
   * Waits up to {@code timeout} for a slot of {@code serverName}, whose limit is
   * {@code maxConcurrent}.
   *
   * @return the permit, or empty when none became free in time
   */
  java.util.Optional<Permit> acquire(String serverName, int maxConcurrent, long timeout, TimeUnit unit)
      throws InterruptedException;
}
