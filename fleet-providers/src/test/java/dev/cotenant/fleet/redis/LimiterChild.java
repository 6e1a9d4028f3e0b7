package dev.cotenant.fleet.redis;

import dev.cotenant.spi.ConcurrencyLimiter;
import dev.cotenant.spi.ConcurrencyLimiter.Permit;
import dev.cotenant.spi.ProviderConfig;
import dev.cotenant.spi.ProviderContext;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A separate JVM sharing a Redis limiter with the test, through {@link RedisLimiterProvider}.
 *
 * <ul>
 *   <li>{@code loop URL SERVER MAX THREADS MILLIS}: THREADS threads acquire, hold 1-4 ms and
 *       release until MILLIS have passed, then print {@code granted N} and exit.
 *   <li>{@code hold URL SERVER MAX LEASE_MS N}: acquires N permits, prints {@code held N}, and
 *       holds them (renewed) until killed.
 * </ul>
 */
public final class LimiterChild {
  private LimiterChild() {}

  public static void main(String[] args) throws Exception {
    String mode = args[0];
    String url = args[1];
    String server = args[2];
    int max = Integer.parseInt(args[3]);
    Map<String, String> config = new java.util.HashMap<>(Map.of("cotenant.limiter.redis.url", url));
    if (mode.equals("hold")) {
      config.put("cotenant.limiter.redis.lease-ms", args[4]);
    }
    ConcurrencyLimiter limiter = new RedisLimiterProvider()
        .create(new ProviderContext(ProviderConfig.of(config), Path.of(System.getProperty("java.io.tmpdir"))));
    if (mode.equals("hold")) {
      int n = Integer.parseInt(args[5]);
      List<Permit> held = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        held.add(limiter.acquire(server, max, 30, TimeUnit.SECONDS).orElseThrow());
      }
      System.out.println("held " + held.size());
      System.out.flush();
      Thread.sleep(Long.MAX_VALUE);
      return;
    }
    int threads = Integer.parseInt(args[4]);
    long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(Long.parseLong(args[5]));
    AtomicInteger granted = new AtomicInteger();
    List<Thread> workers = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      Thread w = new Thread(() -> {
        try {
          while (System.nanoTime() < until) {
            Optional<Permit> p = limiter.acquire(server, max, 200, TimeUnit.MILLISECONDS);
            if (p.isPresent()) {
              try {
                granted.incrementAndGet();
                Thread.sleep(1 + ThreadLocalRandom.current().nextInt(4));
              } finally {
                p.get().close();
              }
            }
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }, "child-worker-" + t);
      w.start();
      workers.add(w);
    }
    for (Thread w : workers) {
      w.join();
    }
    System.out.println("granted " + granted.get());
    System.out.flush();
    System.exit(0);
  }
}
