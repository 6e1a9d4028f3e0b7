package dev.cotenant.testkit.bite;

import dev.cotenant.api.ConcurrencyRecord;
import dev.cotenant.spi.ConcurrencyRecords;
import dev.cotenant.testkit.contract.ConcurrencyRecordsContract;
import dev.cotenant.testkit.records.InMemoryRecordStoreProvider;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

/** Each rule of {@link ConcurrencyRecordsContract} fails records that break it, and the in-memory records pass them all. */
class ConcurrencyRecordsContractBiteTest extends ContractBiteTest {
  ConcurrencyRecordsContractBiteTest() {
    super("dev.cotenant.testkit.records.InMemoryConcurrencyRecordsTest");
  }

  /** The in-memory records, state kept per directory, whose {@code update} is {@link #update}. */
  abstract static class Broken extends ConcurrencyRecordsContract {
    final InMemoryRecordStoreProvider memory = new InMemoryRecordStoreProvider();

    @Override
    protected ConcurrencyRecords open(Path directory) {
      return new Forwarding.Records(Forwarding.memory(memory, directory).concurrencyRecords()) {
        @Override
        public Optional<ConcurrencyRecord> update(
            String name, Function<Optional<ConcurrencyRecord>, Optional<ConcurrencyRecord>> change) throws IOException {
          return Broken.this.update(d, name, change);
        }
      };
    }

    /** The broken update of the entry {@code name} of {@code d}, the honest records. */
    abstract Optional<ConcurrencyRecord> update(ConcurrencyRecords d, String name,
        Function<Optional<ConcurrencyRecord>, Optional<ConcurrencyRecord>> change) throws IOException;
  }

  /** When the change throws, "resets" the entry (removes it) before letting the exception through. */
  @FailsExactly("anUpdateWhoseChangeThrowsWritesNothing")
  static class WritesDespiteAThrowingChange extends Broken {
    @Override
    Optional<ConcurrencyRecord> update(ConcurrencyRecords d, String name,
        Function<Optional<ConcurrencyRecord>, Optional<ConcurrencyRecord>> change) throws IOException {
      RuntimeException[] thrown = new RuntimeException[1];
      try {
        return d.update(name, c -> {
          try {
            return change.apply(c);
          } catch (RuntimeException e) {
            thrown[0] = e;
            throw e;
          }
        });
      } catch (RuntimeException e) {
        if (thrown[0] == e) {
          d.update(name, c -> Optional.empty());
        }
        throw e;
      }
    }
  }

  /** Stores a returned record under its own name, whatever server was being updated. */
  @FailsExactly("aRecordNamingAnotherServerIsRefused")
  static class AcceptsAnotherServersRecord extends Broken {
    @Override
    Optional<ConcurrencyRecord> update(ConcurrencyRecords d, String name,
        Function<Optional<ConcurrencyRecord>, Optional<ConcurrencyRecord>> change) throws IOException {
      AtomicReference<Optional<ConcurrencyRecord>> elsewhere = new AtomicReference<>(Optional.empty());
      Optional<ConcurrencyRecord> stored = d.update(name, c -> {
        Optional<ConcurrencyRecord> next = change.apply(c);
        if (next.isPresent() && !next.get().serverName().equals(name)) {
          elsewhere.set(next);
          return c;
        }
        return next;
      });
      if (elsewhere.get().isPresent()) {
        Optional<ConcurrencyRecord> other = elsewhere.get();
        return d.update(other.get().serverName(), c -> other);
      }
      return stored;
    }
  }

  /** An update returning empty leaves the stored record as it was. */
  @FailsExactly({"anUpdateReturningEmptyRemoves", "recordsSurviveAReopen"})
  static class EmptyKeeps extends Broken {
    @Override
    Optional<ConcurrencyRecord> update(ConcurrencyRecords d, String name,
        Function<Optional<ConcurrencyRecord>, Optional<ConcurrencyRecord>> change) throws IOException {
      return d.update(name, c -> {
        Optional<ConcurrencyRecord> next = change.apply(c);
        return next.isPresent() ? next : c;
      });
    }
  }

  /** Reads, lets another update read too ({@link RacingWriters}), then writes: two updates at once lose one. */
  @FailsExactly("updatesFromSeveralThreadsAreAllKept")
  static class NotAtomic extends Broken {
    private final RacingWriters racing = new RacingWriters();

    @Override
    Optional<ConcurrencyRecord> update(ConcurrencyRecords d, String name,
        Function<Optional<ConcurrencyRecord>, Optional<ConcurrencyRecord>> change) throws IOException {
      Optional<ConcurrencyRecord> next = change.apply(d.get(name));
      racing.betweenReadAndWrite();
      return d.update(name, c -> next);
    }
  }


}
