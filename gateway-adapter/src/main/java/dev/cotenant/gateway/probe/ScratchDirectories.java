package dev.cotenant.gateway.probe;

import dev.cotenant.gateway.sandbox.Sandbox;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.jspecify.annotations.Nullable;

/**
 * The scratch directories of one whole-surface probe run: one root in the temp directory, named
 * {@value SurfaceProbe#SCRATCH_PREFIX}{@code <pid>-...} and made on first use (sweeping the roots
 * of probes whose process is gone), and in it a fresh working directory per backend; all removed
 * when the run ends. Thread-safe.
 */
final class ScratchDirectories {
  private @Nullable Path root;

  /** The root, made on the first call. */
  synchronized Path root() throws IOException {
    if (root == null) {
      Sandbox.sweepLeftovers(SurfaceProbe.SCRATCH_PREFIX);
      root = Files.createTempDirectory(SurfaceProbe.SCRATCH_PREFIX + ProcessHandle.current().pid() + "-");
      // Every sandbox whose server works in it holds this lock while it runs: the sweep leaves it.
      Files.createFile(root.resolve(Sandbox.LOCK));
    }
    return root;
  }

  /**
   * A new directory for one backend. One name pattern for every phase's backends: a path a tool
   * echoes differs between any two backends by its random part only, which the dedicated runs
   * show to be volatile.
   */
  synchronized Path forBackend() throws IOException {
    return Files.createTempDirectory(root(), "backend-");
  }

  /** Removes the root and everything in it, if it was made. */
  synchronized void remove() {
    if (root != null) {
      Sandbox.removeQuietly(root);
    }
  }
}
