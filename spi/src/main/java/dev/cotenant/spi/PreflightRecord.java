package dev.cotenant.spi;

import dev.cotenant.api.HandshakeFacts;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One stored pre-flight measurement (a row of the pre-flight cache, docs/records.md).
 *
 * @param serverName the configured name (the row key)
 * @param identity the NUL-joined {@code ExecutionIdentity.cacheKey()} it was taken under
 * @param ran false when the pre-flight could not ask the server
 * @param callerSensitive true when some replayed facet diverged
 * @param reasons the divergent facets when {@code callerSensitive}, or the short reason it did not run
 * @param evaluatedAt seconds since the epoch
 * @param reportedVersion what the server called itself, if it said
 * @param handshake the first caller's handshake facts, when it ran
 * @param start what the server answered at start, when the pre-flight recorded it
 *     ({@link PreflightResult#start()})
 * @param startNotRecorded why no start was recorded although it ran; {@code ""} otherwise
 */
public record PreflightRecord(
    String serverName,
    String identity,
    boolean ran,
    boolean callerSensitive,
    List<String> reasons,
    double evaluatedAt,
    Optional<String> reportedVersion,
    Optional<HandshakeFacts> handshake,
    Optional<StartRecording> start,
    String startNotRecorded) {
  public PreflightRecord {
    Objects.requireNonNull(serverName, "serverName");
    Objects.requireNonNull(identity, "identity");
    reasons = List.copyOf(reasons);
    Objects.requireNonNull(reportedVersion, "reportedVersion");
    Objects.requireNonNull(handshake, "handshake");
    Objects.requireNonNull(start, "start");
    Objects.requireNonNull(startNotRecorded, "startNotRecorded");
  }

  /** A row without a start recording (as rows written before it existed read). */
  public PreflightRecord(String serverName, String identity, boolean ran, boolean callerSensitive, List<String> reasons,
      double evaluatedAt, Optional<String> reportedVersion, Optional<HandshakeFacts> handshake) {
    this(serverName, identity, ran, callerSensitive, reasons, evaluatedAt, reportedVersion, handshake,
        Optional.empty(), "");
  }

  /**
   * True when both this row and {@code currentReportedVersion} know a version and they differ:
   * the row then measured code that has been replaced. An absent version on either side means
   * "no information" and never conflicts.
   */
  public boolean versionConflicts(Optional<String> currentReportedVersion) {
    return reportedVersion.isPresent()
        && currentReportedVersion.isPresent()
        && !reportedVersion.get().equals(currentReportedVersion.get());
  }
}
