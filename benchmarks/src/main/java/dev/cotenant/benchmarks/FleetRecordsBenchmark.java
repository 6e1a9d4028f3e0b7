package dev.cotenant.benchmarks;

import dev.cotenant.api.ExecutionIdentity;
import dev.cotenant.api.HazardCode;
import dev.cotenant.api.ServerDescription;
import dev.cotenant.fleet.postgres.PostgresRecordStoreProvider;
import dev.cotenant.fleet.postgres.PostgresSettings;
import dev.cotenant.fleet.servers.PostgresServer;
import dev.cotenant.gateway.Cotenant;
import dev.cotenant.gateway.config.ConfiguredServer;
import dev.cotenant.gateway.rows.Row;
import dev.cotenant.providers.records.FileRecordStoreProvider;
import dev.cotenant.spi.HazardLedger;
import dev.cotenant.spi.PreflightCache;
import dev.cotenant.spi.PreflightRecord;
import dev.cotenant.spi.ProviderConfig;
import dev.cotenant.spi.ProviderContext;
import dev.cotenant.spi.RecordStoreProvider;
import dev.cotenant.spi.RecordStores;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The records of 10,000 servers in the {@code file} store and in the {@code postgres} store of a
 * fleet, in one run: recording an observation (the hot path), flushing a ledger of 10,000
 * identities with one new observation, loading a 10,000-row pre-flight cache, and the rows of
 * 10,000 servers (one load of every record, then rows built without IO). PostgreSQL is a real
 * server on 127.0.0.1 with its durable defaults ({@code fsync} on), started by the benchmark;
 * the file store syncs every write too. Sample-time mode, so JMH reports the median as
 * {@code p0.50}.
 */
@BenchmarkMode(Mode.SampleTime)
@Fork(1)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 4, time = 3)
@State(Scope.Benchmark)
public class FleetRecordsBenchmark {
  static final int SERVERS = 10_000;

  @Param({"file", "postgres"})
  public String store;

  PostgresServer postgres;
  Path dir;
  RecordStores stores;
  Cotenant cotenant;
  List<ConfiguredServer> servers;
  String[] names = new String[1024];
  String[] identities = new String[1024];
  int i;

  @Setup(Level.Trial)
  public void setUp() throws Exception {
    dir = Files.createTempDirectory("cotenant-bench-fleet");
    RecordStoreProvider provider;
    ProviderConfig config = ProviderConfig.empty();
    if (store.equals("postgres")) {
      postgres = PostgresServer.start(true);
      config = ProviderConfig.of(Map.of(
          PostgresSettings.URL_KEY, postgres.createDatabase("bench"),
          PostgresSettings.USER_KEY, PostgresServer.USER,
          PostgresSettings.PASSWORD_FILE_KEY, postgres.passwordFile().toString()));
      provider = new PostgresRecordStoreProvider();
    } else {
      provider = new FileRecordStoreProvider();
    }
    stores = provider.create(new ProviderContext(config, dir));
    HazardLedger ledger = stores.hazardLedger();
    PreflightCache cache = stores.preflightCache();
    servers = new ArrayList<>();
    for (int k = 0; k < SERVERS; k++) {
      String name = "server-" + k;
      ledger.record(name, ExecutionIdentity.sha256("identity-" + k), HazardCode.values()[k % 3], 2);
      String id = name + "\0" + ExecutionIdentity.sha256("c" + k) + "\0" + ExecutionIdentity.sha256("e" + k)
          + "\0/usr/local/bin/node|123456|2026-01-01T00:00:00Z\0" + ExecutionIdentity.PREFLIGHT_SCHEMA;
      cache.put(new PreflightRecord(name, id, true, k % 7 == 0, k % 7 == 0 ? List.of("tools") : List.of(), 1.7e9 + k,
          Optional.of("1." + k), Optional.empty()));
      servers.add(new ConfiguredServer(ServerDescription.stdio(name, "/opt/servers/" + name), dir.resolve("mcp.json")));
    }
    ledger.flush();
    cache.flush();
    for (int k = 0; k < names.length; k++) {
      names[k] = "server-" + k;
      identities[k] = ExecutionIdentity.sha256("identity-" + k);
    }
    RecordStoreProvider fixed = new RecordStoreProvider() {
      @Override
      public String name() {
        return store;
      }

      @Override
      public RecordStores create(ProviderContext context) {
        return stores;
      }
    };
    cotenant = Cotenant.builder().recordsDirectory(dir).recordStores(fixed).build();
  }

  @TearDown(Level.Trial)
  public void tearDown() throws IOException {
    if (stores instanceof AutoCloseable) {
      try {
        ((AutoCloseable) stores).close();
      } catch (Exception e) {
        throw new IOException(e);
      }
    }
    if (postgres != null) {
      postgres.close();
    }
    RecordsBenchmark.delete(dir);
  }

  /** The hot path: one observation into an existing cell, no IO. */
  @Benchmark
  @OutputTimeUnit(TimeUnit.NANOSECONDS)
  public boolean record() {
    int k = i++ & 1023;
    return stores.hazardLedger().record(names[k], identities[k], HazardCode.UNATTRIBUTABLE_NOTIFICATION, 2);
  }

  /** One new observation, then a flush of the 10,000-identity ledger (each store reads back what others wrote). */
  @Benchmark
  @OutputTimeUnit(TimeUnit.MILLISECONDS)
  public boolean recordAndFlush10k() throws IOException {
    int k = i++ % SERVERS;
    HazardLedger ledger = stores.hazardLedger();
    ledger.record("server-" + k, ExecutionIdentity.sha256("identity-" + k), HazardCode.CROSS_SESSION_LEAK, 2);
    ledger.flush();
    return ledger.hasUnflushed();
  }

  /** Read the 10,000-row pre-flight cache and its markers. */
  @Benchmark
  @OutputTimeUnit(TimeUnit.MILLISECONDS)
  public PreflightCache.Snapshot load10kRowCache() {
    return stores.preflightCache().load();
  }

  /** The rows of 10,000 servers: every record loaded once, then the rows built. */
  @Benchmark
  @OutputTimeUnit(TimeUnit.MILLISECONDS)
  public List<Row> rows10kServers() {
    return cotenant.rows(servers);
  }
}
