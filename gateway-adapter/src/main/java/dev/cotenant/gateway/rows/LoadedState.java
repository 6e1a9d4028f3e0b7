package dev.cotenant.gateway.rows;

import dev.cotenant.api.ConcurrencyRecord;
import dev.cotenant.api.ExecutionIdentity;
import dev.cotenant.api.HandshakeFacts;
import dev.cotenant.gateway.config.ConfiguredServer;
import dev.cotenant.spi.HazardLedger;
import dev.cotenant.spi.PreflightCache;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Everything a row is built from, loaded once by {@link RowLoader#load}: both records and every
 * server's current launch identity. Immutable: two rows built from one state never disagree
 * about a file, and nothing a row needs is read after the state exists.
 *
 * @param servers the servers, in row order
 * @param identities each server's current launch identity, by name
 * @param cache the pre-flight cache as loaded
 * @param ledger the hazard ledger as loaded
 * @param hostHandshakes handshakes the host observed itself, by name; they take the place of the
 *     stored first-caller handshake
 * @param concurrency the concurrency records as loaded, by name (DESIGN §7)
 */
public record LoadedState(
    List<ConfiguredServer> servers,
    Map<String, ExecutionIdentity> identities,
    PreflightCache.Snapshot cache,
    HazardLedger.Snapshot ledger,
    Map<String, HandshakeFacts> hostHandshakes,
    Map<String, ConcurrencyRecord> concurrency) {
  public LoadedState {
    concurrency = Map.copyOf(concurrency);
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
    this(servers, identities, cache, ledger, hostHandshakes, Map.of());
  }
}
