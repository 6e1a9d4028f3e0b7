package dev.cotenant.providers.preflight;

import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/**
 * Base of the tests that start real server processes: each test gets a fresh
 * {@link PreflightHarness} over its own temporary directory, and fails afterwards if any process
 * it started (a descendant, or one that left the tree) is still alive. A subclass's own
 * {@code @AfterEach} methods run before that check.
 */
public abstract class HarnessedProcessTest {
  /** The test's temporary directory; the harness keeps its pid file here. */
  @TempDir protected Path dir;

  /** The harness of the running test. */
  protected PreflightHarness h;

  @BeforeEach
  void harness() throws Exception {
    h = new PreflightHarness(dir);
  }

  @AfterEach
  void nothingSurvives() throws Exception {
    h.assertNothingAlive();
  }
}
