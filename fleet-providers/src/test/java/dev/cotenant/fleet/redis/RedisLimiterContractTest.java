package dev.cotenant.fleet.redis;

import dev.cotenant.fleet.servers.RedisPerClass;
import dev.cotenant.spi.ConcurrencyLimiterProvider;
import dev.cotenant.spi.ProviderConfig;
import dev.cotenant.spi.ProviderContext;
import dev.cotenant.testkit.contract.ConcurrencyLimiterContract;
import java.util.function.Supplier;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The redis limiter passes the kit's limiter contract against a real Redis. */
class RedisLimiterContractTest extends ConcurrencyLimiterContract {
  @RegisterExtension static final RedisPerClass REDIS = new RedisPerClass();

  @Override
  protected Supplier<? extends ConcurrencyLimiterProvider> constructor() {
    return RedisLimiterProvider::new;
  }

  @Override
  protected ProviderContext context() {
    return new ProviderContext(ProviderConfig.of(java.util.Map.of(RedisLimiterConfig.URL, REDIS.server().url())), directory);
  }
}
