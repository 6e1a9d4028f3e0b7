package dev.cotenant.gateway.sharing;

import dev.cotenant.api.ConcurrencyRecord;
import dev.cotenant.spi.ConcurrencyLimiter;
import dev.cotenant.spi.ConcurrencyLimiter.Permit;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Admits calls to a server within its record's {@code maxConcurrent}, through the runtime's
 * {@link ConcurrencyLimiter} (in-process semaphore by default; a fleet plugs in a distributed
 * one). A record without {@code maxConcurrent} (possible for {@code sidecar} and
 * {@code warm_pool}, never for {@code shared}) admits every call. Thread-safe.
 */
public final class ConcurrencyLimits {
  private static final Permit UNLIMITED = () -> {};

  private final ConcurrencyLimiter limiter;

  /** Limits through {@code limiter}. */
  public ConcurrencyLimits(ConcurrencyLimiter limiter) {
    this.limiter = Objects.requireNonNull(limiter, "limiter");
  }

  /**
   * Waits up to {@code timeout} for a slot of the record's server. Close the permit when the
   * call has been answered.
   *
   * @return the permit, or empty when no slot became free in time
   */
  public Optional<Permit> admit(ConcurrencyRecord record, long timeout, TimeUnit unit) throws InterruptedException {
    Objects.requireNonNull(record, "record");
    if (record.maxConcurrent().isEmpty()) {
      return Optional.of(UNLIMITED);
    }
    return limiter.acquire(record.serverName(), record.maxConcurrent().getAsInt(), timeout, unit);
  }
}
