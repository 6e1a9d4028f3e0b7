package dev.cotenant.fleet.redis;

import dev.cotenant.fleet.servers.RedisServer;
import dev.cotenant.spi.ConcurrencyLimiter.Permit;
import dev.cotenant.spi.ProviderConfig;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Measures (asserts nothing): the wall time of an uncontended acquire + release pair of the redis
 * limiter against a real local {@code redis-server}, after a warm-up. Run from the repository:
 *
 * <pre>
 * mvn -B -o -q test-compile dependency:build-classpath -pl fleet-providers -am \
 *     -Dmdep.includeScope=test -Dmdep.outputFile=target/test-classpath.txt
 * java -cp "$(cat fleet-providers/target/test-classpath.txt):fleet-providers/target/classes:fleet-providers/target/test-classes" \
 *     dev.cotenant.fleet.redis.RedisLimiterLatency [pairs]
 * </pre>
 */
public final class RedisLimiterLatency {
  private RedisLimiterLatency() {}

  public static void main(String[] args) throws Exception {
    int pairs = args.length > 0 ? Integer.parseInt(args[0]) : 1000;
    try (RedisServer redis = RedisServer.start();
        RedisLimiter limiter = new RedisLimiter(RedisLimiterConfig.from(
            ProviderConfig.of(Map.of(RedisLimiterConfig.URL, redis.url())), k -> null))) {
      for (int i = 0; i < 2000; i++) {
        limiter.acquire("latency", 3, 1, TimeUnit.SECONDS).orElseThrow().close();
      }
      for (int round = 1; round <= 3; round++) {
        long[] nanos = new long[pairs];
        for (int i = 0; i < pairs; i++) {
          long start = System.nanoTime();
          Permit p = limiter.acquire("latency", 3, 1, TimeUnit.SECONDS).orElseThrow();
          p.close();
          nanos[i] = System.nanoTime() - start;
        }
        Arrays.sort(nanos);
        System.out.printf("round %d: %d uncontended acquire+release pairs: median %.1f us, p90 %.1f us, p99 %.1f us, max %.1f us%n",
            round, pairs, nanos[pairs / 2] / 1e3, nanos[pairs * 9 / 10] / 1e3, nanos[pairs * 99 / 100] / 1e3,
            nanos[pairs - 1] / 1e3);
      }
    }
  }
}
