package dev.cotenant.testkit.bite;

import dev.cotenant.spi.PreflightCache;
import dev.cotenant.spi.PreflightRecord;
import dev.cotenant.testkit.contract.PreflightCacheContract;
import dev.cotenant.testkit.records.InMemoryRecordStoreProvider;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import java.util.function.BiPredicate;

/** Each rule of {@link PreflightCacheContract} fails a cache that breaks it, and the in-memory cache passes them all. */
class PreflightCacheContractBiteTest extends ContractBiteTest {
  PreflightCacheContractBiteTest() {
    super("dev.cotenant.testkit.records.InMemoryPreflightCacheTest");
  }

  abstract static class Broken extends PreflightCacheContract {
    final InMemoryRecordStoreProvider memory = new InMemoryRecordStoreProvider();

    @Override
    protected PreflightCache open(Path directory) {
      return wrap(Forwarding.memory(memory, directory).preflightCache());
    }

    abstract PreflightCache wrap(PreflightCache cache);
  }

  /** Treats "another identity" like replaced code: the row of a transient fingerprint is lost. */
  @FailsExactly("aLookupUnderAnotherIdentityIsEmptyAndKeepsTheRow")
  static class DropsOnIdentityMismatch extends Broken {
    @Override
    PreflightCache wrap(PreflightCache cache) {
      return new Forwarding.Cache(cache) {
        @Override
        public Optional<PreflightRecord> lookup(String name, String identity, Optional<String> version) {
          Optional<PreflightRecord> row = d.lookup(name, identity, version);
          if (row.isEmpty()) {
            d.drop(name);
          }
          return row;
        }
      };
    }
  }

  /**
   * Base of the caches whose lookup answers empty, without asking the in-memory cache, when the
   * stored row and the version asked about meet {@code condition}; the row is dropped then too if
   * {@code dropsTheRow}.
   */
  abstract static class EmptyWhen extends Broken {
    private final BiPredicate<PreflightRecord, Optional<String>> condition;
    private final boolean dropsTheRow;

    EmptyWhen(BiPredicate<PreflightRecord, Optional<String>> condition, boolean dropsTheRow) {
      this.condition = condition;
      this.dropsTheRow = dropsTheRow;
    }

    @Override
    PreflightCache wrap(PreflightCache cache) {
      return new Forwarding.Cache(cache) {
        @Override
        public Optional<PreflightRecord> lookup(String name, String identity, Optional<String> version) {
          PreflightRecord row = d.snapshot().rows().get(name);
          if (row != null && condition.test(row, version)) {
            if (dropsTheRow) {
              d.drop(name);
            }
            return Optional.empty();
          }
          return d.lookup(name, identity, version);
        }
      };
    }
  }

  /** Answers "no measurement" on a version conflict but keeps the row for the IO-free row builder. */
  @FailsExactly("aReportedVersionConflictDropsTheRow")
  static class HidesOnVersionConflict extends EmptyWhen {
    HidesOnVersionConflict() {
      super(PreflightRecord::versionConflicts, false);
    }
  }

  /** Drops a row whenever the two sides do not both name the same version. */
  @FailsExactly("anAbsentVersionOnEitherSideNeverConflicts")
  static class ConflictsOnUnknownVersion extends EmptyWhen {
    ConflictsOnUnknownVersion() {
      super((row, version) -> !row.reportedVersion().equals(version), true);
    }
  }

  /** Forgets a server's applied marker when its row is dropped: a re-added server would be seeded twice. */
  @FailsExactly("appliedMarkersAreNeverPruned")
  static class PrunesAppliedMarkers extends Broken {
    private final Set<String> pruned = new HashSet<>();

    @Override
    PreflightCache wrap(PreflightCache cache) {
      return new Forwarding.Cache(cache) {
        @Override
        public boolean drop(String serverName) {
          pruned.add(serverName);
          return d.drop(serverName);
        }

        @Override
        public Snapshot snapshot() {
          return prune(d.snapshot());
        }

        @Override
        public Snapshot load() {
          return prune(d.load());
        }

        private Snapshot prune(Snapshot s) {
          Set<String> applied = new HashSet<>(s.applied());
          applied.removeAll(pruned);
          return new Snapshot(s.rows(), applied);
        }
      };
    }
  }

  /** Says a row was dropped whether or not there was one. */
  @FailsExactly("dropRemovesOneRow")
  static class DropAlwaysTrue extends Broken {
    @Override
    PreflightCache wrap(PreflightCache cache) {
      return new Forwarding.Cache(cache) {
        @Override
        public boolean drop(String serverName) {
          d.drop(serverName);
          return true;
        }
      };
    }
  }
}
