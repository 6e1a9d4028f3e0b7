package dev.cotenant.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.api.ConcurrencyModel;
import dev.cotenant.api.ConcurrencyRecord;
import dev.cotenant.api.HazardCode;
import dev.cotenant.api.ProbePass;
import dev.cotenant.api.ShareScope;
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
import java.util.Optional;
import java.util.OptionalInt;
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
    /** Why its durable copy could not be read completely, when it could not. */
    volatile String unreadable;

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
      return unreadable == null ? new Snapshot(out) : Snapshot.incomplete(out, unreadable);
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

  private static RecordStoreProvider provider(BareLedger ledger, InMemoryRecordStores memory) {
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
    return new RecordStoreProvider() {
      @Override
      public String name() {
        return "third-party";
      }

      @Override
      public RecordStores create(ProviderContext context) {
        return stores;
      }
    };
  }

  @Test
  void oneHazardInABareThirdPartyLedgerMakesAssessSayRefuted() throws Exception {
    BareLedger ledger = new BareLedger();
    RecordStoreProvider provider = provider(ledger, new InMemoryRecordStores());
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

  @Test
  void aThirdPartyLedgerThatCouldNotBeReadCompletelyWithholdsSharingAndRefusesRegistration() throws Exception {
    BareLedger ledger = new BareLedger();
    InMemoryRecordStores memory = new InMemoryRecordStores();
    RecordStoreProvider provider = provider(ledger, memory);
    CliHarness cli = new CliHarness(tmp);
    cli.runtime = b -> b.recordStores(provider);
    Path config = cli.write("mcp.json", "{\"mcpServers\": {\"registered\": {\"command\": \"/nonexistent/third-party/registered\"}}}");
    Cotenant host = Cotenant.builder().recordsDirectory(cli.records).environment(cli.env).recordStores(provider).build();
    String identity = host.identityOf(new McpConfigReader().readFile(config).get(0).description()).ledgerKey();
    memory.concurrencyRecords().put(new ConcurrencyRecord("registered", ConcurrencyModel.SHARED, ShareScope.TENANT,
        OptionalInt.of(2), Optional.of(ProbePass.wholeSurface(identity, 5, 1.0, ProbePass.Surface.of(java.util.List.of("echo"), java.util.Map.of())))));
    JsonMapper json = JsonMapper.builder().build();
    assertEquals(true, json.readTree(cli.run("assess", "mcp.json", "--json").out()).get("servers").get(0)
        .get("recommendShare").asBoolean(), "healthy: a registered server shares");

    ledger.unreadable = "shard 3 of the hazard table did not answer";
    CliHarness.Result r = cli.run("assess", "mcp.json", "--json");

    assertEquals(0, r.code(), r.err());
    JsonNode row = json.readTree(r.out()).get("servers").get(0);
    assertEquals("declared", row.get("strength").asString(), row.toString());
    assertEquals(false, row.get("recommendShare").asBoolean(), row.toString());
    assertEquals(true, row.get("recommendStub").asBoolean(), row.toString());
    JsonNode last = row.get("reasons").get(row.get("reasons").size() - 1);
    assertEquals("ledger_unreadable", last.get("code").asString(), row.toString());
    assertEquals("shard 3 of the hazard table did not answer", last.get("detail").asString());

    CliHarness.Result register = cli.run("register", "registered", "mcp.json", "--model", "shared", "--max-concurrent", "2");
    assertEquals(RegisterCommand.EXIT_REFUSED, register.code(), register.err());
    assertTrue(register.err().contains("shard 3 of the hazard table did not answer"), register.err());

    CliHarness.Result list = cli.run("hazards", "list", "--json");
    assertEquals("shard 3 of the hazard table did not answer", json.readTree(list.out()).get("incomplete").asString());
  }
}
