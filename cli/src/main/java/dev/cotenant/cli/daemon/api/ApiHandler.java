package dev.cotenant.cli.daemon.api;

import dev.cotenant.api.ConcurrencyModel;
import dev.cotenant.api.ConcurrencyRecord;
import dev.cotenant.api.HazardCode;
import dev.cotenant.api.LogSafe;
import dev.cotenant.api.ProbePass;
import dev.cotenant.api.ServerDescription;
import dev.cotenant.api.ShareScope;
import dev.cotenant.cli.daemon.http.HttpGuard;
import dev.cotenant.cli.views.HazardsView;
import dev.cotenant.cli.views.IoFailure;
import dev.cotenant.cli.views.Output;
import dev.cotenant.cli.views.RegisterView;
import dev.cotenant.cli.views.SeedView;
import dev.cotenant.cli.views.SurfaceOutput;
import dev.cotenant.gateway.Cotenant;
import dev.cotenant.gateway.config.ConfigException;
import dev.cotenant.gateway.config.ConfiguredServer;
import dev.cotenant.gateway.config.LockedJsonFile;
import dev.cotenant.gateway.config.McpConfigReader;
import dev.cotenant.gateway.config.RefusedServer;
import dev.cotenant.gateway.config.ServerConfigs;
import dev.cotenant.gateway.probe.ProbePlan;
import dev.cotenant.gateway.probe.RegistrationRefusedException;
import dev.cotenant.gateway.probe.SurfaceProbe;
import dev.cotenant.gateway.rows.Row;
import dev.cotenant.gateway.sharing.Sharing;
import dev.cotenant.gateway.stub.BulkStub;
import dev.cotenant.spi.HazardLedger;
import dev.cotenant.spi.SeedPlan;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.stream.Collectors;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.Fields;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

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
 * values. Thread-safe.
 */
