package dev.cotenant.cli.daemon.api;

import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;

/**
 * A test of the API on a real daemon: the daemon's directory is temporary, and the
 * {@link ApiDaemon} a test starts into {@link #api} is closed after it, whatever the outcome.
 */
abstract class ApiDaemonTest {
  @TempDir Path dir;

  ApiDaemon api;

  @AfterEach
  final void stop() {
    if (api != null) {
      api.close();
    }
  }
}
