package dev.cotenant.testkit.contract;

import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the record-store suites ({@link HazardLedgerContract}, {@link PreflightCacheContract},
 * {@link ConcurrencyRecordsContract}) have in common: a fresh records directory per test, and the
 * one factory a store's test implements, {@link #open(Path)}, which the suites call again with
 * the same directory to "restart". A store with no durable copy returns the same instance for the
 * same directory.
 *
 * <p><b>Thread-safety:</b> one suite instance per test, as JUnit does by default.
 *
 * @param <S> the store
 */
public abstract class RecordStoreContract<S> {
  /** A fresh records directory per test. */
  @TempDir protected Path directory;

  /** For subclasses. */
  protected RecordStoreContract() {}

  /**
   * Opens the store kept under {@code directory}. Called once per test, and again with the same
   * directory where a test checks that state survives a restart.
   */
  protected abstract S open(Path directory) throws Exception;

  /** The store opened on this test's {@link #directory}, checked not to be null. */
  final S store() throws Exception {
    S store = open(directory);
    assertNotNull(store, "open(directory) returned null");
    return store;
  }
}
