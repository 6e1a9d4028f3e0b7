package dev.cotenant.testkit.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.cotenant.spi.ConcurrencyLimiter;
import dev.cotenant.spi.ConcurrencyLimiterProvider;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The contract of a {@link ConcurrencyLimiterProvider} and its {@link ConcurrencyLimiter} (docs/statelessness.md
 * ): at most {@code maxConcurrent} permits of one server are held at once, whatever the
 * contention; a permit closed releases its slot exactly once.
 *
 * <p><b>Checks</b> (beside {@link NamedProviderContract}'s): the provider creates a limiter from a
 * context with empty configuration; {@code maxConcurrent} permits can be held at once and one more
 * is refused; many threads contending never hold more than {@code maxConcurrent} permits at once,
 * and all of them get one in time; an acquire that cannot get a slot in time returns empty; a
 * closed permit's slot can be taken again, by a waiter too; closing a permit twice frees one slot,
 * not two; servers are limited independently; an acquire interrupted while waiting throws
 * {@link InterruptedException} and takes no slot.
 *
 * <p><b>Extending:</b> implement {@link #constructor()}; override {@link #context()} when the
 * limiter needs configuration (a distributed limiter's address). Server names are unique per test
 * run, so a shared backend needs no cleaning between tests. Test methods are package-private: a
 * subclass cannot override a rule away.
 *
 * <p><b>Thread-safety:</b> one suite instance per test, as JUnit does by default.
 */
public abstract class ConcurrencyLimiterContract
    extends NamedProviderContract<ConcurrencyLimiterProvider, ConcurrencyLimiter> {
  private static final long SHORT_MS = 100;
  private static final long LONG_S = 30;

  /** For subclasses. */
  protected ConcurrencyLimiterContract() {
    super(ConcurrencyLimiterProvider::create);
  }

  /** A limiter created by a new provider from {@link #context()}. */
  protected final ConcurrencyLimiter limiter() {
    return created();
  }

  /** A server name no other test of this run uses. */
  protected final String server(String label) {
    return label + "-" + directory.getFileName();
  }

  @Test
  void maxConcurrentPermitsAreGrantedAndOneMoreIsRefused() throws Exception {
    ConcurrencyLimiter l = limiter();
    String s = server("max");
    List<ConcurrencyLimiter.Permit> held = new ArrayList<>();
    try {
      for (int i = 0; i < 3; i++) {
        held.add(acquired(l.acquire(s, 3, LONG_S, TimeUnit.SECONDS), "permit " + (i + 1) + " of 3"));
      }
      assertRefused(l, s, 3, SHORT_MS, "a 4th permit was granted with maxConcurrent 3");
    } finally {
      held.forEach(ConcurrencyLimiter.Permit::close);
    }
  }

  @Test
  void contentionNeverExceedsMaxConcurrent() throws Exception {
    ConcurrencyLimiter l = limiter();
    String s = server("contended");
    int max = 3;
    AtomicInteger inFlight = new AtomicInteger();
    AtomicInteger most = new AtomicInteger();
    List<Integer> granted = Concurrently.run(12, 120, worker -> {
      int got = 0;
      for (int i = 0; i < 20; i++) {
        Optional<ConcurrencyLimiter.Permit> p = l.acquire(s, max, LONG_S, TimeUnit.SECONDS);
        if (p.isEmpty()) {
          continue;
        }
        try {
          int now = inFlight.incrementAndGet();
          most.accumulateAndGet(now, Math::max);
          Thread.sleep(1);
          got++;
        } finally {
          inFlight.decrementAndGet();
          p.get().close();
        }
      }
      return got;
    });
    assertTrue(most.get() <= max, most.get() + " permits were held at once with maxConcurrent " + max);
    assertEquals(12 * 20, granted.stream().mapToInt(Integer::intValue).sum(), "some contending acquires never got a permit");
  }

  @Test
  void anAcquireThatTimesOutReturnsEmpty() throws Exception {
    ConcurrencyLimiter l = limiter();
    String s = server("timeout");
    ConcurrencyLimiter.Permit held = theOnlyPermit(l, s);
    try {
      long start = System.nanoTime();
      Optional<ConcurrencyLimiter.Permit> late = l.acquire(s, 1, SHORT_MS, TimeUnit.MILLISECONDS);
      long waitedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
      late.ifPresent(ConcurrencyLimiter.Permit::close);
      assertTrue(late.isEmpty(), "a permit was granted while the only slot was held");
      assertTrue(waitedMs < SHORT_MS + 10_000, "a " + SHORT_MS + " ms acquire took " + waitedMs + " ms");
      assertRefused(l, s, 1, 0, "a zero-timeout permit was granted while the only slot was held");
    } finally {
      held.close();
    }
  }

  @Test
  void aClosedPermitsSlotCanBeTakenAgainByAWaiter() throws Exception {
    ConcurrencyLimiter l = limiter();
    String s = server("reuse");
    ConcurrencyLimiter.Permit first = theOnlyPermit(l, s);
    CountDownLatch waiting = new CountDownLatch(1);
    CompletableFuture<Optional<ConcurrencyLimiter.Permit>> waiter = CompletableFuture.supplyAsync(() -> {
      waiting.countDown();
      try {
        return l.acquire(s, 1, LONG_S, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return Optional.empty();
      }
    });
    waiting.await();
    Thread.sleep(SHORT_MS);
    first.close();
    Optional<ConcurrencyLimiter.Permit> second = waiter.get(LONG_S + 5, TimeUnit.SECONDS);
    acquired(second, "the permit of a waiter after the holder closed its permit").close();
    acquired(l.acquire(s, 1, LONG_S, TimeUnit.SECONDS), "a permit after every permit was closed").close();
  }

  @Test
  void closingAPermitTwiceReleasesOneSlot() throws Exception {
    ConcurrencyLimiter l = limiter();
    String s = server("double-close");
    ConcurrencyLimiter.Permit p = acquired(l.acquire(s, 1, LONG_S, TimeUnit.SECONDS), "the only permit");
    p.close();
    p.close();
    assertExactlyOneSlotFree(l, s, "a permit after close", "closing one permit twice freed two slots of maxConcurrent 1");
  }

  @Test
  void serversAreLimitedIndependently() throws Exception {
    ConcurrencyLimiter l = limiter();
    String a = server("independent-a");
    String b = server("independent-b");
    ConcurrencyLimiter.Permit pa = acquired(l.acquire(a, 1, LONG_S, TimeUnit.SECONDS), "the permit of a");
    try {
      Optional<ConcurrencyLimiter.Permit> pb = l.acquire(b, 1, SHORT_MS, TimeUnit.MILLISECONDS);
      acquired(pb, "a permit of b while a's only slot is held").close();
    } finally {
      pa.close();
    }
  }

  @Test
  void anInterruptedAcquireThrowsAndTakesNoSlot() throws Exception {
    ConcurrencyLimiter l = limiter();
    String s = server("interrupted");
    ConcurrencyLimiter.Permit held = theOnlyPermit(l, s);
    CompletableFuture<Object> outcome = new CompletableFuture<>();
    Thread waiter = new Thread(() -> {
      try {
        Optional<ConcurrencyLimiter.Permit> p = l.acquire(s, 1, LONG_S, TimeUnit.SECONDS);
        p.ifPresent(ConcurrencyLimiter.Permit::close);
        outcome.complete(p);
      } catch (InterruptedException e) {
        outcome.complete(e);
      } catch (RuntimeException e) {
        outcome.complete(e);
      }
    }, "contract-interrupted-acquire");
    waiter.setDaemon(true);
    waiter.start();
    Thread.sleep(SHORT_MS);
    waiter.interrupt();
    Object result;
    try {
      result = outcome.get(LONG_S, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      throw new AssertionError(e.getCause());
    }
    if (!(result instanceof InterruptedException)) {
      fail("an acquire interrupted while waiting did not throw InterruptedException but ended with " + result);
    }
    held.close();
    assertExactlyOneSlotFree(l, s, "a permit after the interrupt", "the interrupted acquire left a slot taken or freed one");
  }

  /** The permit of the only slot of {@code s} (maxConcurrent 1), which must be granted. */
  private static ConcurrencyLimiter.Permit theOnlyPermit(ConcurrencyLimiter l, String s) throws InterruptedException {
    return acquired(l.acquire(s, 1, LONG_S, TimeUnit.SECONDS), "the only permit");
  }

  /**
   * The only slot of {@code s} (maxConcurrent 1) is granted (as {@code what}), and while it is
   * held a second acquire is refused ({@code message} if not).
   */
  private static void assertExactlyOneSlotFree(ConcurrencyLimiter l, String s, String what, String message)
      throws InterruptedException {
    ConcurrencyLimiter.Permit only = acquired(l.acquire(s, 1, LONG_S, TimeUnit.SECONDS), what);
    try {
      assertRefused(l, s, 1, SHORT_MS, message);
    } finally {
      only.close();
    }
  }

  /** An acquire of {@code s} waiting at most {@code timeoutMs} returns empty; a permit it grants is closed. */
  private static void assertRefused(ConcurrencyLimiter l, String s, int maxConcurrent, long timeoutMs, String message)
      throws InterruptedException {
    Optional<ConcurrencyLimiter.Permit> p = l.acquire(s, maxConcurrent, timeoutMs, TimeUnit.MILLISECONDS);
    p.ifPresent(ConcurrencyLimiter.Permit::close);
    assertTrue(p.isEmpty(), message);
  }

  private static ConcurrencyLimiter.Permit acquired(Optional<ConcurrencyLimiter.Permit> p, String what) {
    assertNotNull(p, "acquire returned null");
    assertTrue(p.isPresent(), what + " was not granted");
    return p.get();
  }
}
