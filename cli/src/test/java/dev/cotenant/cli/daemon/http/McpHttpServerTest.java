package dev.cotenant.cli.daemon.http;

import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;

/**
 * A test of the daemon's HTTP side through {@link McpHttpHarness}: its records in a temporary
 * directory, and the harness a test starts into {@link #http} closed after it, whatever the outcome.
 */
abstract class McpHttpServerTest {
  @TempDir Path records;

  McpHttpHarness http;

  @AfterEach
  final void closeEverything() {
    if (http != null) {
      http.close();
    }
  }
}
