package dev.cotenant.fleet.redis;

import dev.cotenant.fleet.servers.RedisServer;
import dev.cotenant.spi.ConcurrencyLimiterProvider;
import dev.cotenant.spi.ProviderConfig;
import dev.cotenant.spi.ProviderContext;
import dev.cotenant.testkit.contract.ConcurrencyLimiterContract;
import java.io.IOException;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The redis limiter passes the kit's limiter contract against a real Redis. */
class RedisLimiterContractTest extends ConcurrencyLimiterContract {
  private static RedisServer redis;

  @BeforeAll
  static void startRedis() throws IOException {
    redis = RedisServer.start();
  }

  @AfterAll
  static void stopRedis() {
    if (redis != null) {
      redis.close();
    }
  }

  @Override
  protected Supplier<? extends ConcurrencyLimiterProvider> constructor() {
    return RedisLimiterProvider::new;
  }

  @Override
  protected ProviderContext context() {
    return new ProviderContext(ProviderConfig.of(java.util.Map.of(RedisLimiterConfig.URL, redis.url())), directory);
  }
}
