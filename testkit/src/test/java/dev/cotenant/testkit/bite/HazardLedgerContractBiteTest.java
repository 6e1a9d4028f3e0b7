package dev.cotenant.testkit.bite;

import dev.cotenant.api.HazardCode;
import dev.cotenant.spi.HazardLedger;
import dev.cotenant.testkit.contract.HazardLedgerContract;
import dev.cotenant.testkit.records.InMemoryRecordStoreProvider;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

/** Each rule of {@link HazardLedgerContract} fails a ledger that breaks it, and the in-memory ledger passes them all. */
class HazardLedgerContractBiteTest {
  @Test
  void theInMemoryLedgerPassesTheWholeSuite() throws Exception {
    SuiteRun.of("dev.cotenant.testkit.records.InMemoryHazardLedgerTest").assertAllPassed();
  }

  @Test
  void aSnapshotFilingEverythingUnderTheEmptyIdentityHidesHazards() {
    SuiteRun.of(HidesUnderTheEmptyIdentity.class)
        .assertFailedExactly("snapshotAgreesWithEveryRead", "countsAddUp", "recordsFromManyThreadsAreAllKept");
  }

  @Test
  void aLedgerRecordingForASingleSession() {
    SuiteRun.of(RecordsForOneSession.class).assertFailedExactly("recordedOnlyForASharedBackend", "countsAddUp");
  }

  @Test
  void aLedgerAcceptingAnEmptyIdentity() {
    SuiteRun.of(AcceptsAnEmptyIdentity.class).assertFailedExactly("anEmptyNameOrIdentityIsRefused");
  }

  @Test
  void aLedgerWhoseClearForgetsEveryServer() {
    SuiteRun.of(ClearsEveryServer.class).assertFailedExactly("clearForgetsOneServerOnly", "flushThenReopenKeepsEverything");
  }

  @Test
  void aLedgerThatNeverAdmitsToUnflushedChanges() {
    SuiteRun.of(NeverUnflushed.class).assertFailedExactly("hasUnflushedNeverHidesAnUnflushedChange");
  }

  @Test
  void aLedgerWhoseReloadForgets() {
    SuiteRun.of(ReloadForgets.class)
        .assertFailedExactly("reloadKeepsWhatWasRecordedHere", "twoLedgersOpenedOnOneDirectoryLoseNothing");
  }

  @Test
  void aLedgerThatLosesConcurrentRecords() {
    SuiteRun.of(LosesConcurrentRecords.class).assertFailedExactly("recordsFromManyThreadsAreAllKept");
  }

  /** Base of the broken ledgers: the in-memory ledger, state kept per directory. */
  abstract static class Broken extends HazardLedgerContract {
    final InMemoryRecordStoreProvider memory = new InMemoryRecordStoreProvider();

    @Override
    protected HazardLedger open(Path directory) {
      return wrap(Forwarding.memory(memory, directory).hazardLedger());
    }

    abstract HazardLedger wrap(HazardLedger ledger);
  }

  /**
   * The old {@code HazardLedger.snapshot()} default: every server's codes under the empty
   * identity, while the per-identity reads answer correctly. {@code codesFor} and the snapshot
   * disagree, and a reader of the snapshot sees no hazard under any launch.
   */
  static class HidesUnderTheEmptyIdentity extends Broken {
    @Override
    HazardLedger wrap(HazardLedger ledger) {
      return new Forwarding.Ledger(ledger) {
        @Override
        public Snapshot snapshot() {
          Map<String, Map<String, Observations>> servers = new TreeMap<>();
          for (String name : serverNames()) {
            servers.put(name, Map.of("", new Observations(codesForName(name), 1, 0.0)));
          }
          return new Snapshot(servers);
        }
      };
    }
  }

  /** Records a hazard seen on a 1:1 backend. */
  static class RecordsForOneSession extends Broken {
    @Override
    HazardLedger wrap(HazardLedger ledger) {
      return new Forwarding.Ledger(ledger) {
        @Override
        public boolean record(String serverName, String identity, HazardCode code, int attachedSessions) {
          return d.record(serverName, identity, code, attachedSessions == 1 ? 2 : attachedSessions);
        }
      };
    }
  }

  /** Files a hazard without identity under a placeholder instead of refusing it. */
  static class AcceptsAnEmptyIdentity extends Broken {
    @Override
    HazardLedger wrap(HazardLedger ledger) {
      return new Forwarding.Ledger(ledger) {
        @Override
        public boolean record(String serverName, String identity, HazardCode code, int attachedSessions) {
          return d.record(serverName, identity.isEmpty() ? "unattributed" : identity, code, attachedSessions);
        }
      };
    }
  }

  /** Clearing one server clears them all. */
  static class ClearsEveryServer extends Broken {
    @Override
    HazardLedger wrap(HazardLedger ledger) {
      return new Forwarding.Ledger(ledger) {
        @Override
        public boolean clear(String serverName) {
          boolean had = d.serverNames().contains(serverName);
          d.serverNames().forEach(d::clear);
          return had;
        }
      };
    }
  }

  /** Says nothing needs flushing, so a caller that flushes only when needed never does. */
  static class NeverUnflushed extends Broken {
    @Override
    HazardLedger wrap(HazardLedger ledger) {
      return new Forwarding.Ledger(ledger) {
        @Override
        public boolean hasUnflushed() {
          return false;
        }
      };
    }
  }

  /** Reloading replaces memory with an (empty) durable copy. */
  static class ReloadForgets extends Broken {
    @Override
    HazardLedger wrap(HazardLedger ledger) {
      return new Forwarding.Ledger(ledger) {
        @Override
        public void reload() {
          d.serverNames().forEach(d::clear);
        }
      };
    }
  }

  /** Copy-on-write without a lock: concurrent records overwrite each other. */
  static class LosesConcurrentRecords extends HazardLedgerContract {
    private final Map<Path, HazardLedger> byDirectory = new ConcurrentHashMap<>();

    @Override
    protected HazardLedger open(Path directory) {
      return byDirectory.computeIfAbsent(directory, d -> new RacyLedger());
    }
  }
}
