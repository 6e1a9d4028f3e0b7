package dev.cotenant.providers.records;

import dev.cotenant.spi.RecordStores;
import java.nio.file.Path;

/**
 * The two file-backed records in one records directory.
 *
 * @param directory the records directory
 * @param hazardLedger {@code observed-hazards.json}
 * @param preflightCache {@code shareability-verdicts.json}
 */
public record FileRecordStores(Path directory, FileHazardLedger hazardLedger, FilePreflightCache preflightCache)
    implements RecordStores {

  /** Opens both records in {@code directory}. Reads only; nothing is created until a flush. */
  public static FileRecordStores open(Path directory) {
    return new FileRecordStores(directory, FileHazardLedger.open(directory), FilePreflightCache.open(directory));
  }
}
