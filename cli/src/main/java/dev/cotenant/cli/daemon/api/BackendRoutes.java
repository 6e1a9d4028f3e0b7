package dev.cotenant.cli.daemon.api;

import dev.cotenant.api.LogSafe;
import dev.cotenant.gateway.config.ServerConfigs;
import dev.cotenant.gateway.sharing.Sharing;
import java.time.Duration;

/**
 * The routes over the running backends: {@code GET /backends} (what each takes, what routing costs
 * against running each client's servers directly, with the last figures read of each server, and per
 * server the sessions waiting on a deferred backend and why, {@link dev.cotenant.cli.views.SessionsView}),
 * {@code POST /backends/{server}/restart} and {@code POST /backends/drain}. Thread-safe.
 */
final class BackendRoutes {
  /** The drain's timeout when the body names none. */
  static final int DEFAULT_DRAIN_TIMEOUT_MS = 10_000;

  private final Sharing sharing;
  private final ApiConfigs configs;
  private final DaemonProcesses processes;
  /** The last figures read of each server's backends, for the daemon's life. */
  private final ServerFigures figures = new ServerFigures();

  BackendRoutes(Sharing sharing, ApiConfigs configs, DaemonProcesses processes) {
    this.sharing = sharing;
    this.configs = configs;
    this.processes = processes;
  }

  Answer list(Exchange x) {
    java.util.List<dev.cotenant.gateway.pool.EntrySnapshot> entries = sharing.accounting();
    tools.jackson.databind.node.ObjectNode o = Backends.json(entries, System.currentTimeMillis(), processes,
        ProcessReader.PROC, figures);
    o.set("servers", MAPPER.valueToTree(dev.cotenant.cli.views.SessionsView.servers(sharing.sessions(), entries)));
    return Answer.ok(o);
  }

  private static final tools.jackson.databind.json.JsonMapper MAPPER =
      tools.jackson.databind.json.JsonMapper.builder().build();

  Answer restart(Exchange x) throws ApiError, InterruptedException {
    x.body();
    String name = x.param("server");
    if (sharing.accounting().stream().noneMatch(e -> e.serverName().equals(name))) {
      ServerConfigs all = configs.all();
      if (all.get(name).isEmpty()) {
        throw ApiError.unknownServer(name, ApiConfigs.where(all.files()));
      }
      throw ApiError.notFound("no backend of '" + LogSafe.escape(name, 200) + "' runs");
    }
    return Answer.ok(Backends.restarted(sharing.restartByName(name)));
  }

  Answer drain(Exchange x) throws ApiError, InterruptedException {
    JsonBody body = x.body("force", "timeoutMs");
    boolean force = body.optionalBoolean("force").orElse(false);
    int timeout = body.optionalInt("timeoutMs", 0, 600_000).orElse(DEFAULT_DRAIN_TIMEOUT_MS);
    // The daemon keeps serving: the next session of each server starts a backend afresh.
    return Answer.ok(Backends.drained(sharing.drainBackends(force, Duration.ofMillis(timeout))));
  }
}
