package dev.cotenant.spi;

import dev.cotenant.api.HazardCode;
import java.io.IOException;
import java.util.Collections;
import java.util.EnumSet;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * The observed-hazard ledger (docs/records.md): the only record that can refute a server.
 *
 * <p>{@link #record} is the hot path: in memory, non-blocking, cheap, no IO. {@link #flush} is
 * blocking IO and runs off the hot path. Identities accumulate independently and nothing
 * expires; {@link #clear} is the only explicit operator path. Implementations are thread-safe.
 *
 * <p>Identities are {@code ExecutionIdentity.ledgerKey()} strings. The empty identity {@code ""}
 * is reserved for observations an older writer could not attribute to a launch: they are shown
 * by the name-only read ({@link #codesForName}) and match no launch in {@link #codesFor}.
 */
public interface HazardLedger {
  /**
   * Records an observation in memory. An observation about co-tenancy
   * ({@link HazardCode#refutesSharing()}) is recorded only for a shared backend: when
   * {@code attachedSessions <= 1} nothing is recorded, since a 1:1 backend legitimately owns its
   * single client. One that does not ({@link HazardCode#DEFERRED_ANSWER_CHANGED}, a start answered
   * from the records that the live server contradicted) is recorded whatever the count.
   *
   * @param serverName the configured name
   * @param identity the launch identity's {@code ledgerKey()}
   * @param code the hazard
   * @param attachedSessions sessions attached to the backend when the hazard was seen
   * @return true when the observation was recorded
   * @throws IllegalArgumentException when {@code serverName} or {@code identity} is empty
   */
  boolean record(String serverName, String identity, HazardCode code, int attachedSessions);

  /**
   * Hazards recorded for {@code serverName} under {@code identity}; empty for an identity with no
   * record of its own, and always empty for the empty identity. The default reads
   * {@link #snapshot()}, so it can never disagree with it; a ledger may answer faster, never
   * differently.
   */
  default Set<HazardCode> codesFor(String serverName, String identity) {
    return snapshot().codesFor(serverName, identity);
  }

  /** Hazards recorded for {@code serverName} under any identity (the name-only read); from {@link #snapshot()} by default. */
  default Set<HazardCode> codesForName(String serverName) {
    return snapshot().codesForName(serverName);
  }

  /** Every server name with at least one record; from {@link #snapshot()} by default. */
  default Set<String> serverNames() {
    return snapshot().servers().keySet();
  }

  /** Forgets every record of {@code serverName}; returns true when there was one. Takes effect on disk at the next flush. */
  boolean clear(String serverName);

  /** Writes what was recorded since the last flush; blocking IO. */
  void flush() throws IOException;

  /**
   * Re-reads the durable copy and takes in what other writers recorded since this ledger was
   * opened or last flushed. Blocking IO. A missing, unreadable or future-schema copy adds no
   * observation; one that could not be read completely makes {@link #snapshot()} say so until a
   * later read is complete. There is no default: doing nothing is right only for a ledger with no
   * durable copy (say so by implementing it as nothing), and would hide another writer's
   * observations from any other ledger.
   */
  void reload();

  /**
   * True when something recorded or cleared may not have reached the durable copy yet. The
   * default says "maybe" (true), so a caller that flushes only when needed never skips a flush.
   */
  default boolean hasUnflushed() {
    return true;
  }

  /**
   * An immutable copy of every record, per server and per identity: the read every other read of
   * this ledger agrees with, saying whether the durable copy was last read completely
   * ({@link Snapshot#incomplete()}). No IO. There is no default: a ledger that cannot list its
   * records per identity cannot show a hazard under the identity that observed it, and an
   * observation must never be hidden.
   */
  Snapshot snapshot();

  /**
   * What was observed under one identity.
   *
   * @param codes the hazards seen, never empty in a stored record
   * @param count how many observations were recorded
   * @param lastSeen seconds since the epoch of the latest observation
   */
  record Observations(Set<HazardCode> codes, long count, double lastSeen) {
    public Observations {
      codes = codes.isEmpty() ? Set.of() : Collections.unmodifiableSet(EnumSet.copyOf(codes));
    }
  }

  /**
   * Every record of a ledger at one moment, and whether the durable copy could be read
   * completely.
   *
   * <p>A copy that could not be read completely (cut off, a newer schema, an entry of the wrong
   * type dropped, an unreadable copy moved aside and not yet dealt with) still yields what could
   * be read, "nothing observed" when nothing could: that is the reading for strength. But an
   * observation may be hidden, so while {@link #incomplete()} is present nothing recommends
   * sharing and a registration as {@code shared} is refused (docs/statelessness.md, fail closed).
   *
   * @param servers server name to identity to observations, both sorted
   * @param incomplete empty when the durable copy was read completely; otherwise a short,
   *     human-readable reason naming the record and the problem (shown to operators as the detail
   *     of {@code ledger_unreadable})
   */
  record Snapshot(Map<String, Map<String, Observations>> servers, Optional<String> incomplete) {
    public Snapshot {
      Objects.requireNonNull(servers, "servers");
      Objects.requireNonNull(incomplete, "incomplete");
      if (incomplete.isPresent() && incomplete.get().isBlank()) {
        throw new IllegalArgumentException("an incomplete ledger snapshot says why");
      }
      Map<String, Map<String, Observations>> copy = new TreeMap<>();
      servers.forEach((name, ids) -> copy.put(name, Collections.unmodifiableMap(new TreeMap<>(ids))));
      servers = Collections.unmodifiableMap(copy);
    }

    /** A snapshot of a ledger read completely. */
    public Snapshot(Map<String, Map<String, Observations>> servers) {
      this(servers, Optional.empty());
    }

    /** What could be read of a ledger that could not be read completely, and why. */
    public static Snapshot incomplete(Map<String, Map<String, Observations>> servers, String why) {
      return new Snapshot(servers, Optional.of(why));
    }

    /** True when the durable copy was read completely. */
    public boolean complete() {
      return incomplete.isEmpty();
    }

    /** The union of the codes of {@code serverName} across identities (the name-only read). */
    public Set<HazardCode> codesForName(String serverName) {
      Set<HazardCode> out = EnumSet.noneOf(HazardCode.class);
      servers.getOrDefault(serverName, Map.of()).values().forEach(o -> out.addAll(o.codes()));
      return out.isEmpty() ? Set.of() : Collections.unmodifiableSet(out);
    }

    /** The codes of {@code serverName} under {@code identity}; empty for the empty identity. */
    public Set<HazardCode> codesFor(String serverName, String identity) {
      if (identity.isEmpty()) {
        return Set.of();
      }
      Observations o = servers.getOrDefault(serverName, Map.of()).get(identity);
      return o == null ? Set.of() : o.codes();
    }
  }
}
