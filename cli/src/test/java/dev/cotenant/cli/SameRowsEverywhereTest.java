package dev.cotenant.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.inject.Guice;
import dev.cotenant.api.ConcurrencyModel;
import dev.cotenant.api.ConcurrencyRecord;
import dev.cotenant.api.ExecutionIdentity;
import dev.cotenant.api.HazardCode;
import dev.cotenant.api.ProbePass;
import dev.cotenant.api.ShareScope;
import dev.cotenant.cli.views.Output;
import dev.cotenant.gateway.Cotenant;
import dev.cotenant.gateway.CotenantModule;
import dev.cotenant.gateway.config.ConfiguredServer;
import dev.cotenant.gateway.config.McpConfigReader;
import dev.cotenant.spi.PreflightRecord;
import dev.cotenant.spi.RecordStores;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * One set of records, three surfaces: {@code cotenant assess --json}, a host's Guice
 * {@link CotenantModule} and a host's {@link Cotenant#builder()} give the same rows (strength,
 * both recommendations, every reason), including the concurrency record that makes a registered
 * server {@code declared}.
 */
class SameRowsEverywhereTest {
  private static final JsonMapper JSON = JsonMapper.builder().build();

  @TempDir Path tmp;

  @Test
  void aRegisteredServerReadsTheSameThroughTheCliTheModuleAndTheBuilder() throws Exception {
    CliHarness cli = new CliHarness(tmp);
    Path config = cli.write("mcp.json", "{\"mcpServers\": {"
        + "\"registered\": {\"command\": \"/nonexistent/same-rows/registered\"},"
        + "\"measured\": {\"command\": \"/nonexistent/same-rows/measured\"},"
        + "\"leaky\": {\"command\": \"/nonexistent/same-rows/leaky\"},"
        + "\"never-seen\": {\"command\": \"/nonexistent/same-rows/never-seen\"}}}");
    List<ConfiguredServer> servers = new McpConfigReader().readFile(config);

    // The records, written once through the runtime's own stores.
    Cotenant writer = Cotenant.builder().recordsDirectory(cli.records).environment(cli.env).build();
    RecordStores stores = writer.recordStores();
    for (ConfiguredServer s : servers.subList(0, 3)) {
      ExecutionIdentity id = writer.identityOf(s.description());
      stores.preflightCache().put(new PreflightRecord(
          s.name(), id.cacheKey(), true, false, List.of(), 1.0, Optional.empty(), Optional.of(CliHarness.FACTS)));
    }
    stores.preflightCache().flush();
    ExecutionIdentity registered = writer.identityOf(servers.get(0).description());
    stores.concurrencyRecords().put(new ConcurrencyRecord("registered", ConcurrencyModel.SHARED, ShareScope.TENANT,
        OptionalInt.of(4), Optional.of(ProbePass.wholeSurface(registered.ledgerKey(), 5, 2.0, ProbePass.Surface.of(java.util.List.of("echo"), java.util.Map.of())))));
    stores.hazardLedger().record("leaky", writer.identityOf(servers.get(2).description()).ledgerKey(),
        HazardCode.CROSS_SESSION_LEAK, 2);
    stores.hazardLedger().flush();

    CliHarness.Result r = cli.run("assess", "mcp.json", "--json");
    assertEquals(0, r.code(), r.err());
    JsonNode fromCli = withoutSources(JSON.readTree(r.out()));

    Cotenant built = Cotenant.builder().recordsDirectory(cli.records).environment(cli.env).build();
    JsonNode fromBuilder = withoutSources(Output.rowsJson(built.rows(servers), java.util.Optional.of(dev.cotenant.gateway.sharing.SharingSettings.defaults())));

    Cotenant injected = Guice.createInjector(
            new CotenantModule(Cotenant.builder().recordsDirectory(cli.records).environment(cli.env)))
        .getInstance(Cotenant.class);
    JsonNode fromModule = withoutSources(Output.rowsJson(injected.rows(servers), java.util.Optional.of(dev.cotenant.gateway.sharing.SharingSettings.defaults())));

    assertEquals(fromCli, fromBuilder);
    assertEquals(fromCli, fromModule);

    // Not vacuous: each record changed its row.
    JsonNode rows = fromCli.get("servers");
    assertEquals("declared", rows.get(0).get("strength").asString(), rows.get(0).toString());
    assertTrue(rows.get(0).get("recommendShare").asBoolean());
    assertTrue(rows.get(0).toString().contains("registered_shared"), rows.get(0).toString());
    assertEquals("measured", rows.get(1).get("strength").asString());
    assertEquals("refuted", rows.get(2).get("strength").asString());
    assertTrue(rows.get(2).toString().contains("observed_hazard"), rows.get(2).toString());
    assertEquals("unknown", rows.get(3).get("strength").asString());
  }

  private static JsonNode withoutSources(JsonNode root) {
    JsonNode copy = root.deepCopy();
    copy.get("servers").forEach(s -> ((ObjectNode) s).remove("source"));
    return copy;
  }
}
