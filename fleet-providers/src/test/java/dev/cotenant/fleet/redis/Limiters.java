package dev.cotenant.fleet.redis;

import dev.cotenant.spi.ProviderConfig;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.HashMap;
import java.util.Map;

/** Redis limiters for the tests, and a port of 127.0.0.1 nothing listens on. */
final class Limiters {
  private Limiters() {}

  /** A limiter on {@code url} with the given other keys and values, reading no environment. */
  static RedisLimiter limiter(String url, String... keyValues) {
    Map<String, String> m = new HashMap<>(Map.of(RedisLimiterConfig.URL, url));
    for (int i = 0; i < keyValues.length; i += 2) {
      m.put(keyValues[i], keyValues[i + 1]);
    }
    return new RedisLimiter(RedisLimiterConfig.from(ProviderConfig.of(m), k -> null));
  }

  /** A port that was free a moment ago: nothing listens on it. */
  static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
      return s.getLocalPort();
    }
  }
}
