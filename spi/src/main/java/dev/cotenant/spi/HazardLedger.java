package dev.cotenant.spi;

import dev.cotenant.api.HazardCode;
import java.io.IOException;
import java.util.Set;

/**
 * The observed-hazard ledger (DESIGN §4.1): the only record that can refute a server.
 *
 * <p>{@link #record} is the hot path: in memory, non-blocking, cheap, no IO. {@link #flush} is
 * blocking IO and runs off the hot path. Identities accumulate independently and nothing
 * expires; {@link #clear} is the only explicit operator path. Implementations are thread-safe.
 */
public interface HazardLedger {
  /**
   * Records an observation in memory. Recorded only for a shared backend: when
   * {@code attachedSessions <= 1} nothing is recorded, since a 1:1 backend legitimately owns its
   * single client.
   *
   * @param serverName the configured name
   * @param identity the launch identity's {@code ledgerKey()}
   * @param code the hazard
   * @param attachedSessions sessions attached to the backend when the hazard was seen
   * @return true when the observation was recorded
   */
  boolean record(String serverName, String identity, HazardCode code, int attachedSessions);

  /** Hazards recorded for {@code serverName} under {@code identity}; empty for an unknown identity. */
  Set<HazardCode> codesFor(String serverName, String identity);

  /** Hazards recorded for {@code serverName} under any identity (the name-only read). */
  Set<HazardCode> codesForName(String serverName);

  /** Every server name with at least one record. */
  Set<String> serverNames();

  /** Forgets every record of {@code serverName}; returns true when there was one. Takes effect on disk at the next flush. */
  boolean clear(String serverName);

  /** Writes what was recorded since the last flush; blocking IO. */
  void flush() throws IOException;
}
