package dev.cotenant.gateway.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.api.HazardCode;
import dev.cotenant.gateway.Cotenant;
import dev.cotenant.gateway.config.McpConfigReader;
import dev.cotenant.testkit.records.InMemoryRecordStores;
import dev.cotenant.spi.ConcurrencyRecords;
import dev.cotenant.spi.HazardLedger;
import dev.cotenant.spi.PreflightCache;
import dev.cotenant.spi.ProviderContext;
import dev.cotenant.spi.RecordStoreProvider;
import dev.cotenant.spi.RecordStores;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A third party's hazard ledger that implements only what the SPI requires (record, snapshot,
 * clear, flush, reload) still refutes: the runtime reads it through its snapshot, and every other read
 * derives from that snapshot, so the observation cannot be hidden by a default.
 */
class ThirdPartyLedgerTest {
  @TempDir Path tmp;

  /** Only the required methods. */
  static final class BareLedger implements HazardLedger {
    private final Map<String, Map<String, Set<HazardCode>>> held = new HashMap<>();

    @Override
    public synchronized boolean record(String serverName, String identity, HazardCode code, int attachedSessions) {
      if (attachedSessions <= 1) {
        return false;
      }
      return held.computeIfAbsent(serverName, k -> new HashMap<>())
          .computeIfAbsent(identity, k -> EnumSet.noneOf(HazardCode.class)).add(code);
    }

    @Override
    public synchronized Snapshot snapshot() {
      Map<String, Map<String, Observations>> out = new HashMap<>();
      held.forEach((name, ids) -> {
        Map<String, Observations> m = new HashMap<>();
        ids.forEach((id, codes) -> m.put(id, new Observations(codes, 1, 1.0)));
        out.put(name, m);
      });
      return new Snapshot(out);
    }

    @Override
    public synchronized boolean clear(String serverName) {
      return held.remove(serverName) != null;
    }

    @Override
    public void flush() {}

    @Override
    public void reload() {}
  }

  @Test
  void oneHazardInABareThirdPartyLedgerMakesAssessSayRefuted() throws Exception {
    BareLedger ledger = new BareLedger();
    InMemoryRecordStores memory = new InMemoryRecordStores();
    RecordStores stores = new RecordStores() {
      @Override
      public HazardLedger hazardLedger() {
        return ledger;
      }

      @Override
      public PreflightCache preflightCache() {
        return memory.preflightCache();
      }

      @Override
      public ConcurrencyRecords concurrencyRecords() {
        return memory.concurrencyRecords();
      }
    };
    RecordStoreProvider provider = new RecordStoreProvider() {
      @Override
      public String name() {
        return "third-party";
      }

      @Override
      public RecordStores create(ProviderContext context) {
        return stores;
      }
    };
    CliHarness cli = new CliHarness(tmp);
    cli.runtime = b -> b.recordStores(provider);
    Path config = cli.write("mcp.json", "{\"mcpServers\": {\"watched\": {\"command\": \"/nonexistent/third-party/watched\"}}}");
    Cotenant host = Cotenant.builder().recordsDirectory(cli.records).environment(cli.env).recordStores(provider).build();
    String identity = host.identityOf(new McpConfigReader().readFile(config).get(0).description()).ledgerKey();
    assertTrue(ledger.record("watched", identity, HazardCode.UNROUTABLE_SERVER_REQUEST, 2));

    CliHarness.Result r = cli.run("assess", "mcp.json", "--json");

    assertEquals(0, r.code(), r.err());
    JsonNode row = JsonMapper.builder().build().readTree(r.out()).get("servers").get(0);
    assertEquals("refuted", row.get("strength").asString(), row.toString());
    assertEquals("observed_hazard", row.get("reasons").get(0).get("code").asString(), row.toString());
    assertEquals("unroutable_server_request", row.get("reasons").get(0).get("detail").asString(), row.toString());
    assertEquals(false, row.get("recommendShare").asBoolean());
  }
}
