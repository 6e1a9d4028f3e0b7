package dev.cotenant.providers.records;

import dev.cotenant.spi.RecordStores;
import java.nio.file.Path;

/**
 * The three file-backed records in one records directory.
 *
 * @param directory the records directory
 * @param hazardLedger {@code observed-hazards.json}
 * @param preflightCache {@code shareability-verdicts.json}
 * @param concurrencyRecords {@code concurrency-records.json}
 */
public record FileRecordStores(
    Path directory, FileHazardLedger hazardLedger, FilePreflightCache preflightCache,
    FileConcurrencyRecords concurrencyRecords)
    implements RecordStores {

  /** Opens the records in {@code directory}. Reads only; nothing is created until a write. */
  public static FileRecordStores open(Path directory) {
    return new FileRecordStores(
        directory, FileHazardLedger.open(directory), FilePreflightCache.open(directory), FileConcurrencyRecords.open(directory));
  }
}
