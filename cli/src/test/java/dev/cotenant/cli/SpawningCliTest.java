package dev.cotenant.cli;

import dev.cotenant.gateway.probe.ProbeHarness;
import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/**
 * A test that runs the CLI in-process against servers it spawns for real: each test gets a fresh
 * {@link CliHarness} in its own temporary directory, and afterwards no process it spawned may be
 * left. A subclass's own {@code @BeforeEach} runs after the harness is made; its own
 * {@code @AfterEach} runs before the check.
 */
abstract class SpawningCliTest {
  @TempDir Path tmp;

  CliHarness cli;
  ProbeHarness processes;

  @BeforeEach
  final void freshHarness() throws IOException {
    cli = new CliHarness(tmp);
    processes = new ProbeHarness();
  }

  @AfterEach
  final void noneLeft() {
    processes.assertNoneLeft();
  }
}
