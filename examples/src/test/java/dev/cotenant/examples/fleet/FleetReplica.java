package dev.cotenant.examples.fleet;

import dev.cotenant.api.HazardCode;
import dev.cotenant.gateway.Cotenant;
import dev.cotenant.spi.HazardLedger;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * One gateway replica recording observations, as a shared backend's multiplexer does: through
 * the runtime a host embeds ({@link Cotenant}), with the records provider the arguments select.
 * Run as its own process by {@link FleetIT}.
 *
 * <p>Arguments: {@code RECORDS_DIR REPLICA_NAME OBSERVATIONS THREADS KEY=VALUE...}. Each
 * observation is recorded under a server of its own identity ({@code <replica>-<i>} of server
 * {@code fleet-<i % 10>}) and once more under one identity every replica shares
 * ({@code hot}/{@code shared}); the ledger is flushed every 50 observations per thread and at the
 * end. Prints {@code recorded N} and exits 0, or exits 1 on a failed flush.
 */
public final class FleetReplica {
  private FleetReplica() {}

  public static void main(String[] args) throws Exception {
    Path records = Path.of(args[0]);
    String replica = args[1];
    int observations = Integer.parseInt(args[2]);
    int threads = Integer.parseInt(args[3]);
    Map<String, String> config = new LinkedHashMap<>();
    for (int i = 4; i < args.length; i++) {
      int eq = args[i].indexOf('=');
      config.put(args[i].substring(0, eq), args[i].substring(eq + 1));
    }
    Cotenant cotenant = Cotenant.builder().config(config).recordsDirectory(records).build();
    HazardLedger ledger = cotenant.recordStores().hazardLedger();
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    List<Future<Integer>> done = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int worker = t;
      done.add(pool.submit(() -> {
        int n = 0;
        for (int i = worker; i < observations; i += threads) {
          HazardCode code = HazardCode.values()[i % HazardCode.values().length];
          ledger.record("fleet-" + (i % 10), replica + "-" + i, code, 2);
          ledger.record("hot", "shared", HazardCode.CROSS_SESSION_LEAK, 3);
          n++;
          if (n % 50 == 0) {
            ledger.flush();
          }
        }
        return n;
      }));
    }
    int recorded = 0;
    for (Future<Integer> f : done) {
      recorded += f.get();
    }
    pool.shutdown();
    ledger.flush();
    System.out.println("recorded " + recorded);
    System.exit(0);
  }
}
