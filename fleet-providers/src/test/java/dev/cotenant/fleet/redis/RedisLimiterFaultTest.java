package dev.cotenant.fleet.redis;

import static dev.cotenant.fleet.redis.Limiters.freePort;
import static dev.cotenant.fleet.redis.Limiters.limiter;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.fleet.servers.RedisServer;
import dev.cotenant.spi.ConcurrencyLimiter.Permit;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The redis limiter fails closed: while Redis cannot be reached, or answers with an error, an
 * acquire refuses the call with a message naming the URL (never a password) and grants nothing;
 * once Redis is back, acquires work again, and permits held across its restart close quietly.
 * Renewal keeps a permit held past its lease.
 */
class RedisLimiterFaultTest {
  private static final String PASSWORD = "pw-never-shown-42";

  @TempDir Path dir;

  private static String everything(Throwable e) {
    StringWriter w = new StringWriter();
    e.printStackTrace(new PrintWriter(w));
    return w.toString();
  }

  private static IllegalStateException refused(RedisLimiter l, String server) {
    return assertThrows(IllegalStateException.class, () -> {
      Optional<Permit> p = l.acquire(server, 3, 200, TimeUnit.MILLISECONDS);
      p.ifPresent(Permit::close);
      throw new AssertionError("acquire returned " + p + " instead of refusing");
    });
  }

  @Test
  void nothingListeningRefusesTheCallNamingTheUrlWithoutThePassword() throws Exception {
    int port = freePort();
    Path secret = Files.writeString(dir.resolve("password"), PASSWORD + "\n");
    try (RedisLimiter l = limiter("redis://limiter:" + PASSWORD + "@127.0.0.1:" + port,
        RedisLimiterConfig.PASSWORD_FILE, secret.toString())) {
      IllegalStateException e = refused(l, "nobody");
      String m = e.getMessage();
      assertTrue(m.startsWith("the redis limiter at redis://127.0.0.1:" + port + " cannot be reached ("), m);
      assertTrue(m.endsWith("): refusing the call rather than admitting it without a limit"), m);
      assertTrue(m.contains("Connection refused"), m);
      assertFalse(everything(e).contains(PASSWORD), "the password is in the refusal or its causes: " + everything(e));
      assertFalse(m.contains("limiter@"), m);
      assertEquals(0, l.held());
    }
  }

  @Test
  void aKilledRedisRefusesCallsAndARestartedOneAdmitsThemAgain() throws Exception {
    try (RedisServer redis = RedisServer.start(); RedisLimiter l = limiter(redis.url())) {
      Permit before = l.acquire("restarted", 3, 5, TimeUnit.SECONDS).orElseThrow();
      Permit across = l.acquire("restarted", 3, 5, TimeUnit.SECONDS).orElseThrow();
      before.close();
      redis.kill();
      for (int i = 0; i < 3; i++) {
        IllegalStateException e = refused(l, "restarted");
        assertTrue(e.getMessage().contains(redis.url()) && e.getMessage().contains("refusing the call"), e.getMessage());
      }
      assertDoesNotThrow(before::close, "closing a closed permit while Redis is down");
      assertDoesNotThrow(across::close, "releasing a permit while Redis is down");
      redis.restart();
      // The pooled connections died with the old server, and the new one knows no script.
      Permit after = l.acquire("restarted", 3, 5, TimeUnit.SECONDS).orElseThrow();
      assertEquals(1, redis.integer("ZCARD", RedisLimiterConfig.DEFAULT_PREFIX + "restarted"));
      after.close();
      assertEquals(0, redis.integer("ZCARD", RedisLimiterConfig.DEFAULT_PREFIX + "restarted"));
    }
  }

  @Test
  void permitsHeldAcrossARestartCloseWithoutThrowing() throws Exception {
    try (RedisServer redis = RedisServer.start(); RedisLimiter l = limiter(redis.url())) {
      Permit a = l.acquire("across", 2, 5, TimeUnit.SECONDS).orElseThrow();
      Permit b = l.acquire("across", 2, 5, TimeUnit.SECONDS).orElseThrow();
      redis.kill();
      redis.restart();
      assertDoesNotThrow(a::close);
      assertDoesNotThrow(b::close);
      assertDoesNotThrow(b::close);
      Permit c = l.acquire("across", 2, 5, TimeUnit.SECONDS).orElseThrow();
      Permit d = l.acquire("across", 2, 5, TimeUnit.SECONDS).orElseThrow();
      assertTrue(l.acquire("across", 2, 0, TimeUnit.MILLISECONDS).isEmpty(), "a third permit with maxConcurrent 2");
      c.close();
      d.close();
    }
  }

