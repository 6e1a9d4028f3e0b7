package dev.cotenant.examples.integration;

import com.google.inject.Guice;
import com.google.inject.Injector;
import dev.cotenant.gateway.Cotenant;
import dev.cotenant.gateway.CotenantModule;
import dev.cotenant.gateway.config.ConfigException;
import dev.cotenant.gateway.config.McpConfigReader;
import dev.cotenant.gateway.config.ServerConfigs;
import dev.cotenant.gateway.rows.Row;
import java.nio.file.Path;
import java.util.List;

/**
 * Embedding with Guice: the runtime comes from {@link CotenantModule}, and the rows of a
 * dashboard are built in two phases — both records and every launch identity loaded once, then
 * every row built from that state without IO. Spawns nothing.
 *
 * <p>Run: {@code java -cp "examples/target/classes:examples/target/lib/*"
 * dev.cotenant.examples.integration.GuiceRows examples/mcp.json /tmp/records}
 */
public final class GuiceRows {
  private GuiceRows() {}

  /** The rows of every server in {@code mcpConfig}, from the records in {@code recordsDir}. */
  public static List<Row> rows(Path mcpConfig, Path recordsDir) throws ConfigException {
    Injector injector = Guice.createInjector(new CotenantModule(Cotenant.builder().recordsDirectory(recordsDir)));
    Cotenant cotenant = injector.getInstance(Cotenant.class);

    ServerConfigs servers = new McpConfigReader().read(List.of(mcpConfig));

    // IO once (the three records and each server's launch identity), then every row without IO.
    return cotenant.rows(servers.list());
  }

  /** Prints one line per server. */
  public static void main(String[] args) throws ConfigException {
    for (Row row : rows(Path.of(args[0]), Path.of(args[1]))) {
      System.out.println(row.name() + " " + row.strength().wireName() + " stub=" + row.recommendStub()
          + " share=" + row.recommendShare() + " " + row.reasons());
    }
  }
}
