package dev.cotenant.cli.daemon.api;

import dev.cotenant.api.LogSafe;
import dev.cotenant.cli.views.Output;
import dev.cotenant.cli.views.SeedView;
import dev.cotenant.gateway.Cotenant;
import dev.cotenant.gateway.config.ConfigException;
import dev.cotenant.gateway.config.LockedJsonFile;
import dev.cotenant.gateway.config.ServerConfigs;
import dev.cotenant.gateway.rows.Row;
import dev.cotenant.gateway.sharing.Sharing;
import dev.cotenant.gateway.stub.BulkStub;
import dev.cotenant.spi.SeedPlan;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.util.Fields;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The routes over the configuration files: {@code GET /rows} (every known server's row, and the
 * files it came from), {@code POST /stub} and {@code GET|POST /seed}, which write only the
 * daemon's own files. Thread-safe.
 */
final class ConfigRoutes {
  private final Cotenant cotenant;
  private final Sharing sharing;
  private final ApiConfigs configs;

  ConfigRoutes(Cotenant cotenant, Sharing sharing, ApiConfigs configs) {
    this.cotenant = cotenant;
    this.sharing = sharing;
    this.configs = configs;
  }

  Answer rows(Exchange x) throws ApiError {
    ApiConfigs.Sources sources = configs.sources();
    ObjectNode o = Output.rowsJson(rows(ApiConfigs.configs(sources.readable())), Optional.of(sharing.settings()));
    ArrayNode files = o.putArray("files");
    for (Path f : configs.ownFiles()) {
      files.addObject().put("path", f.toString()).put("from", "serve");
    }
    for (Path f : sources.shim()) {
      ObjectNode file = files.addObject().put("path", f.toString()).put("from", "shim");
      ApiConfigs.routedFrom(f).ifPresent(r -> file.put("routedFrom", r));
      String problem = sources.problems().get(f);
      if (problem != null) {
        file.put("problem", problem);
      }
    }
    return Answer.ok(o);
  }

  Answer stub(Exchange x) throws ApiError {
    JsonBody body = x.body("servers", "config");
    List<String> names = body.strings("servers");
    if (names.isEmpty()) {
      throw ApiError.badRequest("'servers' is required: the names to stub");
    }
    Path file = configs.config(body.optionalString("config"));
    ServerConfigs in = ApiConfigs.configs(List.of(file));
    ApiConfigs.servers(in, names);
    BulkStub.Result r;
    try {
      r = cotenant.bulkStub(new LockedJsonFile(file), names, Cotenant.verdicts(rows(in)));
    } catch (ConfigException e) {
      throw ApiConfigs.configError(e);
    }
    ObjectNode o = Output.object();
    o.put("config", file.toString());
    ArrayNode stubbed = o.putArray("stubbed");
    r.stubbed().forEach(stubbed::add);
    ObjectNode skipped = o.putObject("skipped");
    r.skipped().forEach(skipped::put);
    o.put("sharing", r.sharing());
    return Answer.ok(o);
  }

  Answer seedPlan(Exchange x) throws ApiError {
    Fields query = Request.extractQueryParameters(x.request());
    for (String n : query.getNames()) {
      if (!n.equals("config")) {
        throw ApiError.badRequest("unknown query parameter '" + LogSafe.escape(n, 100) + "'; this route takes config");
      }
    }
    Path file = configs.config(Optional.ofNullable(query.getValue("config")).filter(s -> !s.isEmpty()));
    SeedPlan plan = cotenant.seeder().plan(Cotenant.verdicts(rows(ApiConfigs.configs(List.of(file)))));
    return Answer.ok(SeedView.json(file.toString(), false, plan));
  }

  Answer seedApply(Exchange x) throws ApiError, IOException {
    JsonBody body = x.body("config");
    Path file = configs.config(body.optionalString("config"));
    SeedPlan plan;
    try {
      plan = cotenant.seeder().apply(new LockedJsonFile(file), Cotenant.verdicts(rows(ApiConfigs.configs(List.of(file)))));
    } catch (ConfigException e) {
      throw ApiConfigs.configError(e);
    }
    return Answer.ok(SeedView.json(file.toString(), true, plan));
  }

  /** The rows of {@code in}, each labelled with the file it came from. */
  private List<Row> rows(ServerConfigs in) {
    return cotenant.rows(cotenant.load(in.list()), s -> s.source().toString());
  }
}
