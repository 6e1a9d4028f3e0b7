package dev.cotenant.cli.daemon.api;

import dev.cotenant.api.ConcurrencyModel;
import dev.cotenant.api.ConcurrencyRecord;
import dev.cotenant.api.ProbePass;
import dev.cotenant.api.ShareScope;
import dev.cotenant.cli.views.RegisterView;
import dev.cotenant.cli.views.SurfaceOutput;
import dev.cotenant.gateway.Cotenant;
import dev.cotenant.gateway.config.ConfiguredServer;
import dev.cotenant.gateway.probe.ProbePlan;
import dev.cotenant.gateway.probe.RegistrationRefusedException;
import dev.cotenant.gateway.probe.SurfaceProbe;
import java.io.IOException;
import java.util.Arrays;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.stream.Collectors;

/**
 * The routes of statelessness: {@code POST /probe} (the whole-surface probe of one server, its
 * result recorded) and {@code POST /register} (a concurrency record). Thread-safe.
 */
final class ProbeRoutes {
  private final Cotenant cotenant;
  private final ApiConfigs configs;

  ProbeRoutes(Cotenant cotenant, ApiConfigs configs) {
    this.cotenant = cotenant;
    this.configs = configs;
  }

  Answer probe(Exchange x) throws ApiError, InterruptedException {
    JsonBody body = x.body("server", "rounds");
    String name = body.string("server");
    int rounds = body.optionalInt("rounds", ProbePass.MIN_ROUNDS, 1_000).orElse(SurfaceProbe.DEFAULT_ROUNDS);
    ConfiguredServer server = ApiConfigs.probeable(configs.all(), name);
    return Answer.ok(SurfaceOutput.json(cotenant.statelessness().probeSurface(server.description(), ProbePlan.empty(), rounds)));
  }

  Answer register(Exchange x) throws ApiError, IOException {
    JsonBody body = x.body("server", "model", "scope", "maxConcurrent");
    String name = body.string("server");
    String model = body.string("model");
    String scope = body.optionalString("scope").orElse(ShareScope.TENANT.wireName());
    ConcurrencyModel m = ConcurrencyModel.fromWire(model).orElseThrow(() -> ApiError.badRequest("'model' must be one of "
        + Arrays.stream(ConcurrencyModel.values()).map(ConcurrencyModel::wireName).collect(Collectors.joining(", "))));
    ShareScope s = ShareScope.fromWire(scope).orElseThrow(() -> ApiError.badRequest("'scope' must be one of "
        + Arrays.stream(ShareScope.values()).map(ShareScope::wireName).collect(Collectors.joining(", "))));
    Optional<Integer> max = body.optionalInt("maxConcurrent", 1, Integer.MAX_VALUE);
    ConfiguredServer server = ApiConfigs.server(configs.all(), name);
    ConcurrencyRecord stored;
    try {
      stored = cotenant.statelessness().register(server.description(), m, s,
          max.isPresent() ? OptionalInt.of(max.get()) : OptionalInt.empty());
    } catch (RegistrationRefusedException e) {
      throw new ApiError(409, "refused", String.valueOf(e.getMessage()));
    }
    return Answer.ok(RegisterView.json(stored));
  }
}
