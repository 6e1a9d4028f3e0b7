package dev.cotenant.gateway.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Where a configuration file's lock lives. */
class ConfigFileLockTest {
  @TempDir Path tmp;

  /**
   * The lock directory is created, for its owner only, the first time a lock is taken under a
   * temporary directory that has none. Mutant: {@code lockFileOf}'s "not a directory yet" negated;
   * every other test ran where the directory already existed, so nothing was created and the
   * lock's file could not be opened.
   */
  @Test
  void theLockDirectoryIsCreatedForItsOwnerOnlyWhereThereIsNoneAndNothingIsWrittenBesideTheFile() throws Exception {
    Path temporary = Files.createDirectory(tmp.resolve("tmpdir"));
    Path config = Files.writeString(Files.createDirectory(tmp.resolve("project")).resolve("mcp.json"), "{}\n");
    String was = System.getProperty("java.io.tmpdir");
    System.setProperty("java.io.tmpdir", temporary.toString());
    try {
      Path lockFile = ConfigFileLock.lockFileOf(config);
      Path dir = lockFile.getParent();
      assertEquals(temporary, dir.getParent());
      assertTrue(dir.getFileName().toString().startsWith("cotenant-"), dir.toString());
      assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(dir)));
      try (ConfigFileLock held = ConfigFileLock.hold(config)) {
        assertTrue(Files.exists(lockFile), "the lock is taken on " + lockFile);
      }
      assertEquals(lockFile, ConfigFileLock.lockFileOf(config), "one lock file per configuration file");
      try (var beside = Files.list(config.getParent())) {
        assertEquals(1, beside.count(), "nothing beside the user's file");
      }
    } finally {
      System.setProperty("java.io.tmpdir", was);
    }
  }
}
