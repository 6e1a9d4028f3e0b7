package dev.cotenant.fleet.redis;

import static dev.cotenant.fleet.redis.Limiters.freePort;
import static dev.cotenant.fleet.redis.Limiters.limiter;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.fleet.servers.RedisServer;
import dev.cotenant.spi.ConcurrencyLimiter.Permit;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/**
 * Corners of the redis limiter a mutation run found unchecked: the renewal thread, the password
 * in a driver's message, the connections a closed limiter keeps, the key's lifetime, a lease lost
 * while held, and the retry on a connection that died with a restarted server. Each test names
 * the mutant it kills.
 */
class RedisLimiterCornersTest {
  private static final String RENEWAL_THREAD = "cotenant-redis-limiter-renewal";

  /** Polls {@code condition} for up to 20 s; true as soon as it holds. No assertion on time. */
  private static boolean eventually(BooleanSupplier condition) throws InterruptedException {
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > until) {
        return false;
      }
      Thread.sleep(20);
    }
    return true;
  }

  private static long limiterConnections(RedisServer redis) {
    try {
      return redis.bulk("CLIENT", "LIST").lines().filter(l -> l.contains(" name=cotenant-limiter ")).count();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /**
   * Kills the renewal thread's factory without {@code setDaemon}: a host that forgets to close
   * the limiter must still be able to exit, so its renewal thread never keeps the JVM alive.
   */
  @Test
  void theRenewalThreadNeverKeepsTheJvmAlive() throws Exception {
    try (RedisLimiter l = limiter("redis://127.0.0.1:" + freePort())) {
      List<Thread> renewal = Thread.getAllStackTraces().keySet().stream()
          .filter(t -> t.getName().equals(RENEWAL_THREAD) && t.isAlive())
          .toList();
      assertFalse(renewal.isEmpty(), "no renewal thread runs");
      for (Thread t : renewal) {
        assertTrue(t.isDaemon(), t + " is not a daemon thread");
      }
    }
  }

  /**
   * Kills {@code cause} with its password test negated: a driver message that happens to hold the
   * password (here the password is the word of the refused connection's message) shows it masked.
   */
  @Test
  void aDriverMessageHoldingThePasswordShowsItMasked() throws Exception {
    int port = freePort();
    try (RedisLimiter l = limiter("redis://:refused@127.0.0.1:" + port)) {
      IllegalStateException e = assertThrows(IllegalStateException.class, () -> l.acquire("masked", 1, 0, TimeUnit.MILLISECONDS));
      assertTrue(e.getMessage().contains("(Connection ***)"), e.getMessage());
      assertFalse(e.getMessage().contains("refused"), e.getMessage());
    }
  }

  /**
   * Kills {@code close} without {@code redis.close()}: a closed limiter leaves no connection open
   * on the Redis server (the pool kept them idle for good otherwise). Also {@code held} returning
   * 0.
   */
  @Test
  void aClosedLimiterKeepsNoConnection() throws Exception {
    try (RedisServer redis = RedisServer.start()) {
      RedisLimiter l = limiter(redis.url());
      Permit p = l.acquire("closing", 2, 5, TimeUnit.SECONDS).orElseThrow();
      assertEquals(1, l.held());
      p.close();
      assertEquals(0, l.held());
      assertTrue(limiterConnections(redis) > 0, redis.bulk("CLIENT", "LIST"));
      l.close();
      assertTrue(eventually(() -> limiterConnections(redis) == 0), redis.bulk("CLIENT", "LIST"));
    }
  }

  /**
   * Kills the constructor's key lifetime with its multiplication made a division: the server's key
   * lives three leases past its last write, never less than one lease (it would vanish, and every
   * lease with it, between two renewals).
   */
  @Test
  void theServersKeyOutlivesALease() throws Exception {
    try (RedisServer redis = RedisServer.start(); RedisLimiter l = limiter(redis.url(), RedisLimiterConfig.LEASE_MS, "10000")) {
      Permit p = l.acquire("lifetime", 1, 5, TimeUnit.SECONDS).orElseThrow();
      long ttl = redis.integer("PTTL", RedisLimiterConfig.DEFAULT_PREFIX + "lifetime");
      p.close();
      assertTrue(ttl > 10_000 && ttl <= 30_000, "PTTL " + ttl + " for a lease of 10000 ms");
    }
  }

  /**
   * Kills {@code renew} with either half of its test for lost leases negated: a lease Redis lost
   * while its slot was taken since is dropped from what this process holds at the next renewal,
   * instead of being counted as held for good. Redis loses it here in one script that also gives
   * the slot to another holder, so no renewal can come in between.
   */
  @Test
  void aLeaseLostWhileHeldIsDroppedAtTheNextRenewal() throws Exception {
    String key = RedisLimiterConfig.DEFAULT_PREFIX + "lost";
    try (RedisServer redis = RedisServer.start(); RedisLimiter holder = limiter(redis.url(), RedisLimiterConfig.LEASE_MS, "300")) {
      Permit held = holder.acquire("lost", 1, 5, TimeUnit.SECONDS).orElseThrow();
      assertEquals(1, holder.held());
      redis.command("EVAL", "redis.call('DEL', KEYS[1]) return redis.call('ZADD', KEYS[1], 9999999999999, 'another-holder')", "1", key);
      assertTrue(eventually(() -> holder.held() == 0), "the lost lease is still counted as held");
      assertEquals("another-holder", redis.bulk("ZRANGE", key, "0", "-1").strip(), "the renewal took no slot back");
      held.close();
      assertEquals(1, redis.integer("ZCARD", key));
    }
  }

  /**
   * Kills {@code retried} returning null after its retry: the first acquire after Redis restarted,
   * made on a pooled connection that died with the old server, is answered on a new connection.
   */
  @Test
  void theFirstAcquireAfterARestartIsAnsweredOnANewConnection() throws Exception {
    try (RedisServer redis = RedisServer.start(); RedisLimiter l = limiter(redis.url())) {
      l.acquire("restarted", 1, 5, TimeUnit.SECONDS).orElseThrow().close();
      redis.kill();
      redis.restart();
      Permit p = l.acquire("restarted", 1, 5, TimeUnit.SECONDS).orElseThrow();
      assertEquals(1, redis.integer("ZCARD", RedisLimiterConfig.DEFAULT_PREFIX + "restarted"));
      p.close();
    }
  }
}
