package dev.cotenant.cli.daemon;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

import dev.cotenant.spi.ConcurrencyRecords;
import dev.cotenant.spi.HazardLedger;
import dev.cotenant.spi.PreflightCache;
import dev.cotenant.spi.RecordStores;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Records kept outside the records directory (a fleet's database) leave no trace in it, so the
 * daemon re-reads them on a period; records in the directory are re-read only when it changes.
 */
class RecordsWatcherRemoteTest {
  @TempDir Path dir;

  private static RecordStores stores(HazardLedger ledger, PreflightCache cache) {
    RecordStores stores = mock(RecordStores.class);
    when(stores.hazardLedger()).thenReturn(ledger);
    when(stores.preflightCache()).thenReturn(cache);
    when(stores.concurrencyRecords()).thenReturn(mock(ConcurrencyRecords.class));
    return stores;
  }

  @Test
  void remoteRecordsAreReReadThoughTheDirectoryNeverChanges() throws Exception {
    HazardLedger ledger = mock(HazardLedger.class);
    PreflightCache cache = mock(PreflightCache.class);
    try (RecordsWatcher w = new RecordsWatcher(dir, stores(ledger, cache), true)) {
      long deadline = System.nanoTime() + 30_000_000_000L;
      boolean reread = false;
      while (!reread && System.nanoTime() < deadline) {
        Thread.sleep(200);
        reread = !org.mockito.Mockito.mockingDetails(ledger).getInvocations().stream()
            .filter(i -> i.getMethod().getName().equals("reload")).toList().isEmpty();
      }
      assertTrue(reread, "the ledger of remote records was never re-read");
      verify(cache, org.mockito.Mockito.atLeastOnce()).load();
    }
  }

  @Test
  void recordsInTheDirectoryAreNotReReadWhileItIsUnchanged() throws Exception {
    HazardLedger ledger = mock(HazardLedger.class);
    PreflightCache cache = mock(PreflightCache.class);
    try (RecordsWatcher w = new RecordsWatcher(dir, stores(ledger, cache), false)) {
      assertFalse(w.check(), "an unchanged directory was reported changed");
      java.nio.file.Files.writeString(dir.resolve("observed-hazards.json"), "{}");
      assertTrue(w.check(), "a changed directory was not noticed");
      verify(ledger).reload();
      assertFalse(w.check());
      verify(ledger).reload();
    }
  }

  @Test
  void aLedgerHoldingUnwrittenObservationsIsNotReloaded() throws Exception {
    HazardLedger ledger = mock(HazardLedger.class);
    when(ledger.hasUnflushed()).thenReturn(true);
    PreflightCache cache = mock(PreflightCache.class);
    try (RecordsWatcher w = new RecordsWatcher(dir, stores(ledger, cache), false)) {
      java.nio.file.Files.writeString(dir.resolve("observed-hazards.json"), "{}");
      assertTrue(w.check());
      verify(ledger, never()).reload();
      verify(cache).load();
    }
  }
}
