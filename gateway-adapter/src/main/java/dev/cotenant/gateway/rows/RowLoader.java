package dev.cotenant.gateway.rows;

import dev.cotenant.api.ExecutionIdentity;
import dev.cotenant.api.HandshakeFacts;
import dev.cotenant.gateway.config.ConfiguredServer;
import dev.cotenant.gateway.identity.IdentityResolver;
import dev.cotenant.spi.HazardLedger;
import dev.cotenant.spi.PreflightCache;
import dev.cotenant.spi.RecordStores;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The IO half of building rows (docs/integration.md): reads each record ONCE — the pre-flight cache with
 * {@link PreflightCache#load()}, the hazard ledger with {@link HazardLedger#snapshot()}, the
 * concurrency records with {@link dev.cotenant.spi.ConcurrencyRecords#load()} — and
 * computes every server's current launch identity (which stats the executable), before any row
 * exists. {@link RowBuilder} then builds every row from the result without IO. The ledger's and
 * the concurrency records' snapshots carry whether each was read completely, so every row built
 * from one state agrees on it.
 *
 * <p>The ledger is read as its owner holds it: a long-lived host that records hazards keeps it
 * current; a host that wants another process's observations calls {@link HazardLedger#reload()}
 * before loading. Thread-safe when the stores are.
 */
public final class RowLoader {
  private final RecordStores stores;
  private final IdentityResolver identities;

  /**
   * @param stores the records (all three are read: the cache, the ledger and the concurrency
   *     records)
   * @param identities computes current launch identities ({@code Cotenant#identities()})
   */
  public RowLoader(RecordStores stores, IdentityResolver identities) {
    this.stores = Objects.requireNonNull(stores, "stores");
    this.identities = Objects.requireNonNull(identities, "identities");
  }

  /** Loads the records and the identities of {@code servers}. */
  public LoadedState load(Collection<ConfiguredServer> servers) {
    return load(servers, Map.of());
  }

  /**
   * Loads the records and the identities of {@code servers}, with handshakes the host observed
   * itself. A stored measurement whose {@code reportedVersion} conflicts with the version the
   * host's handshake reports measured replaced code: it is dropped from the cache (in memory;
   * on disk at the cache's next flush) and the row reads as not measured.
   */
  public LoadedState load(Collection<ConfiguredServer> servers, Map<String, HandshakeFacts> hostHandshakes) {
    List<ConfiguredServer> list = List.copyOf(servers);
    Map<String, ExecutionIdentity> ids = new LinkedHashMap<>();
    for (ConfiguredServer s : list) {
      ids.put(s.name(), identities.identify(s.description()));
    }
    PreflightCache cache = stores.preflightCache();
    PreflightCache.Snapshot loaded = cache.load();
    boolean dropped = false;
    for (Map.Entry<String, HandshakeFacts> e : hostHandshakes.entrySet()) {
      Optional<String> version = e.getValue().reportedVersion();
      var row = loaded.rows().get(e.getKey());
      if (row != null && row.versionConflicts(version)) {
        cache.drop(e.getKey());
        dropped = true;
      }
    }
    if (dropped) {
      loaded = cache.snapshot();
    }
    HazardLedger.Snapshot ledger = stores.hazardLedger().snapshot();
    return new LoadedState(list, ids, loaded, ledger, hostHandshakes, stores.concurrencyRecords().load());
  }
}
