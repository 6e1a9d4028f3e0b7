package dev.cotenant.providers.limiter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.spi.ConcurrencyLimiter;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class SemaphoreLimiterTest {
  @Test
  void neverAdmitsMoreThanMaxConcurrentCalls() throws Exception {
    SemaphoreLimiter limiter = new SemaphoreLimiter();
    int max = 3;
    int threads = 24;
    int callsPerThread = 200;
    AtomicInteger inFlight = new AtomicInteger();
    AtomicInteger peak = new AtomicInteger();
    AtomicInteger served = new AtomicInteger();
    CountDownLatch start = new CountDownLatch(1);
    List<Thread> workers = new ArrayList<>();
    List<Throwable> errors = new java.util.concurrent.CopyOnWriteArrayList<>();
    for (int t = 0; t < threads; t++) {
      Thread w =
          new Thread(
              () -> {
                try {
                  start.await();
                  for (int i = 0; i < callsPerThread; i++) {
                    try (ConcurrencyLimiter.Permit p =
                        limiter.acquire("counting", max, 60, TimeUnit.SECONDS).orElseThrow()) {
                      int now = inFlight.incrementAndGet();
                      peak.accumulateAndGet(now, Math::max);
                      Thread.yield();
                      inFlight.decrementAndGet();
                      served.incrementAndGet();
                    }
                  }
                } catch (Throwable e) {
                  errors.add(e);
                }
              });
      workers.add(w);
      w.start();
    }
    start.countDown();
    for (Thread w : workers) {
      w.join(TimeUnit.MINUTES.toMillis(2));
    }

    assertEquals(List.of(), errors);
    assertEquals(threads * callsPerThread, served.get());
    assertTrue(peak.get() <= max, "peak " + peak.get() + " exceeded " + max);
    assertTrue(peak.get() >= 2, "the test must actually run calls concurrently; peak was " + peak.get());
  }

  @Test
  void aPermitReleasesItsSlotExactlyOnce() throws Exception {
    SemaphoreLimiter limiter = new SemaphoreLimiter();
    ConcurrencyLimiter.Permit p = limiter.acquire("s", 1, 1, TimeUnit.SECONDS).orElseThrow();
    assertTrue(limiter.acquire("s", 1, 0, TimeUnit.SECONDS).isEmpty(), "the only slot is held");
    p.close();
    p.close();
    Optional<ConcurrencyLimiter.Permit> again = limiter.acquire("s", 1, 0, TimeUnit.SECONDS);
    assertTrue(again.isPresent());
    assertTrue(limiter.acquire("s", 1, 0, TimeUnit.SECONDS).isEmpty(), "a double close did not add a slot");
  }

  @Test
  void serversAreLimitedIndependently() throws Exception {
    SemaphoreLimiter limiter = new SemaphoreLimiter();
    limiter.acquire("a", 1, 0, TimeUnit.SECONDS).orElseThrow();
    assertTrue(limiter.acquire("b", 1, 0, TimeUnit.SECONDS).isPresent());
  }

  @Test
  void aChangedLimitOrANonPositiveOneIsRefused() throws Exception {
    SemaphoreLimiter limiter = new SemaphoreLimiter();
    limiter.acquire("a", 2, 0, TimeUnit.SECONDS).orElseThrow();
    assertEquals(
        "server a is limited to 2 concurrent calls in this process; refusing a limit of 3 (restart to change it)",
        assertThrows(IllegalStateException.class, () -> limiter.acquire("a", 3, 0, TimeUnit.SECONDS)).getMessage());
    assertThrows(IllegalArgumentException.class, () -> limiter.acquire("b", 0, 0, TimeUnit.SECONDS));
  }
}
