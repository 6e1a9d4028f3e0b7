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
}
