package dev.cotenant.api;

import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * An operator's registration of how a server may be used (docs/statelessness.md). The schema itself refuses
 * {@code shared} without a passed WHOLE-SURFACE statelessness probe (a single-tool pass is
 * supporting evidence only, {@link ProbePass#wholeSurface()}) and without a positive
 * {@code maxConcurrent}: no writer can produce such a record, and no reader can load one.
 *
 * @param serverName the configured name
 * @param model the concurrency model
 * @param scope the share scope; meaningful only for {@code shared}
 * @param maxConcurrent the most calls the backend may serve at once; required and positive for
 *     {@code shared}, optional (and positive when present) otherwise
 * @param probe the statelessness probe that passed; a whole-surface one is required for {@code shared}
 */
public record ConcurrencyRecord(
    String serverName, ConcurrencyModel model, ShareScope scope, OptionalInt maxConcurrent, Optional<ProbePass> probe) {

  public ConcurrencyRecord {
    Objects.requireNonNull(serverName, "serverName");
    Objects.requireNonNull(model, "model");
    Objects.requireNonNull(scope, "scope");
    Objects.requireNonNull(maxConcurrent, "maxConcurrent");
    Objects.requireNonNull(probe, "probe");
    if (serverName.isEmpty()) {
      throw new IllegalArgumentException("a concurrency record needs a server name");
    }
    if (maxConcurrent.isPresent() && maxConcurrent.getAsInt() < 1) {
      throw new IllegalArgumentException(
          "maxConcurrent must be a positive integer, got " + maxConcurrent.getAsInt() + " for " + serverName);
    }
    if (model == ConcurrencyModel.SHARED) {
      if (probe.isEmpty()) {
        throw new IllegalArgumentException(
            "refusing model 'shared' for " + serverName + " without a passed statelessness probe");
      }
      if (!probe.get().wholeSurface()) {
        throw new IllegalArgumentException(
            "refusing model 'shared' for " + serverName + " on a single-tool statelessness probe ("
                + probe.get().detail() + "): sharing is decided per process, so only a whole-surface probe can back it");
      }
      if (maxConcurrent.isEmpty()) {
        throw new IllegalArgumentException(
            "refusing model 'shared' for " + serverName + " without maxConcurrent (a positive integer)");
      }
    }
  }

  /** The default record: {@code sidecar}, no limit, no probe. */
  public static ConcurrencyRecord sidecar(String serverName) {
    return new ConcurrencyRecord(serverName, ConcurrencyModel.SIDECAR, ShareScope.TENANT, OptionalInt.empty(), Optional.empty());
  }

  /** A {@code shared} registration backed by {@code probe}, a whole-surface pass. */
  public static ConcurrencyRecord shared(String serverName, ShareScope scope, int maxConcurrent, ProbePass probe) {
    return new ConcurrencyRecord(serverName, ConcurrencyModel.SHARED, scope, OptionalInt.of(maxConcurrent), Optional.of(probe));
  }

  /** True when the probe behind this record passed under {@code ledgerIdentity}. */
  public boolean probedUnder(String ledgerIdentity) {
    return probe.map(p -> p.identity().equals(ledgerIdentity)).orElse(false);
  }
}