public final class ApiHandler extends Handler.Abstract implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ApiHandler.class);

  /** Where the API is mounted. */
  public static final String PATH = "/api";

  /** The start of the message of the {@code not_found} answer to a path no route serves. */
  public static final String NO_ROUTE = "no route";

  /** The OpenAPI document, a resource of this jar. */
  static final String OPENAPI_RESOURCE = "/api/openapi.json";

  /** The drain's timeout when the body names none. */
  static final int DEFAULT_DRAIN_TIMEOUT_MS = 10_000;

  /** Reads a sidecar's {@code routedFrom} (the sidecar is plain JSON, written by {@code route}). */
  private static final tools.jackson.databind.json.JsonMapper SIDECAR_READER = tools.jackson.databind.json.JsonMapper.builder().build();

  private static final List<Route> ROUTES = List.of(
      new Route("GET", "/rows", ApiHandler::rows),
      new Route("POST", "/measure", ApiHandler::startMeasure),
      new Route("GET", "/measure", (api, x) -> Answer.ok(api.measures.progress())),
      new Route("DELETE", "/measure", (api, x) -> Answer.ok(api.measures.cancel())),
      new Route("GET", "/hazards", ApiHandler::hazards),
      new Route("POST", "/hazards", ApiHandler::recordHazard),
      new Route("DELETE", "/hazards/{server}", ApiHandler::clearHazards),
      new Route("POST", "/stub", ApiHandler::stub),
      new Route("GET", "/seed", ApiHandler::seedPlan),
      new Route("POST", "/seed", ApiHandler::seedApply),
      new Route("GET", "/backends", ApiHandler::backends),
      new Route("POST", "/backends/{server}/restart", ApiHandler::restart),
      new Route("POST", "/backends/drain", ApiHandler::drain),
      new Route("POST", "/probe", ApiHandler::probe),
      new Route("POST", "/register", ApiHandler::register),
      new Route("POST", "/share", ApiHandler::startShare),
      new Route("GET", "/share", (api, x) -> Answer.ok(api.shares.state())),
      new Route("GET", "/openapi.json", ApiHandler::openApi));

  private final Cotenant cotenant;
  private final Sharing sharing;
  private final ConfigFiles directory;
  private final HttpGuard guard;
  private final DaemonProcesses processes;
  private final MeasureJobs measures;
  private final ShareJobs shares;

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
    this.cotenant = Objects.requireNonNull(cotenant, "cotenant");
    this.sharing = Objects.requireNonNull(sharing, "sharing");
    this.directory = Objects.requireNonNull(directory, "directory");
    this.guard = Objects.requireNonNull(guard, "guard");
    this.processes = Objects.requireNonNull(processes, "processes");
    this.measures = new MeasureJobs(cotenant);
    this.shares = new ShareJobs(cotenant, sharing);
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
    } catch (java.io.IOException | java.io.UncheckedIOException e) {
      java.io.IOException io = e instanceof java.io.UncheckedIOException u ? u.getCause() : (java.io.IOException) e;
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
    List<String> segments = segments(path);
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

  private static List<String> segments(String path) {
    List<String> out = new ArrayList<>(Arrays.asList(path.split("/", -1)));
    if (!out.isEmpty() && out.get(0).isEmpty()) {
      out.remove(0);
    }
    return out;
  }

  private static void answer(Response response, Callback callback, Answer a) {
    response.setStatus(a.status());
    a.headers().forEach((k, v) -> response.getHeaders().put(k, v));
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
    response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-store");
    response.write(true, ByteBuffer.wrap(a.body()), callback);
  }

  // ---- routes ---------------------------------------------------------------------------------

  private Answer rows(Exchange x) throws ApiError {
    Sources sources = sources();
    ServerConfigs configs = configs(sources.readable());
    List<Row> rows = cotenant.rows(cotenant.load(configs.list()), s -> s.source().toString());
    ObjectNode o = Output.rowsJson(rows, Optional.of(sharing.settings()));
    ArrayNode files = o.putArray("files");
    for (Path f : directory.files()) {
      files.addObject().put("path", f.toString()).put("from", "serve");
    }
    for (Path f : sources.shim()) {
      ObjectNode file = files.addObject().put("path", f.toString()).put("from", "shim");
      routedFrom(f).ifPresent(r -> file.put("routedFrom", r));
      String problem = sources.problems().get(f);
      if (problem != null) {
        file.put("problem", problem);
      }
    }
    return Answer.ok(o);
  }

  private Answer startMeasure(Exchange x) throws ApiError {
    JsonBody body = x.body("servers");
    List<String> names = body.strings("servers");
    ServerConfigs configs = allConfigs();
    List<ServerDescription> servers = names.isEmpty()
        ? configs.list().stream().map(ConfiguredServer::description).toList()
        : servers(configs, names).stream().map(ConfiguredServer::description).toList();
    return new Answer(202, Output.text(measures.start(servers)).getBytes(StandardCharsets.UTF_8), Map.of());
  }

  private Answer hazards(Exchange x) {
    return Answer.ok(HazardsView.json(cotenant.recordStores().hazardLedger().snapshot()));
  }

  private Answer recordHazard(Exchange x) throws ApiError, IOException {
    JsonBody body = x.body("server", "code", "attachedSessions");
    String name = body.string("server");
    String wire = body.string("code");
    int attached = body.optionalInt("attachedSessions", 1, Integer.MAX_VALUE)
        .orElseThrow(() -> ApiError.badRequest("'attachedSessions' is required (an integer of at least 1)"));
    HazardCode code = HazardCode.fromWire(wire).orElseThrow(() -> ApiError.badRequest("unknown hazard code '"
        + LogSafe.escape(wire, 100) + "'; known: " + Arrays.stream(HazardCode.values()).map(HazardCode::wireName)
            .collect(Collectors.joining(", "))));
    ConfiguredServer server = server(allConfigs(), name);
    HazardLedger ledger = cotenant.recordStores().hazardLedger();
    boolean recorded = ledger.record(name, cotenant.identityOf(server.description()).ledgerKey(), code, attached);
    ledger.flush();
    // Sessions already sharing a backend of this server ask its verdict again at their next call.
    sharing.recordsChanged();
    ObjectNode o = Output.object();
    o.put("recorded", recorded);
    return new Answer(201, Output.text(o).getBytes(StandardCharsets.UTF_8), Map.of());
  }

  private Answer clearHazards(Exchange x) throws ApiError, IOException {
    String name = x.param("server");
    HazardLedger ledger = cotenant.recordStores().hazardLedger();
    if (allConfigs().get(name).isEmpty() && !ledger.snapshot().servers().containsKey(name)) {
      throw ApiError.unknownServer(name, "the daemon's configuration files, those its shims named, nor the hazard ledger");
    }
    boolean had = ledger.clear(name);
    if (had) {
      ledger.flush();
    }
    return Answer.ok(HazardsView.cleared(name, had));
  }

  private Answer stub(Exchange x) throws ApiError {
    JsonBody body = x.body("servers", "config");
    List<String> names = body.strings("servers");
    if (names.isEmpty()) {
      throw ApiError.badRequest("'servers' is required: the names to stub");
    }
    Path file = config(body.optionalString("config"));
    ServerConfigs configs = configs(List.of(file));
    servers(configs, names);
    BulkStub.Result r;
    try {
      r = cotenant.bulkStub(new LockedJsonFile(file), names, Cotenant.verdicts(rows(configs)));
    } catch (ConfigException e) {
      throw configError(e);
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

  private Answer seedPlan(Exchange x) throws ApiError {
    Fields query = Request.extractQueryParameters(x.request());
    for (String n : query.getNames()) {
      if (!n.equals("config")) {
        throw ApiError.badRequest("unknown query parameter '" + LogSafe.escape(n, 100) + "'; this route takes config");
      }
    }
    Path file = config(Optional.ofNullable(query.getValue("config")).filter(s -> !s.isEmpty()));
    SeedPlan plan = cotenant.seeder().plan(Cotenant.verdicts(rows(configs(List.of(file)))));
    return Answer.ok(SeedView.json(file.toString(), false, plan));
  }

  private Answer seedApply(Exchange x) throws ApiError, IOException {
    JsonBody body = x.body("config");
    Path file = config(body.optionalString("config"));
    SeedPlan plan;
    try {
      plan = cotenant.seeder().apply(new LockedJsonFile(file), Cotenant.verdicts(rows(configs(List.of(file)))));
    } catch (ConfigException e) {
      throw configError(e);
    }
    return Answer.ok(SeedView.json(file.toString(), true, plan));
  }

  private Answer backends(Exchange x) {
    return Answer.ok(Backends.json(sharing.accounting(), System.currentTimeMillis(), processes, Backends::rssBytes));
  }

  private Answer restart(Exchange x) throws ApiError, InterruptedException {
    x.body();
    String name = x.param("server");
    if (sharing.accounting().stream().noneMatch(e -> e.serverName().equals(name))) {
      ServerConfigs all = allConfigs();
      if (all.get(name).isEmpty()) {
        throw ApiError.unknownServer(name, where(all.files()));
      }
      throw ApiError.notFound("no backend of '" + LogSafe.escape(name, 200) + "' runs");
    }
    return Answer.ok(Backends.restarted(sharing.restartByName(name)));
  }

  private Answer drain(Exchange x) throws ApiError, InterruptedException {
    JsonBody body = x.body("force", "timeoutMs");
    boolean force = body.optionalBoolean("force").orElse(false);
    int timeout = body.optionalInt("timeoutMs", 0, 600_000).orElse(DEFAULT_DRAIN_TIMEOUT_MS);
    // The daemon keeps serving: the next session of each server starts a backend afresh.
    return Answer.ok(Backends.drained(sharing.drainBackends(force, Duration.ofMillis(timeout))));
  }

  private Answer probe(Exchange x) throws ApiError, InterruptedException {
    JsonBody body = x.body("server", "rounds");
    String name = body.string("server");
    int rounds = body.optionalInt("rounds", ProbePass.MIN_ROUNDS, 1_000).orElse(SurfaceProbe.DEFAULT_ROUNDS);
    ConfiguredServer server = probeable(allConfigs(), name);
    return Answer.ok(SurfaceOutput.json(cotenant.statelessness().probeSurface(server.description(), ProbePlan.empty(), rounds)));
  }

  private Answer register(Exchange x) throws ApiError, IOException {
    JsonBody body = x.body("server", "model", "scope", "maxConcurrent");
    String name = body.string("server");
    String model = body.string("model");
    String scope = body.optionalString("scope").orElse(ShareScope.TENANT.wireName());
    ConcurrencyModel m = ConcurrencyModel.fromWire(model).orElseThrow(() -> ApiError.badRequest("'model' must be one of "
        + Arrays.stream(ConcurrencyModel.values()).map(ConcurrencyModel::wireName).collect(Collectors.joining(", "))));
    ShareScope s = ShareScope.fromWire(scope).orElseThrow(() -> ApiError.badRequest("'scope' must be one of "
        + Arrays.stream(ShareScope.values()).map(ShareScope::wireName).collect(Collectors.joining(", "))));
    Optional<Integer> max = body.optionalInt("maxConcurrent", 1, Integer.MAX_VALUE);
    ConfiguredServer server = server(allConfigs(), name);
    ConcurrencyRecord stored;
    try {
      stored = cotenant.statelessness().register(server.description(), m, s,
          max.isPresent() ? OptionalInt.of(max.get()) : OptionalInt.empty());
    } catch (RegistrationRefusedException e) {
      throw new ApiError(409, "refused", String.valueOf(e.getMessage()));
    }
    return Answer.ok(RegisterView.json(stored));
  }

  private Answer startShare(Exchange x) throws ApiError {
    JsonBody body = x.body("server", "maxConcurrent", "rounds");
    String name = body.string("server");
    Optional<Integer> max = body.optionalInt("maxConcurrent", 1, Integer.MAX_VALUE);
    int rounds = body.optionalInt("rounds", ProbePass.MIN_ROUNDS, 1_000).orElse(SurfaceProbe.DEFAULT_ROUNDS);
    ConfiguredServer server = probeable(allConfigs(), name);
    String withPlan = "cotenant share " + Output.cell(name) + " --plan FILE " + Output.cell(server.source().toString());
    ObjectNode state = shares.start(server, rounds, max.isPresent() ? OptionalInt.of(max.get()) : OptionalInt.empty(), withPlan);
    return new Answer(202, Output.text(state).getBytes(StandardCharsets.UTF_8), Map.of());
  }

  private Answer openApi(Exchange x) throws IOException {
    try (InputStream in = ApiHandler.class.getResourceAsStream(OPENAPI_RESOURCE)) {
      if (in == null) {
        throw new IOException(OPENAPI_RESOURCE + " is missing from the jar");
      }
      return new Answer(200, in.readAllBytes(), Map.of());
    }
  }

  // ---- configuration --------------------------------------------------------------------------

  /**
   * The servers of {@code files}, a routed entry read as its original
   * ({@link dev.cotenant.cli.route.RoutedServers}); a file that cannot be read is {@code config_error}.
   */
  private static ServerConfigs configs(List<Path> files) throws ApiError {
    try {
      return dev.cotenant.cli.route.RoutedServers.resolve(new McpConfigReader().read(files)).configs();
    } catch (ConfigException e) {
      throw configError(e);
    }
  }

  /**
   * The daemon's own files, then the files its shims named: those that can be read now, and why
   * each of the others cannot (a file edited into a syntax error is left out, not the whole answer).
   */
  private record Sources(List<Path> readable, List<Path> shim, Map<Path, String> problems) {}

  private Sources sources() {
    List<Path> readable = new ArrayList<>(directory.files());
    List<Path> shim = directory.shimFiles();
    Map<Path, String> problems = new java.util.LinkedHashMap<>();
    McpConfigReader reader = new McpConfigReader();
    for (Path f : shim) {
      try {
        reader.read(List.of(f));
        readable.add(f);
      } catch (ConfigException e) {
        problems.put(f, e.problem());
      }
    }
    return new Sources(readable, shim, problems);
  }

  /**
   * Every server the daemon knows of: those of its own files (one that cannot be read is
   * {@code config_error}), then those of the files its shims named that can be read now.
   */
  private ServerConfigs allConfigs() throws ApiError {
    return configs(sources().readable());
  }

  /** The {@code routedFrom} of a routed client's sidecar file: the client configuration it keeps the originals of. */
  private static Optional<String> routedFrom(Path file) {
    try {
      JsonNode root = SIDECAR_READER.readTree(file.toFile());
      JsonNode from = root == null ? null : root.get("routedFrom");
      return from != null && from.isString() ? Optional.of(from.stringValue()) : Optional.empty();
    } catch (RuntimeException e) {
      return Optional.empty();
    }
  }

  /** The named server of {@code configs}, refused when disabled: a disabled server is never spawned. */
  private static ConfiguredServer probeable(ServerConfigs configs, String name) throws ApiError {
    ConfiguredServer server = server(configs, name);
    if (!server.description().enabled()) {
      throw ApiError.badRequest(LogSafe.escape(name, 200) + " is disabled in " + server.source()
          + "; a disabled server is never probed (enable it first)");
    }
    return server;
  }

  private List<Row> rows(ServerConfigs configs) {
    return cotenant.rows(cotenant.load(configs.list()), s -> s.source().toString());
  }

  /** The named server of {@code configs}: {@code unknown_server} when none, {@code config_error} when refused. */
  private static ConfiguredServer server(ServerConfigs configs, String name) throws ApiError {
    return servers(configs, List.of(name)).get(0);
  }

  private static List<ConfiguredServer> servers(ServerConfigs configs, List<String> names) throws ApiError {
    List<ConfiguredServer> out = new ArrayList<>();
    for (String n : names) {
      for (RefusedServer r : configs.refused()) {
        if (r.name().equals(n)) {
          throw new ApiError(422, "config_error", r.file() + ": " + r.reason());
        }
      }
      out.add(configs.get(n).orElseThrow(() -> ApiError.unknownServer(LogSafe.escape(n, 200), where(configs.files()))));
    }
    return out;
  }

  /**
   * The configuration file a request names: one of the daemon's, the first when it names none.
   *
   * @throws ApiError {@code bad_request} when it names another, or the daemon has none
   */
  private Path config(Optional<String> named) throws ApiError {
    List<Path> files = directory.files().stream().map(p -> p.toAbsolutePath().normalize()).toList();
    if (named.isEmpty()) {
      if (files.isEmpty()) {
        throw ApiError.badRequest("the daemon was started without a configuration file; start it with one "
            + "(cotenant serve CONFIG)");
      }
      return files.get(0);
    }
    Path p;
    try {
      p = Path.of(named.get());
    } catch (java.nio.file.InvalidPathException e) {
      throw ApiError.badRequest("'config' is not a path: " + LogSafe.escape(named.get(), 200));
    }
    if (!p.isAbsolute() || !files.contains(p.normalize())) {
      throw ApiError.badRequest("'config' must be the absolute path of one of the daemon's configuration files: "
          + where(files));
    }
    return p.normalize();
  }

  private static String where(List<Path> files) {
    return files.isEmpty() ? "the daemon's configuration files (it has none)"
        : files.stream().map(Path::toString).collect(Collectors.joining(", "));
  }

  private static ApiError configError(ConfigException e) {
    return new ApiError(422, "config_error", e.file() + ": " + e.problem());
  }

  /** Cancels a running measure job and a running share, and waits (bounded) for them to tear their processes down. */
  @Override
  public void close() {
    measures.close();
    shares.close();
  }

  @Override
  public String toString() {
    return "ApiHandler[" + PATH + ", " + ROUTES.size() + " routes]";
  }

  // ---- plumbing -------------------------------------------------------------------------------

  /** What a route does. */
  @FunctionalInterface
  private interface Action {
    Answer run(ApiHandler api, Exchange x) throws Exception;
  }

  /** A method, a path template ({@code {name}} matches one non-empty segment) and its action. */
  private record Route(String method, String path, Action action) {
    Optional<Map<String, String>> match(List<String> segments) {
      List<String> template = segments(path);
      if (template.size() != segments.size()) {
        return Optional.empty();
      }
      Map<String, String> params = new java.util.LinkedHashMap<>();
      for (int i = 0; i < template.size(); i++) {
        String t = template.get(i);
        String s = segments.get(i);
        if (t.startsWith("{") && t.endsWith("}")) {
          if (s.isEmpty()) {
            return Optional.empty();
          }
          params.put(t.substring(1, t.length() - 1), s);
        } else if (!t.equals(s)) {
          return Optional.empty();
        }
      }
      return Optional.of(params);
    }
  }

  /** One request being served: its path parameters and, read on demand, its body. */
  private record Exchange(Request request, Map<String, String> params) {
    String param(String name) {
      return Objects.requireNonNull(params.get(name), name);
    }

    /** The body, allowing only {@code known} fields. */
    JsonBody body(String... known) throws ApiError {
      byte[] bytes;
      try (InputStream in = Content.Source.asInputStream(request)) {
        bytes = in.readNBytes(JsonBody.MAX_BYTES + 1);
      } catch (IOException e) {
        throw ApiError.badRequest("the request body could not be read: " + LogSafe.escape(String.valueOf(e.getMessage()), 200));
      }
      return JsonBody.parse(bytes, known);
    }
  }

  /** An answer: status, JSON body, extra headers. */
  private record Answer(int status, byte[] body, Map<String, String> headers) {
    static Answer ok(JsonNode node) {
      return new Answer(200, Output.text(node).getBytes(StandardCharsets.UTF_8), Map.of());
    }

    static Answer error(ApiError e) {
      ObjectNode o = Output.object();
      o.put("code", e.code());
      o.put("message", String.valueOf(e.getMessage()));
      return new Answer(e.status(), Output.text(o).getBytes(StandardCharsets.UTF_8), e.headers());
    }
  }
}
