package dev.cotenant.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A configuration shown in a log or a message never carries a credential. */
class ProviderConfigTest {
  @Test
  void toStringHidesTheValuesOfKeysThatMayHoldACredential() {
    ProviderConfig c = ProviderConfig.of(Map.of(
        "cotenant.records.postgres.url", "jdbc:postgresql://db/x?password=hunter2",
        "cotenant.limiter.redis.url", "redis://:s3cret@redis:6379",
        "cotenant.records.postgres.password-file", "/run/secrets/pg",
        "cotenant.example.api-token", "a9f3e1",
        "cotenant.preflight.era", "initialize"));
    String shown = c.toString();
    for (String secret : new String[] {"hunter2", "s3cret", "/run/secrets/pg", "a9f3e1"}) {
      assertFalse(shown.contains(secret), secret + " shown in " + shown);
    }
    assertTrue(shown.contains("cotenant.preflight.era=initialize"), shown);
    assertTrue(shown.contains("cotenant.records.postgres.url=(set)"), shown);
    assertFalse(new ProviderContext(c, Path.of("/tmp")).toString().contains("hunter2"));
    assertEquals("jdbc:postgresql://db/x?password=hunter2", c.get("cotenant.records.postgres.url").orElseThrow(),
        "the value itself is unchanged");
  }

  @Test
  void millisecondKeysAreReadOnceWithTheKeyNamedInEveryRefusal() {
    ProviderConfig c = ProviderConfig.of(java.util.Map.of("a-ms", " 250 ", "b-ms", "soon", "c-ms", "0"));
    org.junit.jupiter.api.Assertions.assertEquals(java.time.Duration.ofMillis(250),
        c.getMillis("a-ms", java.time.Duration.ofSeconds(1), java.time.Duration.ofMillis(1)));
    org.junit.jupiter.api.Assertions.assertEquals(java.time.Duration.ofSeconds(3),
        c.getMillis("unset-ms", java.time.Duration.ofSeconds(3), java.time.Duration.ZERO));
    org.junit.jupiter.api.Assertions.assertEquals("configuration key b-ms must be an integer, got 'soon'",
        org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
            () -> c.getMillis("b-ms", java.time.Duration.ZERO, java.time.Duration.ZERO)).getMessage());
    org.junit.jupiter.api.Assertions.assertEquals("configuration key c-ms must be positive, got '0'",
        org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
            () -> c.getMillis("c-ms", java.time.Duration.ZERO, java.time.Duration.ofMillis(1))).getMessage());
    org.junit.jupiter.api.Assertions.assertEquals(java.time.Duration.ZERO,
        c.getMillis("c-ms", java.time.Duration.ofSeconds(1), java.time.Duration.ZERO));
  }
}
