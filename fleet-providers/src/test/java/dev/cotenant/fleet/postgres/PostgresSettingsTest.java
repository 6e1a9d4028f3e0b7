package dev.cotenant.fleet.postgres;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.spi.ProviderConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code postgres} stores' settings without a server: where the user and password come from,
 * how the URL is named in messages, which secrets every message is scrubbed of, and the driver's
 * properties. A secret this class misses reaches a log line or an error a user pastes. Mutants of
 * {@link PostgresSettings}: the blank filters of {@code from}, {@code redact}'s bounds,
 * {@code secrets}' parts (the password, URL parameters named like a password, their decoded
 * form, the password of {@code user:password@}, the order longest first), {@code reveals}
 * answering true, and {@code driverProperties}' three "unless the URL sets it" conditions.
 */
class PostgresSettingsTest {
  @TempDir Path dir;

  private static PostgresSettings settings(String url, Optional<String> password) {
    return new PostgresSettings(url, "cotenant", Optional.empty(), password);
  }

  @Test
  void aBlankUserOrPasswordSettingFallsBackToTheEnvironment() throws Exception {
    PostgresSettings s = PostgresSettings.from(ProviderConfig.of(Map.of(PostgresSettings.URL_KEY, "jdbc:postgresql://h/db",
        PostgresSettings.USER_KEY, "  ")), Map.of(PostgresSettings.USER_ENV, "from-env", PostgresSettings.PASSWORD_ENV, "pw-env"));
    assertEquals(Optional.of("from-env"), s.user());
    assertEquals(Optional.of("pw-env"), s.password());

    PostgresSettings none = PostgresSettings.from(ProviderConfig.of(Map.of(PostgresSettings.URL_KEY, "jdbc:postgresql://h/db")),
        Map.of(PostgresSettings.USER_ENV, "", PostgresSettings.PASSWORD_ENV, ""));
    assertEquals(Optional.empty(), none.user(), "an empty variable is no user");
    assertEquals(Optional.empty(), none.password(), "an empty variable is no password");

    Path file = dir.resolve("pw");
    Files.writeString(file, "from-file\nsecond line\n");
    PostgresSettings filed = PostgresSettings.from(ProviderConfig.of(Map.of(PostgresSettings.URL_KEY, "jdbc:postgresql://h/db",
        PostgresSettings.PASSWORD_FILE_KEY, file.toString())), Map.of(PostgresSettings.PASSWORD_ENV, "pw-env"));
    assertEquals(Optional.of("from-file"), filed.password(), "the file's first line, before the environment");

    IllegalArgumentException blank = assertThrows(IllegalArgumentException.class, () -> PostgresSettings.from(
        ProviderConfig.of(Map.of(PostgresSettings.URL_KEY, "  ")), Map.of()));
    assertTrue(blank.getMessage().contains("need " + PostgresSettings.URL_KEY), blank.getMessage());
  }

  @Test
  void theRedactedUrlKeepsHostAndDatabaseOnly() {
    assertEquals("jdbc:postgresql://h:5432/db", PostgresSettings.redact("jdbc:postgresql://u:pw@h:5432/db?password=x&ssl=true"));
    assertEquals("jdbc:postgresql://h/db", PostgresSettings.redact("jdbc:postgresql://h/db?"));
    assertEquals("jdbc:postgresql:db", PostgresSettings.redact("jdbc:postgresql:db?user=u"), "no authority");
    assertEquals("jdbc:postgresql://h/db", PostgresSettings.redact("jdbc:postgresql://@h/db"), "an empty user info");
    assertEquals("jdbc:postgresql://h/db", PostgresSettings.redact("jdbc:postgresql://u:p/w@h/db"),
        "a password with an unencoded / is hidden whole: the last @ ends the user info");
    assertEquals("jdbc:postgresql:@x", PostgresSettings.redact("jdbc:postgresql:@x"), "an @ with no authority");
  }

