package dev.cotenant.examples.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.api.ExecutionIdentity;
import dev.cotenant.api.HandshakeFacts;
import dev.cotenant.api.ServerDescription;
import dev.cotenant.api.Strength;
import dev.cotenant.examples.integration.BuilderPasses;
import dev.cotenant.examples.integration.BulkStubAction;
import dev.cotenant.examples.integration.GuiceRows;
import dev.cotenant.examples.integration.SeedAtStart;
import dev.cotenant.gateway.evaluation.Progress;
import dev.cotenant.gateway.rows.Row;
import dev.cotenant.gateway.stub.BulkStub;
import dev.cotenant.gateway.identity.ExecutionIdentities;
import dev.cotenant.providers.records.FilePreflightCache;
import dev.cotenant.spi.PreflightRecord;
import dev.cotenant.spi.ProviderConfig;
import dev.cotenant.spi.SeedPlan;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The examples of docs/integration.md run against a configuration whose stdio commands do not
 * exist (so a pre-flight cannot start anything) and records pre-populated with two measurements.
 */
class IntegrationExamplesTest {
  private static final String CONFIG =
      "{\"mcpServers\": {"
          + "\"measured\": {\"command\": \"/nonexistent/integration-examples/measured\"},"
          + "\"declared\": {\"command\": \"/nonexistent/integration-examples/declared\"},"
          + "\"unmeasured\": {\"command\": \"/nonexistent/integration-examples/unmeasured\"},"
          + "\"remote\": {\"type\": \"http\", \"url\": \"http://127.0.0.1:9/mcp\"}}}";

  @TempDir Path tmp;
  private Path config;
  private Path records;

  @BeforeEach
  void world() throws IOException {
    config = Files.writeString(tmp.resolve("mcp.json"), CONFIG);
    records = tmp.resolve("records");
    ExecutionIdentities ids = ExecutionIdentities.fromConfig(ProviderConfig.empty(), System.getenv());
    FilePreflightCache cache = FilePreflightCache.open(records);
    put(cache, ids, "measured", Map.of("tools", Map.of()));
    put(cache, ids, "declared", Map.of("tools", Map.of(), "experimental", Map.of("cotenant.caller-identity", Map.of())));
    cache.flush();
  }

  private static void put(FilePreflightCache cache, ExecutionIdentities ids, String name, Map<String, ?> capabilities) {
    ExecutionIdentity id = ids.identify(ServerDescription.stdio(name, "/nonexistent/integration-examples/" + name));
    HandshakeFacts facts = HandshakeFacts.fromJson("2025-11-25", capabilities, Map.of("name", name), List.of());
    cache.put(new PreflightRecord(name, id.cacheKey(), true, false, List.of(), 1.0, Optional.empty(), Optional.of(facts)));
  }

  private static Map<String, Strength> strengths(List<Row> rows) {
    return rows.stream().collect(Collectors.toMap(Row::name, Row::strength));
  }

  @Test
  void guiceRowsReadTheRecords() throws Exception {
    assertEquals(
        Map.of("measured", Strength.MEASURED, "declared", Strength.DECLARED, "unmeasured", Strength.UNKNOWN, "remote", Strength.DISQUALIFIED),
        strengths(GuiceRows.rows(config, records)));
  }

  @Test
  void builderPassesAttemptOnlyWhatIsDueAndReportProgress() throws Exception {
    List<Progress> seen = new CopyOnWriteArrayList<>();
    BuilderPasses.Outcome o = BuilderPasses.run(config, records, seen::add);
    assertEquals(Set.of("unmeasured"), o.budgeted().orElseThrow().attempted().keySet());
    assertFalse(o.budgeted().get().attempted().get("unmeasured").ran(), "a missing command could not be asked");
    assertEquals(new Progress(false, 1, 0, 1), o.uncapped().progress(), "attempted again, measured nothing");
    assertEquals(new Progress(false, 1, 0, 1), seen.get(seen.size() - 1));
    assertTrue(o.uncapped().progress().closingLine().isEmpty(), "no closing line when nothing was measured");
    assertEquals(Strength.UNKNOWN, strengths(o.rows()).get("unmeasured"));
  }

  @Test
  void seedingAtStartWritesStubOverridesOnceAndReportsWantsShare() throws Exception {
    SeedPlan plan = SeedAtStart.seed(config, records);
    assertEquals(Map.of("measured", true, "declared", true), plan.stubOverrides());
    assertEquals(Set.of("declared"), plan.wantsShare());
    JsonNode written = JsonMapper.builder().build().readTree(Files.readString(config));
    assertTrue(written.path("cotenant").path("stubOverrides").path("measured").booleanValue());
    assertTrue(written.path("cotenant").path("sharing").isMissingNode(), "the sharing switch is never written");

    SeedPlan again = SeedAtStart.seed(config, records);
    assertEquals(Map.of(), again.stubOverrides());
    assertEquals(Set.of("measured", "declared"), again.alreadySeeded());
  }

  @Test
  void bulkStubDecidesFromTheSwitchInTheFile() throws Exception {
    BulkStub.Result off = BulkStubAction.stub(config, records, List.of("measured", "unmeasured", "nope"));
    assertFalse(off.sharing());
    assertEquals(List.of("measured"), off.stubbed());
    assertEquals(Set.of("unmeasured", "nope"), off.skipped().keySet());

    Files.writeString(config, CONFIG.replace("{\"mcpServers\"", "{\"cotenant\": {\"sharing\": true}, \"mcpServers\""));
    BulkStub.Result on = BulkStubAction.stub(config, records, List.of("measured", "declared"));
    assertTrue(on.sharing());
    assertEquals(List.of("declared"), on.stubbed(), "with sharing on, only a declared server may be stubbed");
  }
}
