package dev.cotenant.gateway.rows;

import dev.cotenant.api.ExecutionIdentity;
import dev.cotenant.api.HandshakeFacts;
import dev.cotenant.api.Reason;
import dev.cotenant.api.ReasonCode;
import dev.cotenant.gateway.config.ConfiguredServer;
import dev.cotenant.spi.ConcurrencyRecords;
import dev.cotenant.spi.HazardLedger;
import dev.cotenant.spi.PreflightCache;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Everything a row is built from, loaded once by {@link RowLoader#load}: the three records and
 * every server's current launch identity. Immutable: two rows built from one state never disagree
 * about a file, and nothing a row needs is read after the state exists.
 *
 * @param servers the servers, in row order
 * @param identities each server's current launch identity, by name
 * @param cache the pre-flight cache as loaded
 * @param ledger the hazard ledger as loaded, saying whether it was read completely
 * @param hostHandshakes handshakes the host observed itself, by name; they take the place of the
 *     stored first-caller handshake
 * @param concurrency the concurrency records as loaded (docs/statelessness.md), saying whether they were read
 *     completely
 */
public record LoadedState(
    List<ConfiguredServer> servers,
    Map<String, ExecutionIdentity> identities,
    PreflightCache.Snapshot cache,
    HazardLedger.Snapshot ledger,
    Map<String, HandshakeFacts> hostHandshakes,
    ConcurrencyRecords.Snapshot concurrency) {
  public LoadedState {
    Objects.requireNonNull(concurrency, "concurrency");
    servers = List.copyOf(servers);
    identities = Collections.unmodifiableMap(new LinkedHashMap<>(identities));
    Objects.requireNonNull(cache, "cache");
    Objects.requireNonNull(ledger, "ledger");
    hostHandshakes = Map.copyOf(hostHandshakes);
    for (ConfiguredServer s : servers) {
      if (!identities.containsKey(s.name())) {
        throw new IllegalArgumentException("no launch identity loaded for server \"" + s.name() + "\"");
      }
    }
  }

  /** A state without concurrency records. */
  public LoadedState(
      List<ConfiguredServer> servers,
      Map<String, ExecutionIdentity> identities,
      PreflightCache.Snapshot cache,
      HazardLedger.Snapshot ledger,
      Map<String, HandshakeFacts> hostHandshakes) {
    this(servers, identities, cache, ledger, hostHandshakes, ConcurrencyRecords.Snapshot.empty());
  }

  /**
   * True when the hazard ledger and the concurrency records were both read completely. While
   * they were not, an observation or a withdrawn registration may be hidden, and no row
   * recommends sharing (docs/statelessness.md, fail closed).
   */
  public boolean recordsComplete() {
    return ledger.complete() && concurrency.complete();
  }

  /**
   * Why the records were not read completely: {@code ledger_unreadable} and
   * {@code concurrency_records_unreadable}, each with the store's reason as detail; empty when
   * they were.
   */
  public List<Reason> recordsNotes() {
    List<Reason> out = new ArrayList<>(2);
    ledger.incomplete().ifPresent(why -> out.add(new Reason(ReasonCode.LEDGER_UNREADABLE, why)));
    concurrency.incomplete().ifPresent(why -> out.add(new Reason(ReasonCode.CONCURRENCY_RECORDS_UNREADABLE, why)));
    return List.copyOf(out);
  }
}
