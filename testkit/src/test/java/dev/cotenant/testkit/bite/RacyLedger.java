package dev.cotenant.testkit.bite;

import dev.cotenant.api.HazardCode;
import dev.cotenant.spi.HazardLedger;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * A ledger that is right on one thread and loses records on several: copy, let another thread
 * copy too ({@link RacingWriters}), write back, no lock.
 */
final class RacyLedger implements HazardLedger {
  private final RacingWriters racing = new RacingWriters();
  private volatile Map<String, Map<String, Observations>> servers = new TreeMap<>();
  private volatile boolean dirty;

  @Override
  public boolean record(String serverName, String identity, HazardCode code, int attachedSessions) {
    if (serverName.isEmpty() || identity.isEmpty()) {
      throw new IllegalArgumentException("empty name or identity");
    }
    if (attachedSessions <= 1 && code.refutesSharing()) {
      return false;
    }
    Map<String, Map<String, Observations>> copy = new TreeMap<>();
    servers.forEach((n, ids) -> copy.put(n, new TreeMap<>(ids)));
    racing.betweenReadAndWrite();
    Map<String, Observations> ids = copy.computeIfAbsent(serverName, k -> new TreeMap<>());
    Observations o = ids.get(identity);
    Set<HazardCode> codes = EnumSet.of(code);
    if (o != null) {
      codes.addAll(o.codes());
    }
    ids.put(identity, new Observations(codes, o == null ? 1 : o.count() + 1, 1.0));
    servers = copy;
    dirty = true;
    return true;
  }

  @Override
  public boolean clear(String serverName) {
    Map<String, Map<String, Observations>> copy = new TreeMap<>(servers);
    boolean had = copy.remove(serverName) != null;
    servers = copy;
    dirty |= had;
    return had;
  }

  @Override
  public void flush() {
    dirty = false;
  }

  @Override
  public void reload() {}

  @Override
  public boolean hasUnflushed() {
    return dirty;
  }

  @Override
  public Snapshot snapshot() {
    return new Snapshot(servers);
  }
}
