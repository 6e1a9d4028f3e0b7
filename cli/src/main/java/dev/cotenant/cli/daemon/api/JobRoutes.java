package dev.cotenant.cli.daemon.api;

import dev.cotenant.api.ProbePass;
import dev.cotenant.api.ServerDescription;
import dev.cotenant.cli.views.Output;
import dev.cotenant.gateway.Cotenant;
import dev.cotenant.gateway.config.ConfiguredServer;
import dev.cotenant.gateway.config.ServerConfigs;
import dev.cotenant.gateway.probe.SurfaceProbe;
import dev.cotenant.gateway.sharing.Sharing;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * The routes of the API's jobs, each run on a thread of its own, at most one of a kind at a time:
 * {@code POST|GET|DELETE /measure} ({@link MeasureJobs}) and {@code POST|GET /share}
 * ({@link ShareJobs}). {@link #close()} cancels them. Thread-safe.
 */
final class JobRoutes implements AutoCloseable {
  private final ApiConfigs configs;
  private final MeasureJobs measures;
  private final ShareJobs shares;

  JobRoutes(Cotenant cotenant, Sharing sharing, ApiConfigs configs) {
    this.configs = configs;
    this.measures = new MeasureJobs(cotenant);
    this.shares = new ShareJobs(cotenant, sharing);
  }

  Answer startMeasure(Exchange x) throws ApiError {
    JsonBody body = x.body("servers");
    List<String> names = body.strings("servers");
    ServerConfigs all = configs.all();
    List<ServerDescription> servers = (names.isEmpty() ? all.list() : ApiConfigs.servers(all, names)).stream()
        .map(ConfiguredServer::description).toList();
    return Answer.of(202, measures.start(servers));
  }

  Answer measureProgress(Exchange x) {
    return Answer.ok(measures.progress());
  }

  Answer cancelMeasure(Exchange x) throws ApiError {
    return Answer.ok(measures.cancel());
  }

  Answer startShare(Exchange x) throws ApiError {
    JsonBody body = x.body("server", "maxConcurrent", "rounds");
    String name = body.string("server");
    Optional<Integer> max = body.optionalInt("maxConcurrent", 1, Integer.MAX_VALUE);
    int rounds = body.optionalInt("rounds", ProbePass.MIN_ROUNDS, 1_000).orElse(SurfaceProbe.DEFAULT_ROUNDS);
    ConfiguredServer server = ApiConfigs.probeable(configs.all(), name);
    String withPlan = "cotenant share " + Output.cell(name) + " --plan FILE " + Output.cell(server.source().toString());
    return Answer.of(202, shares.start(server, rounds, max.isPresent() ? OptionalInt.of(max.get()) : OptionalInt.empty(),
        withPlan));
  }

  Answer shareState(Exchange x) {
    return Answer.ok(shares.state());
  }

  /** Cancels a running measure job and a running share, and waits (bounded) for them to tear their processes down. */
  @Override
  public void close() {
    measures.close();
    shares.close();
  }
}
