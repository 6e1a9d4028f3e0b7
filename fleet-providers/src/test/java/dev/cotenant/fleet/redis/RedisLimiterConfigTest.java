package dev.cotenant.fleet.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.spi.ProviderConfig;
import dev.cotenant.spi.ProviderContext;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The redis limiter's configuration: what it accepts, what it refuses, and what it never shows. */
class RedisLimiterConfigTest {
  @TempDir Path dir;

  private static RedisLimiterConfig read(Map<String, String> env, String... keyValues) {
    Map<String, String> m = new HashMap<>();
    for (int i = 0; i < keyValues.length; i += 2) {
      m.put(keyValues[i], keyValues[i + 1]);
    }
    return RedisLimiterConfig.from(ProviderConfig.of(m), env::get);
  }

  private static IllegalArgumentException refused(String... keyValues) {
    return assertThrows(IllegalArgumentException.class, () -> read(Map.of(), keyValues));
  }

  @Test
  void aMissingUrlIsRefusedByTheProviderNamingTheKey() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> new RedisLimiterProvider().create(new ProviderContext(ProviderConfig.empty(), dir)));
    assertTrue(e.getMessage().contains(RedisLimiterConfig.URL), e.getMessage());
    assertTrue(refused(RedisLimiterConfig.URL, "  ").getMessage().contains(RedisLimiterConfig.URL));
  }

  @Test
  void malformedUrlsAreRefusedNamingTheKeyWithoutTheirCredentials() {
    for (String bad : new String[] {"localhost:6379", "http://127.0.0.1:6379", "redis://", "redis:///0",
        "redis://127.0.0.1:6379/zero", "redis://127.0.0.1:6379/0?x=1", "redis://h:6379/-1", "redis://a b:1"}) {
      IllegalArgumentException e = refused(RedisLimiterConfig.URL, bad);
      assertTrue(e.getMessage().contains(RedisLimiterConfig.URL), bad + ": " + e.getMessage());
    }
    IllegalArgumentException withSecret = refused(RedisLimiterConfig.URL, "http://admin:s3cret@127.0.0.1:6379");
    assertFalse(withSecret.getMessage().contains("s3cret"), withSecret.getMessage());
    assertFalse(withSecret.getMessage().contains("admin"), withSecret.getMessage());
  }

  @Test
  void aLeaseThatIsNotAWholeNumberInRangeIsRefusedNamingTheKey() {
    for (String bad : new String[] {"soon", "1.5", "0", "-1", "99", "86400001"}) {
      IllegalArgumentException e = refused(RedisLimiterConfig.URL, "redis://127.0.0.1:6379", RedisLimiterConfig.LEASE_MS, bad);
      assertTrue(e.getMessage().contains(RedisLimiterConfig.LEASE_MS), bad + ": " + e.getMessage());
    }
  }

  @Test
  void defaultsAndTheUrlsParts() {
    RedisLimiterConfig c = read(Map.of(), RedisLimiterConfig.URL, "redis://cache.internal");
    assertEquals("cache.internal", c.host);
    assertEquals(6379, c.port);
    assertEquals(0, c.database);
    assertFalse(c.tls);
    assertEquals(30_000, c.leaseMs);
    assertEquals("cotenant:limiter:", c.prefix);
    assertNull(c.password);
    assertEquals("redis://cache.internal:6379", c.displayUrl);

    RedisLimiterConfig t = read(Map.of(), RedisLimiterConfig.URL, "rediss://10.0.0.7:6380/3",
        RedisLimiterConfig.LEASE_MS, "1500", RedisLimiterConfig.PREFIX, "fleet-a:");
    assertTrue(t.tls);
    assertEquals(6380, t.port);
    assertEquals(3, t.database);
    assertEquals(1500, t.leaseMs);
    assertEquals("fleet-a:", t.prefix);
    assertEquals("rediss://10.0.0.7:6380/3", t.displayUrl);
  }

  @Test
  void thePasswordComesFromTheFileElseTheEnvironmentElseTheUrlAndIsNeverShown() throws Exception {
    String url = "redis://limiter:from-url@127.0.0.1:6379/1";
    RedisLimiterConfig fromUrl = read(Map.of(), RedisLimiterConfig.URL, url);
    assertEquals("limiter", fromUrl.user);
    assertEquals("from-url", fromUrl.password);
    RedisLimiterConfig fromEnv = read(Map.of(RedisLimiterConfig.PASSWORD_ENV, "from-env"), RedisLimiterConfig.URL, url);
    assertEquals("from-env", fromEnv.password);
    Path file = Files.writeString(dir.resolve("password"), "from-file\n");
    RedisLimiterConfig fromFile = read(Map.of(RedisLimiterConfig.PASSWORD_ENV, "from-env"), RedisLimiterConfig.URL, url,
        RedisLimiterConfig.PASSWORD_FILE, file.toString());
    assertEquals("from-file", fromFile.password);
    for (RedisLimiterConfig c : new RedisLimiterConfig[] {fromUrl, fromEnv, fromFile}) {
      assertEquals("redis://127.0.0.1:6379/1", c.displayUrl);
      assertFalse(c.toString().contains("from-"), c.toString());
      assertFalse(c.toString().contains("limiter@"), c.toString());
    }
  }

  @Test
  void aPasswordFileThatCannotBeReadOrIsEmptyIsRefusedNamingTheKey() throws Exception {
    IllegalArgumentException missing = refused(RedisLimiterConfig.URL, "redis://127.0.0.1:6379",
        RedisLimiterConfig.PASSWORD_FILE, dir.resolve("absent").toString());
    assertTrue(missing.getMessage().contains(RedisLimiterConfig.PASSWORD_FILE), missing.getMessage());
    Path empty = Files.writeString(dir.resolve("empty"), "\n");
    IllegalArgumentException blank = refused(RedisLimiterConfig.URL, "redis://127.0.0.1:6379",
        RedisLimiterConfig.PASSWORD_FILE, empty.toString());
    assertTrue(blank.getMessage().contains(RedisLimiterConfig.PASSWORD_FILE), blank.getMessage());
  }
}
