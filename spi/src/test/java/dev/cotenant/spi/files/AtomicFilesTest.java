package dev.cotenant.spi.files;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The atomic write, the stale-temp cleanup and the lock every record file is written under. */
class AtomicFilesTest {
  /** The names of two record files of the {@code file} store, side by side in one directory. */
  private static final String LEDGER = "observed-hazards.json";
  private static final String CACHE = "shareability-verdicts.json";

  @TempDir Path dir;

  private List<String> namesIn(Path d) throws IOException {
    try (Stream<Path> s = Files.list(d)) {
      return s.map(p -> p.getFileName().toString()).sorted().collect(Collectors.toList());
    }
  }

  @Test
  void aWriteCreatesMissingDirectoriesOwnerOnly() throws IOException {
    // Kills AtomicFiles.write, the call to createDirectories removed (VoidMethodCallMutator), and
    // createDirectories with `Files.isDirectory(dir)` or `parent != null` negated
    // (NegateConditionalsMutator): the temp file needs its directory, and the parents first.
    Path target = dir.resolve("a").resolve("b").resolve("records.json");
    AtomicFiles.write(target, "{}".getBytes(StandardCharsets.UTF_8));
    assertEquals("{}", Files.readString(target));
    assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(target.getParent())));
    AtomicFiles.write(target, "[]".getBytes(StandardCharsets.UTF_8));
    assertEquals("[]", Files.readString(target), "a second write into the existing directory");
    assertEquals(List.of("records.json"), namesIn(target.getParent()));
  }

  @Test
  void aFileWhereTheDirectoryShouldBeIsAnErrorNotADirectory() throws IOException {
    // Kills createDirectories with `!Files.isDirectory(dir)` negated in its catch
    // (NegateConditionalsMutator): a regular file in the directory's place was taken for the
    // directory another writer had just created.
    Path file = Files.writeString(dir.resolve("records"), "not a directory");
    assertThrows(java.nio.file.FileAlreadyExistsException.class, () -> AtomicFiles.createDirectories(file));
    Path nested = dir.resolve("fresh").resolve("records");
    AtomicFiles.createDirectories(nested);
    AtomicFiles.createDirectories(nested);
    assertTrue(Files.isDirectory(nested));
  }

  @Test
  void aWriteThatCannotReplaceItsTargetLeavesNoTempFileBehind() throws IOException {
    // Kills AtomicFiles.write, `!moved` negated (NegateConditionalsMutator): the temp file of a
    // failed write would then stay beside the target.
    Path target = dir.resolve("records.json");
    Files.createDirectories(target.resolve("in-the-way"));
    assertThrows(IOException.class, () -> AtomicFiles.write(target, "{}".getBytes(StandardCharsets.UTF_8)));
    assertEquals(List.of("records.json"), namesIn(dir));
    assertTrue(Files.isDirectory(target.resolve("in-the-way")), "the directory in the way is left as it was");
  }

  @Test
  void staleTempsOfOneFileAreDeletedAndAnotherFilesAreLeftAlone() throws IOException {
    // Kills AtomicFiles.tempPrefix returning "" (EmptyObjectReturnValsMutator): the cleanup of one
    // record file would then delete the temp file another file's writer is writing under its own
    // lock, beside it in the same directory.
    Path ledger = dir.resolve(LEDGER);
    Path cache = dir.resolve(CACHE);
    Path staleLedgerTemp = dir.resolve(AtomicFiles.tempPrefix(ledger) + "1.tmp");
    Path otherTemp = dir.resolve(AtomicFiles.tempPrefix(cache) + "2.tmp");
    Files.writeString(staleLedgerTemp, "{\"schema\"");
    Files.writeString(otherTemp, "{\"entries\"");
    AtomicFiles.deleteStaleTemps(ledger);
    assertEquals(List.of(otherTemp.getFileName().toString()), namesIn(dir));
    assertEquals("." + LEDGER + ".", AtomicFiles.tempPrefix(ledger));
  }

  @Test
  void aLockThatCouldNotBeTakenLeavesItFreeForAnotherThread() throws Exception {
    // Kills AtomicFiles.lock, the call to ReentrantLock.unlock on its failure path removed
    // (VoidMethodCallMutator): the in-process lock is reentrant, so only another thread notices
    // that the failed attempt kept it, and waits forever (bounded here).
    Path records = dir.resolve("records");
    Files.writeString(records, "a file where the records directory should be");
    Path target = records.resolve("observed-hazards.json");
    assertThrows(IOException.class, () -> AtomicFiles.lock(target));
    Files.delete(records);
    ExecutorService other = Executors.newSingleThreadExecutor();
    try {
      other.submit(() -> {
        try (AtomicFiles.Lock held = AtomicFiles.lock(target)) {
          AtomicFiles.write(target, "{}".getBytes(StandardCharsets.UTF_8));
        }
        return null;
      }).get(30, TimeUnit.SECONDS);
    } finally {
      other.shutdownNow();
    }
    assertArrayEquals("{}".getBytes(StandardCharsets.UTF_8), Files.readAllBytes(target));
  }

  @Test
  void closingALockClosesItsFile() throws IOException {
    // Kills AtomicFiles.Lock.close, the call to FileChannel.close removed
    // (VoidMethodCallMutator): the lock is released but every lock taken would leave a file
    // descriptor open. (Linux: counts the entries of /proc/self/fd.)
    Path fds = Path.of("/proc/self/fd");
    Path target = dir.resolve("records.json");
    AtomicFiles.lock(target).close();
    long before = count(fds);
    for (int i = 0; i < 300; i++) {
      AtomicFiles.lock(target).close();
    }
    long after = count(fds);
    assertTrue(after - before < 100, "open descriptors went from " + before + " to " + after);
  }

  private static long count(Path d) throws IOException {
    try (Stream<Path> s = Files.list(d)) {
      return s.count();
    }
  }
}
