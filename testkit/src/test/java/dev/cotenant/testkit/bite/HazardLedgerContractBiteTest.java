package dev.cotenant.testkit.bite;

import dev.cotenant.api.HazardCode;
import dev.cotenant.spi.HazardLedger;
import dev.cotenant.testkit.contract.HazardLedgerContract;
import dev.cotenant.testkit.records.InMemoryRecordStoreProvider;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/** Each rule of {@link HazardLedgerContract} fails a ledger that breaks it, and the in-memory ledger passes them all. */
class HazardLedgerContractBiteTest extends ContractBiteTest {
  HazardLedgerContractBiteTest() {
    super("dev.cotenant.testkit.records.InMemoryHazardLedgerTest");
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
  @FailsExactly({"snapshotAgreesWithEveryRead", "countsAddUp", "recordsFromManyThreadsAreAllKept"})
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

  /** Base of the ledgers that pass each record on to the in-memory ledger with other arguments. */
  abstract static class BentRecord extends Broken {
    /** What the broken ledger's record does, given the in-memory ledger {@code d}. */
    interface Bend {
      boolean record(HazardLedger d, String serverName, String identity, HazardCode code, int attachedSessions);
    }

    private final Bend bend;

    BentRecord(Bend bend) {
      this.bend = bend;
    }

    @Override
    HazardLedger wrap(HazardLedger ledger) {
      return new Forwarding.Ledger(ledger) {
        @Override
        public boolean record(String serverName, String identity, HazardCode code, int attachedSessions) {
          return bend.record(d, serverName, identity, code, attachedSessions);
        }
      };
    }
  }

  /** Records a hazard seen on a 1:1 backend. */
  @FailsExactly({"recordedOnlyForASharedBackend", "countsAddUp"})
  static class RecordsForOneSession extends BentRecord {
    RecordsForOneSession() {
      super((d, serverName, identity, code, attachedSessions) ->
          d.record(serverName, identity, code, attachedSessions == 1 ? 2 : attachedSessions));
    }
  }

  /** Drops every observation made on a 1:1 backend, a contradicted deferred start included. */
  @FailsExactly("anObservationAboutADeferredStartIsRecordedWhateverTheCount")
  static class DropsEveryObservationOfOneSession extends BentRecord {
    DropsEveryObservationOfOneSession() {
      super((d, serverName, identity, code, attachedSessions) ->
          attachedSessions > 1 && d.record(serverName, identity, code, attachedSessions));
    }
  }

  /** Files a hazard without identity under a placeholder instead of refusing it. */
  @FailsExactly("anEmptyNameOrIdentityIsRefused")
  static class AcceptsAnEmptyIdentity extends BentRecord {
    AcceptsAnEmptyIdentity() {
      super((d, serverName, identity, code, attachedSessions) ->
          d.record(serverName, identity.isEmpty() ? "unattributed" : identity, code, attachedSessions));
    }
  }

  /** Clearing one server clears them all. */
  @FailsExactly({"clearForgetsOneServerOnly", "flushThenReopenKeepsEverything"})
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
  @FailsExactly("hasUnflushedNeverHidesAnUnflushedChange")
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
  @FailsExactly({"reloadKeepsWhatWasRecordedHere", "twoLedgersOpenedOnOneDirectoryLoseNothing"})
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
  @FailsExactly("recordsFromManyThreadsAreAllKept")
  static class LosesConcurrentRecords extends HazardLedgerContract {
    private final Map<Path, HazardLedger> byDirectory = new ConcurrentHashMap<>();

    @Override
    protected HazardLedger open(Path directory) {
      return byDirectory.computeIfAbsent(directory, d -> new RacyLedger());
    }
  }
}
