package dev.cotenant.gateway.rows;

import dev.cotenant.api.HazardCode;
import dev.cotenant.api.PreflightOutcome;
import dev.cotenant.api.Reason;
import dev.cotenant.api.Verdict;
import dev.cotenant.spi.EvidenceInput;
import java.util.Collection;
import java.util.List;

/**
 * How a row's verdict is reached from what {@link RowBuilder} read out of a {@link LoadedState}:
 * for a runtime, its {@code Cotenant.assess} with the records' completeness. All a row needs of
 * the runtime, so rows depend on no more of it.
 */
@FunctionalInterface
public interface RowAssessor {
  /**
   * The verdict of one server.
   *
   * @param input the server, its handshake snapshot, its current ledger identity and its
   *     concurrency record
   * @param preflight the pre-flight outcome under the server's current identity
   * @param observations hazards the ledger holds under the server's current identity
   * @param recordsComplete whether the ledger and the concurrency records were read completely
   * @param recordsNotes why they were not, when they were not
   */
  Verdict assess(EvidenceInput input, PreflightOutcome preflight, Collection<HazardCode> observations,
      boolean recordsComplete, List<Reason> recordsNotes);
}
