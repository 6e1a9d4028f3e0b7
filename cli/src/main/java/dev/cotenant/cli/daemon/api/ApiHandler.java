package dev.cotenant.cli.daemon.api;

import dev.cotenant.api.LogSafe;
import dev.cotenant.cli.daemon.http.HttpGuard;
import dev.cotenant.cli.views.IoFailure;
import dev.cotenant.gateway.Cotenant;
import dev.cotenant.gateway.sharing.Sharing;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The daemon's JSON API (see {@code docs/api.md} and {@code GET /api/openapi.json}): a Jetty core
 * handler serving every route of {@link #routeTable()} within its context ({@value #PATH}), over
 * the daemon's runtime. Each answer is the JSON the matching command prints with {@code --json}
 * (the same code builds both); a refusal is {@code {"code","message"}} with the contract's status.
 *
 * <p>As mounted on the HTTP listener this handler first passes the {@link HttpGuard} (foreign
 * {@code Origin} or {@code Host}: 403; missing or wrong bearer token: 401). On {@code api.sock},
 * whose file mode guards it, {@link #unguarded()} serves the same routes, on the same state,
 * without it. Every refusal (guard, route, body, server) comes before anything is written.
 *
 * <p>At most one measure job and one share job run at a time, on the daemon's runtime;
 * {@link #close()} cancels them. Servers are looked up in the daemon's own configuration files and
 * then in those its shims named ({@link ConfigFiles#shimFiles()}), read afresh at each request;
 * only the daemon's own are ever written (stub, seed). No answer carries a server's {@code env}
 * values.
 *
 * <p>This class is the HTTP side (guard, route table, dispatch, answer); the routes are grouped by
 * what they act on: {@link ConfigRoutes} (rows, stub, seed), {@link HazardRoutes},
 * {@link BackendRoutes}, {@link ProbeRoutes} (probe, register) and {@link JobRoutes} (measure and
 * share jobs), each looking servers up through {@link ApiConfigs}. Thread-safe.
 */
public final class ApiHandler extends Handler.Abstract implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ApiHandler.class);

  /** Where the API is mounted. */
  public static final String PATH = "/api";

  /** The start of the message of the {@code not_found} answer to a path no route serves. */
  public static final String NO_ROUTE = "no route";

  /** The OpenAPI document, a resource of this jar. */
  static final String OPENAPI_RESOURCE = "/api/openapi.json";

  private static final List<Route> ROUTES = List.of(
      new Route("GET", "/rows", (api, x) -> api.config.rows(x)),
      new Route("POST", "/measure", (api, x) -> api.jobs.startMeasure(x)),
      new Route("GET", "/measure", (api, x) -> api.jobs.measureProgress(x)),
      new Route("DELETE", "/measure", (api, x) -> api.jobs.cancelMeasure(x)),
      new Route("GET", "/hazards", (api, x) -> api.hazards.list(x)),
      new Route("POST", "/hazards", (api, x) -> api.hazards.record(x)),
      new Route("DELETE", "/hazards/{server}", (api, x) -> api.hazards.clear(x)),
      new Route("POST", "/stub", (api, x) -> api.config.stub(x)),
      new Route("GET", "/seed", (api, x) -> api.config.seedPlan(x)),
      new Route("POST", "/seed", (api, x) -> api.config.seedApply(x)),
      new Route("GET", "/backends", (api, x) -> api.backends.list(x)),
      new Route("POST", "/backends/{server}/restart", (api, x) -> api.backends.restart(x)),
      new Route("POST", "/backends/drain", (api, x) -> api.backends.drain(x)),
      new Route("POST", "/probe", (api, x) -> api.probes.probe(x)),
      new Route("POST", "/register", (api, x) -> api.probes.register(x)),
      new Route("POST", "/share", (api, x) -> api.jobs.startShare(x)),
      new Route("GET", "/share", (api, x) -> api.jobs.shareState(x)),
      new Route("GET", "/openapi.json", (api, x) -> openApi()));

  private final HttpGuard guard;
  private final ConfigRoutes config;
  private final HazardRoutes hazards;
  private final BackendRoutes backends;
  private final ProbeRoutes probes;
  private final JobRoutes jobs;

  /**
   * The API over the daemon's runtime.
   *
   * @param cotenant the runtime (records, evaluator, seeder, probe, registration)
   * @param sharing the daemon's pool (backends, restarts, drains)
   * @param directory the daemon's configuration files and those its shims named, where servers are looked up
   * @param guard what a request over TCP must pass
   * @param processes the daemon's own processes and its shims', counted in what sharing costs
   */
  public ApiHandler(Cotenant cotenant, Sharing sharing, ConfigFiles directory, HttpGuard guard,
      DaemonProcesses processes) {
    Objects.requireNonNull(cotenant, "cotenant");
    Objects.requireNonNull(sharing, "sharing");
    ApiConfigs configs = new ApiConfigs(Objects.requireNonNull(directory, "directory"));
    this.guard = Objects.requireNonNull(guard, "guard");
    this.config = new ConfigRoutes(cotenant, sharing, configs);
    this.hazards = new HazardRoutes(cotenant, sharing, configs);
    this.backends = new BackendRoutes(sharing, configs, Objects.requireNonNull(processes, "processes"));
    this.probes = new ProbeRoutes(cotenant, configs);
    this.jobs = new JobRoutes(cotenant, sharing, configs);
  }

  /** Every route, as {@code "METHOD /api/path"} with {@code {server}} for a server's name, in table order. */
  public static List<String> routeTable() {
    return ROUTES.stream().map(r -> r.method() + " " + PATH + r.path()).toList();
  }

  @Override
  public boolean handle(Request request, Response response, Callback callback) {
    if (guard.check(request) instanceof HttpGuard.Refused r) {
      String code = switch (r.check()) {
        case ORIGIN -> "forbidden_origin";
        case HOST -> "forbidden_host";
        case TOKEN -> "unauthorized";
      };
      answer(response, callback, Answer.error(new ApiError(r.status(), code, r.message(), r.headers())));
      return true;
    }
    return serve(request, response, callback);
  }

  /**
   * The same routes on the same state without the {@link HttpGuard}: for {@code api.sock} only,
   * whose mode (0600) admits the daemon's own user alone.
   */
  public Handler unguarded() {
    return new Handler.Abstract() {
      @Override
      public boolean handle(Request request, Response response, Callback callback) {
        return serve(request, response, callback);
      }
    };
  }

  private boolean serve(Request request, Response response, Callback callback) {
    String path = Request.getPathInContext(request);
    String method = request.getMethod();
    Answer a;
    try {
      a = dispatch(method, path, request);
    } catch (ApiError e) {
      a = Answer.error(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      a = Answer.error(new ApiError(500, "internal", "interrupted: the daemon is stopping"));
    } catch (IOException | UncheckedIOException e) {
      IOException io = e instanceof UncheckedIOException u ? u.getCause() : (IOException) e;
      LOG.warn("{} {} failed: {}", LogSafe.escape(method, 20), LogSafe.escape(path, 200),
          LogSafe.escape(String.valueOf(io.getMessage()), 300));
      a = Answer.error(IoFailure.diskFull(io)
          ? new ApiError(507, "disk_full", LogSafe.escape(IoFailure.describe(io), 400))
          : new ApiError(500, "io", LogSafe.escape(IoFailure.describe(io), 400)));
    } catch (Exception e) {
      LOG.warn("{} {} failed", LogSafe.escape(method, 20), LogSafe.escape(path, 200), e);
      a = Answer.error(new ApiError(500, "internal", e.getClass().getSimpleName() + ": "
          + LogSafe.escape(String.valueOf(e.getMessage()), 300)));
    }
    answer(response, callback, a);
    return true;
  }

  private Answer dispatch(String method, String path, Request request) throws Exception {
    List<String> segments = Route.segments(path);
    Set<String> allowed = new LinkedHashSet<>();
    for (Route r : ROUTES) {
      Optional<Map<String, String>> params = r.match(segments);
      if (params.isEmpty()) {
        continue;
      }
      if (r.method().equals(method)) {
        return r.action().run(this, new Exchange(request, params.get()));
      }
      allowed.add(r.method());
    }
    if (!allowed.isEmpty()) {
      throw new ApiError(405, "method_not_allowed", LogSafe.escape(method, 20) + " is not allowed on " + PATH
          + LogSafe.escape(path, 200) + "; allowed: " + String.join(", ", allowed), Map.of("Allow", String.join(", ", allowed)));
    }
    throw ApiError.notFound(NO_ROUTE + " " + LogSafe.escape(method, 20) + " " + PATH + LogSafe.escape(path, 200)
        + " (see " + PATH + "/openapi.json)");
  }

  private static void answer(Response response, Callback callback, Answer a) {
    response.setStatus(a.status());
    a.headers().forEach((k, v) -> response.getHeaders().put(k, v));
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
    response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-store");
    response.write(true, ByteBuffer.wrap(a.body()), callback);
  }

  private static Answer openApi() throws IOException {
    try (InputStream in = ApiHandler.class.getResourceAsStream(OPENAPI_RESOURCE)) {
      if (in == null) {
        throw new IOException(OPENAPI_RESOURCE + " is missing from the jar");
      }
      return new Answer(200, in.readAllBytes(), Map.of());
    }
  }

  /** Cancels a running measure job and a running share, and waits (bounded) for them to tear their processes down. */
  @Override
  public void close() {
    jobs.close();
  }

  @Override
  public String toString() {
    return "ApiHandler[" + PATH + ", " + ROUTES.size() + " routes]";
  }
}
