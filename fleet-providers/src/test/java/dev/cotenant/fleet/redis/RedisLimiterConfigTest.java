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

  /**
   * The edges of what is accepted. Kills, in {@code from}: the lease's range checks and the
   * database's sign check with {@code <} made {@code <=} (the bounds themselves and database 0
   * are accepted); the IPv6 brackets' test with either half negated and its {@code substring}
   * (no test had an IPv6 host); the user info's {@code colon < 0} made {@code <=} (a password with
   * no user name), and the empty-password test rewritten to dereference a null password (a user
   * name with no password); the password file's filter of blank settings returning true (a
   * blank setting is no file); and, in the display URL, {@code indexOf(':') >= 0} made {@code > 0}
   * (an IPv6 host such as {@code ::1} lost its brackets).
   */
  @Test
  void theEdgesOfWhatIsAccepted() {
    assertEquals(100, read(Map.of(), RedisLimiterConfig.URL, "redis://h", RedisLimiterConfig.LEASE_MS, "100").leaseMs);
    assertEquals(86_400_000, read(Map.of(), RedisLimiterConfig.URL, "redis://h", RedisLimiterConfig.LEASE_MS, "86400000").leaseMs);

    RedisLimiterConfig zero = read(Map.of(), RedisLimiterConfig.URL, "redis://h:6380/0");
    assertEquals(0, zero.database);
    assertEquals("redis://h:6380", zero.displayUrl);

    RedisLimiterConfig v6 = read(Map.of(), RedisLimiterConfig.URL, "redis://[::1]:6380/2");
    assertEquals("::1", v6.host);
    assertEquals("redis://[::1]:6380/2", v6.displayUrl);

    RedisLimiterConfig passwordOnly = read(Map.of(), RedisLimiterConfig.URL, "redis://:pw@h");
    assertNull(passwordOnly.user);
    assertEquals("pw", passwordOnly.password);
    RedisLimiterConfig userOnly = read(Map.of(), RedisLimiterConfig.URL, "redis://limiter@h");
    assertEquals("limiter", userOnly.user);
    assertNull(userOnly.password);
    RedisLimiterConfig emptyPassword = read(Map.of(), RedisLimiterConfig.URL, "redis://limiter:@h");
    assertEquals("limiter", emptyPassword.user);
    assertNull(emptyPassword.password);

    RedisLimiterConfig blankFile = read(Map.of(RedisLimiterConfig.PASSWORD_ENV, "from-env"), RedisLimiterConfig.URL, "redis://h",
        RedisLimiterConfig.PASSWORD_FILE, "  ");
    assertEquals("from-env", blankFile.password, "a blank password-file setting is no file");
  }

  /** Port 0 and ports past 65535 name no server: refused, not read as the default port. */
  @Test
  void aPortOutsideOneTo65535IsRefused() {
    for (String bad : new String[] {"redis://h:0", "redis://h:65536", "rediss://h:99999/1"}) {
      IllegalArgumentException e = refused(RedisLimiterConfig.URL, bad);
      assertTrue(e.getMessage().contains("the port must be between 1 and 65535"), bad + ": " + e.getMessage());
    }
    assertEquals(1, read(Map.of(), RedisLimiterConfig.URL, "redis://h:1").port);
    assertEquals(65535, read(Map.of(), RedisLimiterConfig.URL, "redis://h:65535").port);
  }

  /**
   * The password file's first line is the password, whatever ends it. Kills {@code readPassword}'s
   * end-of-line test negated (a file without a final newline failed) and made {@code <= 0} (a
   * file whose first line is empty took its second line).
   */
  @Test
  void thePasswordIsTheFirstLineOfTheFile() throws Exception {
    Path bare = Files.writeString(dir.resolve("bare"), "s3cret");
    assertEquals("s3cret", read(Map.of(), RedisLimiterConfig.URL, "redis://h", RedisLimiterConfig.PASSWORD_FILE, bare.toString()).password);
    Path crlf = Files.writeString(dir.resolve("crlf"), "  s3cret \r\nsecond\n");
    assertEquals("s3cret", read(Map.of(), RedisLimiterConfig.URL, "redis://h", RedisLimiterConfig.PASSWORD_FILE, crlf.toString()).password);
    Path firstEmpty = Files.writeString(dir.resolve("first-empty"), "\nsecond\n");
    IllegalArgumentException e = refused(RedisLimiterConfig.URL, "redis://h", RedisLimiterConfig.PASSWORD_FILE, firstEmpty.toString());
    assertTrue(e.getMessage().endsWith("which is empty"), e.getMessage());
  }

  /**
   * What a message shows of a URL. Kills {@code redact} returning "", and its test for a
   * remaining {@code @} negated (a URL whose credentials cannot be told apart was shown whole, and
   * a clean one hidden); and {@code toString} returning "".
   */
  @Test
  void aMessageShowsTheUrlWithoutCredentialsOrNotAtAll() {
    assertEquals("'redis://h:1/x'", RedisLimiterConfig.redact("redis://admin:s3cret@h:1/x"));
    assertEquals("'redis://h:1'", RedisLimiterConfig.redact("redis://h:1"));
    assertEquals("(a value with credentials, not shown)", RedisLimiterConfig.redact("redis://h/pass@word"));
    assertEquals("redis limiter at redis://127.0.0.1:6379/1 (lease 1500 ms, prefix 'fleet-a:')",
        read(Map.of(), RedisLimiterConfig.URL, "redis://limiter:pw@127.0.0.1:6379/1", RedisLimiterConfig.LEASE_MS, "1500",
            RedisLimiterConfig.PREFIX, "fleet-a:").toString());
  }
}
