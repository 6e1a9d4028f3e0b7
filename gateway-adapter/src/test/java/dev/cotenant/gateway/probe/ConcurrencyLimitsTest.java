package dev.cotenant.gateway.probe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.inject.Guice;
import dev.cotenant.api.ConcurrencyRecord;
import dev.cotenant.api.ProbePass;
import dev.cotenant.api.ShareScope;
import dev.cotenant.gateway.Cotenant;
import dev.cotenant.gateway.CotenantModule;
import dev.cotenant.gateway.providers.Spi;
import dev.cotenant.gateway.sharing.ConcurrencyLimits;
import dev.cotenant.providers.limiter.SemaphoreLimiter;
import dev.cotenant.spi.HandshakeEra;
import dev.cotenant.spi.ServerMessageHandler;
import dev.cotenant.spi.ServerSession;
import dev.cotenant.spi.ConcurrencyLimiter;
import dev.cotenant.spi.ConcurrencyLimiter.Permit;
import dev.cotenant.spi.ConcurrencyLimiterProvider;
import dev.cotenant.spi.ProviderContext;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code maxConcurrent} is enforced per server by the limiter SPI: many threads calling one
 * backend that counts the calls it holds at once never get more than the limit in.
 */
@ExtendWith(ProbeHarness.NoneLeft.class)
class ConcurrencyLimitsTest {
  private static final int MAX = 3;
  private static final int THREADS = 16;
  private static final int CALLS_PER_THREAD = 4;

  @TempDir Path records;

  private static ConcurrencyRecord shared(int max) {
    return ConcurrencyRecord.shared("counting", ShareScope.TENANT, max, ProbePass.wholeSurface("id", 5, 1.0, ProbePass.Surface.of(java.util.List.of("work"), java.util.Map.of())));
  }

  @Test
  void theLimiterNeverAdmitsMoreThanMaxConcurrentCalls() throws Exception {
    Cotenant cotenant = Cotenant.builder().recordsDirectory(records).build();
    assertEquals(MAX, mostInFlight(Optional.of(new ConcurrencyLimits(cotenant.limiter())), shared(MAX)));
  }

  @Test
  void withoutTheLimiterTheSameLoadExceedsTheLimit() throws Exception {
    // The control: the counting server and the load do exceed MAX when nothing limits them, so
    // the test above could fail.
    assertTrue(mostInFlight(Optional.empty(), shared(MAX)) > MAX);
  }

  @Test
  void aRecordWithoutMaxConcurrentAdmitsEveryCall() throws Exception {
    ConcurrencyLimits limits = new ConcurrencyLimits(new SemaphoreLimiter());
    ConcurrencyRecord sidecar = ConcurrencyRecord.sidecar("s");
    List<Permit> held = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      held.add(limits.admit(sidecar, 0, TimeUnit.MILLISECONDS).orElseThrow());
    }
    assertEquals(50, held.size());
    ConcurrencyRecord two = ConcurrencyRecord.shared("t", ShareScope.TENANT, 2, ProbePass.wholeSurface("id", 3, 1.0, ProbePass.Surface.of(java.util.List.of("work"), java.util.Map.of())));
    Permit a = limits.admit(two, 0, TimeUnit.MILLISECONDS).orElseThrow();
    Permit b = limits.admit(two, 0, TimeUnit.MILLISECONDS).orElseThrow();
    assertEquals(Optional.empty(), limits.admit(two, 0, TimeUnit.MILLISECONDS));
    a.close();
    a.close();
    Permit c = limits.admit(two, 0, TimeUnit.MILLISECONDS).orElseThrow();
    assertEquals(Optional.empty(), limits.admit(two, 0, TimeUnit.MILLISECONDS), "closing twice frees one slot");
    b.close();
    c.close();
  }

  @Test
  void theLimiterIsSelectedLikeEveryOtherSingleProvider() {
    assertEquals("cotenant.limiter.provider", Spi.LIMITER.selectionKey().orElseThrow());
    assertEquals("semaphore", Spi.LIMITER.defaultName().orElseThrow());
    assertTrue(Cotenant.builder().recordsDirectory(records).build().limiter() instanceof SemaphoreLimiter);

    ConcurrencyLimiter mine = (server, max, timeout, unit) -> Optional.empty();
    ConcurrencyLimiterProvider provider = new ConcurrencyLimiterProvider() {
      @Override
      public String name() {
        return "fleet";
      }

      @Override
      public ConcurrencyLimiter create(ProviderContext context) {
        return mine;
      }
    };
    assertSame(mine, Cotenant.builder().recordsDirectory(records).limiter(provider).build().limiter());
    Cotenant injected = Guice.createInjector(new CotenantModule(Cotenant.builder().recordsDirectory(records).limiter(provider)))
        .getInstance(Cotenant.class);
    assertSame(mine, injected.limiter());
  }

  /** Runs THREADS x CALLS_PER_THREAD calls on one counting backend; returns the most it ever held at once. */
  private int mostInFlight(Optional<ConcurrencyLimits> limits, ConcurrencyRecord record) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(THREADS);
    try (ServerSession session = ProbeHarness.sessions().open(
        ProbeHarness.server("counting", "counting", String.valueOf(MAX)), "counting", ServerMessageHandler.noUser("no user"))) {
      session.handshake(HandshakeEra.AUTO, Map.of("name", "limits-test", "version", "1"), Map.of(), java.time.Duration.ofSeconds(60));
      CountDownLatch start = new CountDownLatch(1);
      List<Future<Integer>> done = new ArrayList<>();
      for (int t = 0; t < THREADS; t++) {
        done.add(pool.submit(() -> {
          start.await();
          int answered = 0;
          for (int i = 0; i < CALLS_PER_THREAD; i++) {
            Optional<Permit> permit = limits.isPresent()
                ? limits.get().admit(record, 60, TimeUnit.SECONDS)
                : Optional.of(() -> {});
            try (Permit p = permit.orElseThrow(() -> new AssertionError("no slot within 60 s"))) {
              Map<String, Object> answer =
                  session.request("tools/call", Map.of("name", "work", "arguments", Map.of())).get(60, TimeUnit.SECONDS);
              assertTrue(answer.containsKey("result"), answer::toString);
              answered++;
            }
          }
          return answered;
        }));
      }
      start.countDown();
      for (Future<Integer> f : done) {
        assertEquals(CALLS_PER_THREAD, f.get(120, TimeUnit.SECONDS));
      }
      Map<String, Object> stats =
          session.request("tools/call", Map.of("name", "stats", "arguments", Map.of())).get(60, TimeUnit.SECONDS);
      String text = StatelessnessProbe.toJson(stats.get("result"));
      int at = text.indexOf("max=");
      return Integer.parseInt(text.substring(at + 4, text.indexOf('"', at)));
    } finally {
      pool.shutdownNow();
    }
  }
}
