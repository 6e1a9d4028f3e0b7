package dev.cotenant.cli.daemon.api;

import dev.cotenant.api.LogSafe;
import dev.cotenant.cli.route.RoutedServers;
import dev.cotenant.gateway.config.ConfigException;
import dev.cotenant.gateway.config.ConfiguredServer;
import dev.cotenant.gateway.config.McpConfigReader;
import dev.cotenant.gateway.config.RefusedServer;
import dev.cotenant.gateway.config.ServerConfigs;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Where the API finds servers: the daemon's own configuration files, then those its shims named
 * ({@link ConfigFiles}), read afresh at each request, a routed entry read as its original
 * ({@link RoutedServers}). Every lookup that fails is the {@link ApiError} the contract names
 * ({@code unknown_server}, {@code config_error}, {@code bad_request}). Thread-safe.
 */
final class ApiConfigs {
  /** Reads a sidecar's {@code routedFrom} (the sidecar is plain JSON, written by {@code route}). */
  private static final JsonMapper SIDECAR_READER = JsonMapper.builder().build();

  private final ConfigFiles directory;

  ApiConfigs(ConfigFiles directory) {
    this.directory = directory;
  }

  /** The daemon's own files. */
  List<Path> ownFiles() {
    return directory.files();
  }

  /**
   * The servers of {@code files}, a routed entry read as its original; a file that cannot be read
   * is {@code config_error}.
   */
  static ServerConfigs configs(List<Path> files) throws ApiError {
    try {
      return RoutedServers.resolve(new McpConfigReader().read(files)).configs();
    } catch (ConfigException e) {
      throw configError(e);
    }
  }

  /**
   * The daemon's own files, then the files its shims named: those that can be read now, and why
   * each of the others cannot (a file edited into a syntax error is left out, not the whole answer).
   */
  record Sources(List<Path> readable, List<Path> shim, Map<Path, String> problems) {}

  /** The files as they are now. */
  Sources sources() {
    List<Path> readable = new ArrayList<>(directory.files());
    List<Path> shim = directory.shimFiles();
    Map<Path, String> problems = new LinkedHashMap<>();
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
  ServerConfigs all() throws ApiError {
    return configs(sources().readable());
  }

  /** The {@code routedFrom} of a routed client's sidecar file: the client configuration it keeps the originals of. */
  static Optional<String> routedFrom(Path file) {
    try {
      JsonNode root = SIDECAR_READER.readTree(file.toFile());
      JsonNode from = root == null ? null : root.get("routedFrom");
      return from != null && from.isString() ? Optional.of(from.stringValue()) : Optional.empty();
    } catch (RuntimeException e) {
      return Optional.empty();
    }
  }

  /** The named server of {@code configs}, refused when disabled: a disabled server is never spawned. */
  static ConfiguredServer probeable(ServerConfigs configs, String name) throws ApiError {
    ConfiguredServer server = server(configs, name);
    if (!server.description().enabled()) {
      throw ApiError.badRequest(LogSafe.escape(name, 200) + " is disabled in " + server.source()
          + "; a disabled server is never probed (enable it first)");
    }
    return server;
  }

  /** The named server of {@code configs}: {@code unknown_server} when none, {@code config_error} when refused. */
  static ConfiguredServer server(ServerConfigs configs, String name) throws ApiError {
    return servers(configs, List.of(name)).get(0);
  }

  /** The named servers of {@code configs}, in order; refused as {@link #server} refuses. */
  static List<ConfiguredServer> servers(ServerConfigs configs, List<String> names) throws ApiError {
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
  Path config(Optional<String> named) throws ApiError {
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
    } catch (InvalidPathException e) {
      throw ApiError.badRequest("'config' is not a path: " + LogSafe.escape(named.get(), 200));
    }
    if (!p.isAbsolute() || !files.contains(p.normalize())) {
      throw ApiError.badRequest("'config' must be the absolute path of one of the daemon's configuration files: "
          + where(files));
    }
    return p.normalize();
  }

  /** The files, for a message: where a server was looked for. */
  static String where(List<Path> files) {
    return files.isEmpty() ? "the daemon's configuration files (it has none)"
        : files.stream().map(Path::toString).collect(Collectors.joining(", "));
  }

  /** A file that cannot be read or written: {@code config_error}. */
  static ApiError configError(ConfigException e) {
    return new ApiError(422, "config_error", e.file() + ": " + e.problem());
  }
}
