package dev.cotenant.fleet.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.cotenant.spi.ConcurrencyLimiterProvider;
import java.util.List;
import java.util.ServiceLoader;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The real {@link ServiceLoader} finds the provider under the name {@code redis}. */
class RedisLimiterProviderTest {
  @Test
  void theServiceLoaderFindsTheRedisLimiter() {
    List<ConcurrencyLimiterProvider> found = ServiceLoader.load(ConcurrencyLimiterProvider.class).stream()
        .map(ServiceLoader.Provider::get)
        .filter(p -> p instanceof RedisLimiterProvider)
        .collect(Collectors.toList());
    assertEquals(1, found.size(), "RedisLimiterProvider registrations: " + found);
    assertEquals("redis", found.get(0).name());
  }
}
