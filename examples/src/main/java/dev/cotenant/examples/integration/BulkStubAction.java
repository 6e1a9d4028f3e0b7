package dev.cotenant.examples.integration;

import dev.cotenant.gateway.Cotenant;
import dev.cotenant.gateway.config.ConfigException;
import dev.cotenant.gateway.config.LockedJsonFile;
import dev.cotenant.gateway.config.McpConfigReader;
import dev.cotenant.gateway.rows.Row;
import dev.cotenant.gateway.stub.BulkStub;
import java.nio.file.Path;
import java.util.List;

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
    List<Row> rows = cotenant.rows(new McpConfigReader().read(List.of(mcpConfig)).list());

    return cotenant.bulkStub(new LockedJsonFile(mcpConfig), candidates, Cotenant.verdicts(rows));
  }

  /** Stubs the names given after the two paths and prints the outcome. */
  public static void main(String[] args) throws ConfigException {
    BulkStub.Result r = stub(Path.of(args[0]), Path.of(args[1]), List.of(args).subList(2, args.length));
    System.out.println("sharing was " + (r.sharing() ? "on" : "off") + "; stubbed " + r.stubbed() + "; skipped " + r.skipped());
  }
}