  /**
   * A URL that is not PostgreSQL's is refused naming it redacted, whatever it starts with.
   * Mutants: {@code redact}'s {@code q >= 0} and {@code scheme >= 0} at {@code > 0} (a URL
   * starting with {@code ?} or {@code //} was named with its password).
   */
  @Test
  void aUrlThatIsNotPostgresIsRefusedWithoutItsSecrets() {
    for (String url : List.of("?password=hunter2", "//admin:hunter2@db.example/records", "mysql://a:hunter2@h/db")) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> settings(url, Optional.empty()));
      assertTrue(e.getMessage().startsWith(PostgresSettings.URL_KEY + " must be a PostgreSQL JDBC URL"), e.getMessage());
      assertFalse(e.getMessage().contains("hunter2"), e.getMessage());
    }
  }

  /** A user info with an empty user still holds a password. Mutant: the colon's check at {@code > 0}. */
  @Test
  void aPasswordAfterAnEmptyUserIsASecret() {
    assertEquals(List.of("pw2"), settings("jdbc:postgresql://:pw2@h/db", Optional.empty()).secrets());
  }

  @Test
  void everySecretOfTheConfigurationIsFoundLongestFirst() {
    PostgresSettings s = settings("jdbc:postgresql://alice:url%2Fpw@h/db?sslpassword=a%26b&PassWord=p2&user=bob&x=",
        Optional.of("file-password-long"));
    assertEquals(List.of("file-password-long", "url%2Fpw", "a%26b", "a&b", "p2"), s.secrets(),
        "the password, user:password@'s, and each parameter named like a password as written and decoded");
    assertFalse(s.secrets().contains("bob"), "a user is no secret");
    assertEquals("failed at jdbc:postgresql://h/db: ***, ***, ***", s.scrub(
        "failed at jdbc:postgresql://alice:url%2Fpw@h/db?sslpassword=a%26b&PassWord=p2&user=bob&x=: file-password-long, a&b, p2"));
    assertTrue(s.reveals("the password is p2"));
    assertFalse(s.reveals("nothing secret here, bob"));
  }

  @Test
  void aLongerSecretIsHiddenWholeBeforeAShorterOneInsideIt() {
    PostgresSettings s = settings("jdbc:postgresql://h/db?password=abc", Optional.of("xabcx"));
    assertEquals(List.of("xabcx", "abc"), s.secrets());
    assertEquals("*** and ***", s.scrub("xabcx and abc"));
  }

  @Test
  void withoutSecretsNothingIsRevealed() {
    PostgresSettings s = settings("jdbc:postgresql://h/db", Optional.empty());
    assertEquals(List.of(), s.secrets());
    assertFalse(s.reveals("any text"));
    assertEquals(List.of(), settings("jdbc:postgresql://u@h/db?password=", Optional.empty()).secrets(),
        "a user without a password, an empty password parameter");
  }

  @Test
  void theDriverGetsTimeoutsAndBatchingUnlessTheUrlSetsThem() {
    Properties plain = new PostgresSettings("jdbc:postgresql://h/db", "cotenant", Optional.of("u"), Optional.of("pw"))
        .driverProperties();
    assertEquals("u", plain.getProperty("user"));
    assertEquals("pw", plain.getProperty("password"));
    assertEquals("5", plain.getProperty("connectTimeout"));
    assertEquals("30", plain.getProperty("socketTimeout"));
    assertEquals("true", plain.getProperty("reWriteBatchedInserts"));
    assertEquals("cotenant", plain.getProperty("ApplicationName"));
    Properties own = settings("jdbc:postgresql://h/db?connectTimeout=1&socketTimeout=2&reWriteBatchedInserts=false",
        Optional.empty()).driverProperties();
    assertFalse(own.containsKey("connectTimeout"), own.toString());
    assertFalse(own.containsKey("socketTimeout"), own.toString());
    assertFalse(own.containsKey("reWriteBatchedInserts"), own.toString());
    assertFalse(own.containsKey("user"));
    assertFalse(own.containsKey("password"));
  }
}
