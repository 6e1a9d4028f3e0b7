package dev.cotenant.gateway.sharing;

import dev.cotenant.api.HazardCode;
import dev.cotenant.api.LogSafe;
import dev.cotenant.spi.Mcp;
import dev.cotenant.spi.PreflightRecord;
import dev.cotenant.spi.StartRecording;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * Whether a session's start is answered from the records, its backend started only at its first
 * other message (docs/pool.md, "Deferred backends"), and why. A session is deferred when:
 *
 * <ul>
 *   <li>deferring is on ({@link SharingSettings#defer()});
 *   <li>its client speaks the {@code initialize} era (a 2026-07-28 client names itself in every
 *       request, and its first request is already a call);
 *   <li>the pre-flight on record under the server's current launch identity recorded a start
 *       ({@link StartRecording}): its callers, who differed in client information, capabilities and
 *       protocol version, were answered exactly alike, and the server sent nothing of its own
 *       before its listings ended;
 *   <li>that recording covers the client: it asked one of the versions a caller asked, and declares
 *       no capability the callers did not vary;
 *   <li>no start of that identity answered from the records was ever contradicted by the live
 *       server ({@link HazardCode#DEFERRED_ANSWER_CHANGED} in the hazard ledger), and the ledger
 *       was read completely (a hidden observation could be that one).
 * </ul>
 *
 * @param deferred whether the session's start is answered from {@code start}
 * @param why the reason, for logs and status
 * @param start the recording the session is answered from, when deferred
 */
public record StartDecision(boolean deferred, String why, Optional<StartRecording> start) {
  public StartDecision {
    Objects.requireNonNull(why, "why");
    Objects.requireNonNull(start, "start");
    if (deferred != start.isPresent()) {
      throw new IllegalArgumentException("a deferred start is answered from a recording, and only a deferred one");
    }
  }

  /** A session whose backend starts at its {@code initialize}, as without deferral, and why. */
  public static StartDecision eager(String why) {
    return new StartDecision(false, why, Optional.empty());
  }

  /**
   * Whether the records let some client's start be answered from them, whatever the client: the
   * decision for a client the recording covers. What {@code cotenant route} routes on.
   *
   * @param row the pre-flight row under the server's current launch identity, if any
   * @param observed the hazard codes the ledger holds under that identity
   * @param ledgerIncomplete why the ledger could not be read completely, if it could not
   */
  public static StartDecision onRecord(boolean enabled, Optional<PreflightRecord> row, Set<HazardCode> observed,
      Optional<String> ledgerIncomplete) {
    if (!enabled) {
      return eager("deferring is off (" + SharingSettings.DEFER + "=false)");
    }
    if (row.isEmpty()) {
      return eager("no pre-flight on record under its current launch identity (`cotenant measure` records one)");
    }
    if (!row.get().ran()) {
      return eager("its pre-flight could not run: " + String.join("; ", row.get().reasons()));
    }
    if (row.get().start().isEmpty()) {
      String why = row.get().startNotRecorded();
      return eager("its pre-flight recorded no start: " + (why.isEmpty() ? "it was taken before starts were recorded"
          + " (`cotenant measure` again records one)" : why));
    }
    if (ledgerIncomplete.isPresent()) {
      return eager("the hazard ledger could not be read completely: " + ledgerIncomplete.get());
    }
    if (observed.contains(HazardCode.DEFERRED_ANSWER_CHANGED)) {
      return eager("a start answered from the records differed from the live server ("
          + HazardCode.DEFERRED_ANSWER_CHANGED.wireName() + "; `cotenant hazards clear` forgets it)");
    }
    return new StartDecision(true, "its pre-flight recorded the same start for every caller", row.get().start());
  }

  /**
   * The decision for a client whose {@code initialize} had {@code initializeParams}.
   *
   * @param enabled {@link SharingSettings#defer()}
   * @param row the pre-flight row under the server's current launch identity, if any
   * @param observed the hazard codes the ledger holds under that identity
   * @param ledgerIncomplete why the ledger could not be read completely, if it could not
   */
  public static StartDecision decide(boolean enabled, Map<String, Object> initializeParams,
      Optional<PreflightRecord> row, Set<HazardCode> observed, Optional<String> ledgerIncomplete) {
    if (!enabled) {
      return eager("deferring is off (" + SharingSettings.DEFER + "=false)");
    }
    Object v = initializeParams.get("protocolVersion");
    if (!(v instanceof String requested) || requested.isEmpty() || Mcp.MODERN_VERSION.equals(requested)) {
      return eager("the client speaks " + Mcp.MODERN_VERSION + ", naming itself in every request");
    }
    StartDecision onRecord = onRecord(true, row, observed, ledgerIncomplete);
    if (!onRecord.deferred()) {
      return onRecord;
    }
    StartRecording start = onRecord.start().get();
    if (start.negotiated(requested).isEmpty()) {
      return eager("the client asks protocol version " + LogSafe.escape(requested, 40) + "; its recorded start covers "
          + String.join(", ", start.versions().keySet()));
    }
    Object c = initializeParams.get("capabilities");
    @SuppressWarnings("unchecked")
    Map<String, Object> caps = c instanceof Map<?, ?> ? (Map<String, Object>) c : Map.of();
    List<String> uncovered = start.uncovered(caps);
    if (!uncovered.isEmpty()) {
      return eager("the client declares " + LogSafe.escape(String.join(", ", uncovered), 200)
          + ", which its pre-flight's callers did not vary");
    }
    return new StartDecision(true, "its pre-flight recorded the same start for every caller, covering this client",
        Optional.of(start));
  }
}
