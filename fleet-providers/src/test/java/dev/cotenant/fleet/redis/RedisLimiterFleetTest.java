package dev.cotenant.fleet.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.fleet.servers.RedisPerClass;
import dev.cotenant.spi.ConcurrencyLimiter.Permit;
import dev.cotenant.spi.ProviderConfig;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Separate processes sharing one Redis: together they never hold more than {@code maxConcurrent}
 * leases, as Redis itself counts them; a process SIGKILLed with its permits held gives them back
 * when their leases run out.
 */
class RedisLimiterFleetTest {
  /** The leases Redis counts as live (expiry after now on its own clock). */
  private static final String LIVE = "local t = redis.call('TIME') "
      + "return redis.call('ZCOUNT', KEYS[1], '(' .. (tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)), '+inf')";

  @RegisterExtension static final RedisPerClass REDIS = new RedisPerClass();

  private static long live(String server) throws Exception {
    return REDIS.server().integer("EVAL", LIVE, "1", RedisLimiterConfig.DEFAULT_PREFIX + server);
  }

  @Test
  void twoProcessesNeverHoldMoreThanMaxConcurrentTogether() throws Exception {
    String server = "fleet";
    try (Children children = new Children()) {
      Process a = children.start("loop", REDIS.server().url(), server, "3", "6", "4000");
      Process b = children.start("loop", REDIS.server().url(), server, "3", "6", "4000");
      long most = 0;
      int samples = 0;
      while (a.isAlive() || b.isAlive()) {
        long n = live(server);
        most = Math.max(most, n);
        samples++;
        assertTrue(n <= 3, n + " leases were live at once in Redis with maxConcurrent 3");
      }
      assertTrue(a.waitFor(30, TimeUnit.SECONDS) && b.waitFor(30, TimeUnit.SECONDS));
      String outA = new String(a.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
      String outB = new String(b.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
      assertEquals(0, a.exitValue(), outA + children.log(0));
      assertEquals(0, b.exitValue(), outB + children.log(1));
      long grantedA = granted(outA);
      long grantedB = granted(outB);
      assertTrue(grantedA > 0 && grantedB > 0, "a process got no permit: " + outA + " / " + outB);
      assertTrue(samples > 20, "only " + samples + " samples were taken");
      assertEquals(3, most, "the two processes never held 3 permits together (" + samples + " samples; granted "
          + grantedA + " and " + grantedB + "), so the bound was not exercised");
      assertEquals(0, live(server), "leases were left after both processes released every permit");
      System.out.printf("two processes: %d and %d permits granted, %d samples, at most %d live%n",
          grantedA, grantedB, samples, most);
    }
  }

  private static long granted(String out) {
    assertTrue(out.startsWith("granted "), "unexpected output: " + out);
    return Long.parseLong(out.substring("granted ".length()).strip());
  }

  @Test
  void aSigkilledHoldersPermitsReturnWhenTheirLeasesRunOut() throws Exception {
    String server = "sigkill";
    long leaseMs = 3000;
    try (Children children = new Children();
        RedisLimiter mine = new RedisLimiter(RedisLimiterConfig.from(ProviderConfig.of(Map.of(
            RedisLimiterConfig.URL, REDIS.server().url(), RedisLimiterConfig.LEASE_MS, Long.toString(leaseMs))), k -> null))) {
      Process holder = children.start("hold", REDIS.server().url(), server, "3", Long.toString(leaseMs), "3");
      assertEquals("held 3", Children.line(holder, 60), children.log(0));
      // Held past two leases: the holder's renewals keep its slots.
      Thread.sleep(2 * leaseMs);
      assertEquals(3, live(server), "the holder's renewed leases");
      assertTrue(mine.acquire(server, 3, 0, TimeUnit.MILLISECONDS).isEmpty(), "a 4th permit while the holder lives");

      holder.destroyForcibly();
      assertTrue(holder.waitFor(30, TimeUnit.SECONDS));
      Optional<Permit> right = mine.acquire(server, 3, 0, TimeUnit.MILLISECONDS);
      right.ifPresent(Permit::close);
      assertTrue(right.isEmpty(), "a slot came free at once: the leases of a killed holder should run out, not vanish");

      long start = System.nanoTime();
      Optional<Permit> later = mine.acquire(server, 3, leaseMs + 5000, TimeUnit.MILLISECONDS);
      long waitedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
      assertTrue(later.isPresent(), "no slot returned within the lease of " + leaseMs + " ms + 5 s after the kill");
      later.get().close();
      java.util.List<Permit> all = new java.util.ArrayList<>();
      for (int i = 0; i < 3; i++) {
        Optional<Permit> p = mine.acquire(server, 3, leaseMs + 5000, TimeUnit.MILLISECONDS);
        assertTrue(p.isPresent(), "slot " + (i + 1) + " of 3 after the holder's leases ran out");
        all.add(p.get());
      }
      all.forEach(Permit::close);
      assertEquals(0, live(server));
      System.out.printf("SIGKILL: a slot returned %d ms after the kill (lease %d ms)%n", waitedMs, leaseMs);
    }
  }
}