  @Test
  void anErrorFromRedisRefusesTheCall() throws Exception {
    try (RedisServer redis = RedisServer.start(); RedisLimiter l = limiter(redis.url())) {
      assertEquals("+OK", redis.command("SET", RedisLimiterConfig.DEFAULT_PREFIX + "typed", "not a set"));
      IllegalStateException e = refused(l, "typed");
      assertTrue(e.getMessage().startsWith("the redis limiter at " + redis.url() + " failed ("), e.getMessage());
      assertTrue(e.getMessage().contains("WRONGTYPE"), e.getMessage());
      assertTrue(e.getMessage().endsWith("refusing the call rather than admitting it without a limit"), e.getMessage());
    }
  }

  @Test
  void aRedisThatRequiresAPasswordAdmitsWithItAndRefusesWithoutIt() throws Exception {
    try (RedisServer redis = RedisServer.start()) {
      Path secret = Files.writeString(dir.resolve("password"), PASSWORD + "\n");
      assertEquals("+OK", redis.command("CONFIG", "SET", "requirepass", PASSWORD));
      try (RedisLimiter without = limiter(redis.url());
          RedisLimiter wrong = limiter("redis://:wrong-" + PASSWORD + "@127.0.0.1:" + redis.port());
          RedisLimiter with = limiter(redis.url(), RedisLimiterConfig.PASSWORD_FILE, secret.toString())) {
        for (RedisLimiter l : new RedisLimiter[] {without, wrong}) {
          IllegalStateException e = refused(l, "guarded");
          assertTrue(e.getMessage().contains(redis.url()) && e.getMessage().contains("refusing the call"), e.getMessage());
          assertFalse(everything(e).contains(PASSWORD), everything(e));
        }
        with.acquire("guarded", 1, 5, TimeUnit.SECONDS).orElseThrow().close();
      }
    }
  }

  @Test
  void renewalKeepsAPermitHeldPastItsLease() throws Exception {
    try (RedisServer redis = RedisServer.start();
        RedisLimiter holder = limiter(redis.url(), RedisLimiterConfig.LEASE_MS, "300");
        RedisLimiter other = limiter(redis.url(), RedisLimiterConfig.LEASE_MS, "300")) {
      Permit p = holder.acquire("long-call", 1, 5, TimeUnit.SECONDS).orElseThrow();
      Thread.sleep(1500);
      Optional<Permit> stolen = other.acquire("long-call", 1, 0, TimeUnit.MILLISECONDS);
      stolen.ifPresent(Permit::close);
      assertTrue(stolen.isEmpty(), "the slot of a permit held for five leases was given away");
      p.close();
      other.acquire("long-call", 1, 5, TimeUnit.SECONDS).orElseThrow().close();
      assertEquals(0, redis.integer("EXISTS", RedisLimiterConfig.DEFAULT_PREFIX + "missing"));
      long ttl = redis.integer("PTTL", RedisLimiterConfig.DEFAULT_PREFIX + "long-call");
      assertTrue(ttl == -2 || (ttl > 0 && ttl <= 900), "an idle key should expire within a few leases, PTTL " + ttl);
    }
  }

  @Test
  void anAcquireByAnInterruptedThreadThrowsAndTakesNoSlot() throws Exception {
    try (RedisServer redis = RedisServer.start(); RedisLimiter l = limiter(redis.url())) {
      Thread.currentThread().interrupt();
      try {
        assertThrows(InterruptedException.class, () -> l.acquire("interrupted", 1, 5, TimeUnit.SECONDS));
      } finally {
        Thread.interrupted();
      }
      assertEquals(0, redis.integer("ZCARD", RedisLimiterConfig.DEFAULT_PREFIX + "interrupted"));
      l.acquire("interrupted", 1, 5, TimeUnit.SECONDS).orElseThrow().close();
    }
  }
}
