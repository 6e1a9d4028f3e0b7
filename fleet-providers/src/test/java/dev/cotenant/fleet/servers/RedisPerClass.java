package dev.cotenant.fleet.servers;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One {@link RedisServer} for all the tests of a class. Registered on a static field with
 * {@code @RegisterExtension}, it starts the server before the class's first test and stops it
 * after its last.
 */
public final class RedisPerClass implements BeforeAllCallback, AfterAllCallback {
  private RedisServer redis;

  @Override
  public void beforeAll(ExtensionContext context) throws Exception {
    redis = RedisServer.start();
  }

  @Override
  public void afterAll(ExtensionContext context) {
    if (redis != null) {
      redis.close();
      redis = null;
    }
  }

  /** The class's running server. */
  public RedisServer server() {
    if (redis == null) {
      throw new IllegalStateException("the class's Redis server runs only from its first test to its last");
    }
    return redis;
  }
}
