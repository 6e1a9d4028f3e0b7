package dev.cotenant.examples.integration;

import dev.cotenant.gateway.Cotenant;
import dev.cotenant.gateway.config.ConfigException;
import dev.cotenant.gateway.config.LockedJsonFile;
import dev.cotenant.gateway.config.McpConfigReader;
import dev.cotenant.gateway.rows.Row;
import dev.cotenant.spi.SeedPlan;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * Seeding at start, never mid-run: the verdicts become {@code stubOverrides} in the MCP
 * configuration file's {@code "cotenant"} section, under the file's lock, once per server. The
 * global {@code sharing} switch is never turned on; {@link SeedPlan#wantsShare()} is reported
 * for the operator to decide.
 *
 * <p>Run: {@code java -cp "examples/target/classes:examples/target/lib/*"
 * dev.cotenant.examples.integration.SeedAtStart my-mcp.json /tmp/records}
 */
public final class SeedAtStart {
  private SeedAtStart() {}

  /** Seeds {@code mcpConfig} from the verdicts its servers have now; returns the plan applied. */
  public static SeedPlan seed(Path mcpConfig, Path recordsDir) throws ConfigException, IOException {
    Cotenant cotenant = Cotenant.builder().recordsDirectory(recordsDir).build();
    List<Row> rows = cotenant.rows(new McpConfigReader().read(List.of(mcpConfig)).list());

    return cotenant.seeder().apply(new LockedJsonFile(mcpConfig), Cotenant.verdicts(rows));
  }

  /** Seeds and says what happened. */
  public static void main(String[] args) throws Exception {
    SeedPlan plan = seed(Path.of(args[0]), Path.of(args[1]));
    System.out.println("stub overrides written: " + plan.stubOverrides());
    System.out.println("already seeded, left alone: " + plan.alreadySeeded());
    if (!plan.wantsShare().isEmpty()) {
      System.out.println("would share (switch \"sharing\" on yourself): " + plan.wantsShare());
    }
  }
}
