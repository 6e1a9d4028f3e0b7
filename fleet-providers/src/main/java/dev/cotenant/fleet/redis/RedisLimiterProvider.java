package dev.cotenant.fleet.redis;

import dev.cotenant.spi.ConcurrencyLimiter;
import dev.cotenant.spi.ConcurrencyLimiterProvider;
import dev.cotenant.spi.ProviderContext;

/**
 * Provides the fleet-wide {@link RedisLimiter} under the name {@code redis}
 * ({@code cotenant.limiter.provider=redis}).
 *
 * <p>Configuration: {@code cotenant.limiter.redis.url} (required, {@code redis://HOST:PORT[/DB]}
 * or {@code rediss://HOST:PORT[/DB]}), {@code cotenant.limiter.redis.lease-ms} (default 30000),
 * {@code cotenant.limiter.redis.prefix} (default {@code cotenant:limiter:}); the password from
 * the file named by {@code cotenant.limiter.redis.password-file}, else the environment variable
 * {@code COTENANT_REDIS_PASSWORD}, else the URL. Creating the limiter does not connect: an
 * unreachable Redis is reported by the first acquire, which refuses the call.
 */
public final class RedisLimiterProvider implements ConcurrencyLimiterProvider {
  @Override
  public String name() {
    return "redis";
  }

  /**
   * @throws IllegalArgumentException naming the key, when the configuration is missing or malformed
   */
  @Override
  public ConcurrencyLimiter create(ProviderContext context) {
    return new RedisLimiter(RedisLimiterConfig.from(context.config(), System::getenv));
  }
}
