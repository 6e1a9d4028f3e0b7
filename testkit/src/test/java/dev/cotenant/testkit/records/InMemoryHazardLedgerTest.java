package dev.cotenant.testkit.records;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.cotenant.api.HazardCode;
import dev.cotenant.spi.HazardLedger;
import dev.cotenant.spi.ProviderConfig;
import dev.cotenant.spi.ProviderContext;
import dev.cotenant.testkit.contract.HazardLedgerContract;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

class InMemoryHazardLedgerTest extends HazardLedgerContract {
  private final InMemoryRecordStoreProvider provider = new InMemoryRecordStoreProvider();

  @Override
  protected HazardLedger open(Path directory) {
    return provider.create(new ProviderContext(ProviderConfig.empty(), directory)).hazardLedger();
  }

  /**
   * Kills {@code hasUnflushed} returning true: the contract lets a ledger err towards "unflushed";
   * memory is its own durable copy, so after a flush nothing is.
   */
  @Test
  void afterAFlushNothingIsUnflushed() throws Exception {
    HazardLedger l = new InMemoryRecordStores().hazardLedger();
    assertFalse(l.hasUnflushed(), "a new ledger");
    l.record("a", "id-a", HazardCode.CROSS_SESSION_LEAK, 2);
    l.flush();
    assertFalse(l.hasUnflushed(), "right after a flush");
  }

  /** Kills {@code record} with its milliseconds-to-seconds division made a multiplication. */
  @Test
  void lastSeenIsTheClocksSeconds() {
    HazardLedger l = new InMemoryRecordStores(Clock.fixed(Instant.ofEpochMilli(1_700_000_000_250L), ZoneOffset.UTC)).hazardLedger();
    l.record("a", "id-a", HazardCode.CROSS_SESSION_LEAK, 2);
    assertEquals(1_700_000_000.25, l.snapshot().servers().get("a").get("id-a").lastSeen());
  }
}
