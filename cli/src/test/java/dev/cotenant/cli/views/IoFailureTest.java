package dev.cotenant.cli.views;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** A full disk is named as such: the real ENOSPC of {@code /dev/full}, not a made-up message. */
class IoFailureTest {
  @Test
  void aFullDiskIsNamedAndSaysNothingWasReplaced() throws Exception {
    Path full = Path.of("/dev/full");
    org.junit.jupiter.api.Assumptions.assumeTrue(Files.isWritable(full), "no /dev/full here");
    IOException enospc = null;
    try (OutputStream out = Files.newOutputStream(full)) {
      out.write(new byte[8192]);
      out.flush();
    } catch (IOException e) {
      enospc = e;
    }
    assertTrue(enospc != null, "writing /dev/full fails");
    assertTrue(IoFailure.diskFull(enospc), String.valueOf(enospc));
    assertTrue(IoFailure.diskFull(new java.io.UncheckedIOException(enospc)), "found as a cause too");
    String line = IoFailure.describe(enospc);
    assertTrue(line.startsWith("the disk is full (No space left on device): nothing was replaced"), line);
    assertFalse(line.contains("\n"));
  }

  @Test
  void anotherFailureSaysWhatFailed() {
    IOException e = new IOException("Input/output error");
    assertFalse(IoFailure.diskFull(e));
    assertEquals("a file could not be read or written: Input/output error", IoFailure.describe(e));
  }
}
