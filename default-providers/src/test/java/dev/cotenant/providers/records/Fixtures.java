package dev.cotenant.providers.records;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;

/** Test helpers: compatibility fixtures under {@code src/test/resources/records}. */
final class Fixtures {
  /** The identity hash used throughout the ledger fixtures. */
  static final String ID_1 = "1".repeat(64);

  static final String ID_2 = "2".repeat(64);

  private Fixtures() {}

  /** Copies {@code records/<kind>/<name>} to {@code dir/<fileName>}. */
  static Path install(String kind, String name, Path dir, String fileName) {
    try (InputStream in = Fixtures.class.getResourceAsStream("/records/" + kind + "/" + name)) {
      if (in == null) {
        throw new IllegalArgumentException("no fixture records/" + kind + "/" + name);
      }
      Files.createDirectories(dir);
      Path target = dir.resolve(fileName);
      Files.copy(in, target, StandardCopyOption.REPLACE_EXISTING);
      return target;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * The ledger fixtures that read as nothing observed: cut short, empty, blank, an empty object,
   * an array at the top, {@code servers} a list, {@code schema} a string.
   */
  static List<String> unusableLedgers() {
    return List.of(
        "truncated.json", "zero-bytes.json", "blank.json", "empty-object.json", "top-level-array.json",
        "servers-is-a-list.json", "schema-is-a-string.json");
  }

  static Path ledger(String name, Path dir) {
    return install("ledger", name, dir, FileHazardLedger.FILE_NAME);
  }

  static Path cache(String name, Path dir) {
    return install("cache", name, dir, FilePreflightCache.FILE_NAME);
  }

  /** A cache key for {@code name} under the fixtures' hashes and fingerprint. */
  static String cacheKey(String name, String schema) {
    return name + "\0" + ID_1 + "\0" + ID_2 + "\0/usr/bin/node|100|2026-01-01T00:00:00Z\0" + schema;
  }
}
