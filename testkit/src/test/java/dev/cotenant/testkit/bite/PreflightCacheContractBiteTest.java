package dev.cotenant.testkit.bite;

import dev.cotenant.spi.PreflightCache;
import dev.cotenant.spi.PreflightRecord;
import dev.cotenant.testkit.contract.PreflightCacheContract;
import dev.cotenant.testkit.records.InMemoryRecordStoreProvider;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;

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

  /** Answers "no measurement" on a version conflict but keeps the row for the IO-free row builder. */
  @FailsExactly("aReportedVersionConflictDropsTheRow")
  static class HidesOnVersionConflict extends Broken {
    @Override
    PreflightCache wrap(PreflightCache cache) {
      return new Forwarding.Cache(cache) {
        @Override
        public Optional<PreflightRecord> lookup(String name, String identity, Optional<String> version) {
          PreflightRecord row = d.snapshot().rows().get(name);
          if (row != null && row.versionConflicts(version)) {
            return Optional.empty();
          }
          return d.lookup(name, identity, version);
        }
      };
    }
  }

  /** Drops a row whenever the two sides do not both name the same version. */
  @FailsExactly("anAbsentVersionOnEitherSideNeverConflicts")
  static class ConflictsOnUnknownVersion extends Broken {
    @Override
    PreflightCache wrap(PreflightCache cache) {
      return new Forwarding.Cache(cache) {
        @Override
        public Optional<PreflightRecord> lookup(String name, String identity, Optional<String> version) {
          PreflightRecord row = d.snapshot().rows().get(name);
          if (row != null && !row.reportedVersion().equals(version)) {
            d.drop(name);
            return Optional.empty();
          }
          return d.lookup(name, identity, version);
        }
      };
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
