package dev.cotenant.cli.daemon.api;

import dev.cotenant.api.HazardCode;
import dev.cotenant.api.LogSafe;
import dev.cotenant.cli.views.HazardsView;
import dev.cotenant.cli.views.Output;
import dev.cotenant.gateway.Cotenant;
import dev.cotenant.gateway.config.ConfiguredServer;
import dev.cotenant.gateway.sharing.Sharing;
import dev.cotenant.spi.HazardLedger;
import java.io.IOException;
import java.util.Arrays;
import java.util.stream.Collectors;
import tools.jackson.databind.node.ObjectNode;

/**
 * The routes over the hazard ledger: {@code GET /hazards}, {@code POST /hazards} (an observation,
 * which makes the sessions sharing the server's backends ask its verdict again) and
 * {@code DELETE /hazards/{server}}. Thread-safe.
 */
final class HazardRoutes {
  private final Cotenant cotenant;
  private final Sharing sharing;
  private final ApiConfigs configs;

  HazardRoutes(Cotenant cotenant, Sharing sharing, ApiConfigs configs) {
    this.cotenant = cotenant;
    this.sharing = sharing;
    this.configs = configs;
  }

  Answer list(Exchange x) {
    return Answer.ok(HazardsView.json(cotenant.recordStores().hazardLedger().snapshot()));
  }

  Answer record(Exchange x) throws ApiError, IOException {
    JsonBody body = x.body("server", "code", "attachedSessions");
    String name = body.string("server");
    String wire = body.string("code");
    int attached = body.optionalInt("attachedSessions", 1, Integer.MAX_VALUE)
        .orElseThrow(() -> ApiError.badRequest("'attachedSessions' is required (an integer of at least 1)"));
    HazardCode code = HazardCode.fromWire(wire).orElseThrow(() -> ApiError.badRequest("unknown hazard code '"
        + LogSafe.escape(wire, 100) + "'; known: " + Arrays.stream(HazardCode.values()).map(HazardCode::wireName)
            .collect(Collectors.joining(", "))));
    ConfiguredServer server = ApiConfigs.server(configs.all(), name);
    HazardLedger ledger = cotenant.recordStores().hazardLedger();
    boolean recorded = ledger.record(name, cotenant.identityOf(server.description()).ledgerKey(), code, attached);
    ledger.flush();
    // Sessions already sharing a backend of this server ask its verdict again at their next call.
    sharing.recordsChanged();
    ObjectNode o = Output.object();
    o.put("recorded", recorded);
    return Answer.of(201, o);
  }

  Answer clear(Exchange x) throws ApiError, IOException {
    String name = x.param("server");
    HazardLedger ledger = cotenant.recordStores().hazardLedger();
    if (configs.all().get(name).isEmpty() && !ledger.snapshot().servers().containsKey(name)) {
      throw ApiError.unknownServer(name, "the daemon's configuration files, those its shims named, nor the hazard ledger");
    }
    boolean had = ledger.clear(name);
    if (had) {
      ledger.flush();
      // Sessions still on a backend of this server ask its verdict again at their next call.
      sharing.recordsChanged();
    }
    return Answer.ok(HazardsView.cleared(name, had));
  }
}
