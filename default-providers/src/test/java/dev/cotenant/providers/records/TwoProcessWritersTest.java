package dev.cotenant.providers.records;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.api.HazardCode;
import dev.cotenant.spi.HazardLedger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Two processes flushing one ledger, each recording 1,000 distinct observations, lose none. */
class TwoProcessWritersTest {
  static final int EACH = 1_000;

  @TempDir Path dir;

  @Test
  void concurrentWritersInTwoProcessesLoseNothing() throws Exception {
    try (ChildJvms jvms = new ChildJvms()) {
      Process a = jvms.start(LedgerChild.class, "bulk", dir.toString(), "a", String.valueOf(EACH));
      Process b = jvms.start(LedgerChild.class, "bulk", dir.toString(), "b", String.valueOf(EACH));
      assertTrue(a.waitFor(180, TimeUnit.SECONDS), "writer a did not finish");
      assertTrue(b.waitFor(180, TimeUnit.SECONDS), "writer b did not finish");
      assertEquals(0, a.exitValue());
      assertEquals(0, b.exitValue());
      assertEquals("done a", new String(a.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip());
      assertEquals("done b", new String(b.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip());
    }
    HazardLedger.Snapshot s = FileHazardLedger.open(dir).snapshot();
    int total = 0;
    for (String tag : new String[] {"a", "b"}) {
      for (int i = 0; i < EACH; i++) {
        Map<String, HazardLedger.Observations> ids = s.servers().get("srv-" + (i % 50));
        HazardLedger.Observations o = ids == null ? null : ids.get(tag + "-" + i);
        assertEquals(new HazardLedger.Observations(Set.of(HazardCode.values()[i % 3]), 1, 1.0), o, tag + "-" + i);
        total++;
      }
    }
    assertEquals(2 * EACH, total);
    assertEquals(2 * EACH, s.servers().values().stream().mapToInt(Map::size).sum());
  }
}
