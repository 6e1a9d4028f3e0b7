package dev.cotenant.examples.integration;

import dev.cotenant.api.Verdict;
import dev.cotenant.gateway.Cotenant;
import dev.cotenant.gateway.config.ConfigException;
import dev.cotenant.gateway.config.LockedJsonFile;
import dev.cotenant.gateway.config.McpConfigReader;
import dev.cotenant.gateway.rows.Row;
import dev.cotenant.gateway.rows.RowBuilder;
import dev.cotenant.gateway.rows.RowLoader;
import dev.cotenant.gateway.stub.BulkStub;
import dev.cotenant.providers.records.ExecutionIdentities;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A dashboard's "stub these" action. The client sends candidate names; eligibility is decided
 * inside the lock hold that writes the configuration, from the {@code sharing} switch as read
 * inside that hold ({@code recommendShare} when sharing is on, {@code recommendStub} when off),
 * so another writer flipping the switch cannot slip between the decision and the write.
 *
 * <p>Run: {@code java -cp "examples/target/classes:examples/target/lib/*"
 * dev.cotenant.examples.integration.BulkStubAction my-mcp.json /tmp/records echo logging}
 */
public final class BulkStubAction {
  private BulkStubAction() {}

  /** Stubs the eligible {@code candidates} in {@code mcpConfig}. */
  public static BulkStub.Result stub(Path mcpConfig, Path recordsDir, List<String> candidates) throws ConfigException {
    Cotenant cotenant = Cotenant.builder().recordsDirectory(recordsDir).build();
    ExecutionIdentities identities = ExecutionIdentities.fromConfig(cotenant.config(), System.getenv());
    List<Row> rows =
        new RowBuilder(cotenant)
            .build(
                new RowLoader(cotenant.recordStores(), identities::identify)
                    .load(new McpConfigReader().read(List.of(mcpConfig)).list()));
    Map<String, Verdict> verdicts = new HashMap<>();
    rows.forEach(r -> verdicts.put(r.name(), r.verdict()));

    return BulkStub.stub(new LockedJsonFile(mcpConfig), candidates, verdicts::get);
  }

  /** Stubs the names given after the two paths and prints the outcome. */
  public static void main(String[] args) throws ConfigException {
    BulkStub.Result r = stub(Path.of(args[0]), Path.of(args[1]), List.of(args).subList(2, args.length));
    System.out.println("sharing was " + (r.sharing() ? "on" : "off") + "; stubbed " + r.stubbed() + "; skipped " + r.skipped());
  }
}
