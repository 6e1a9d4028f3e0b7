package dev.cotenant.cli;

import dev.cotenant.gateway.config.ConfiguredServer;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Parameters;

/**
 * The arguments of a command about one configured server, {@code NAME [CONFIG...]}, mixed into
 * {@code probe-stateless}, {@code register} and {@code share} with {@code @Mixin}.
 */
public final class ServerArguments {
  @Parameters(index = "0", paramLabel = "NAME", description = "The configured server.")
  String name;

  @Parameters(index = "1..*", paramLabel = "CONFIG", arity = "0..*",
      description = "MCP configuration files (first definition of a name wins).")
  List<String> configs = new ArrayList<>();

  /** Created by picocli. */
  public ServerArguments() {}

  /** The server's name, as given. */
  public String name() {
    return name;
  }

  /** The configuration files, as given (none: the usual locations). */
  public List<String> configs() {
    return List.copyOf(configs);
  }

  /**
   * The named server, read through {@code rt} ({@link CliRuntime#server}).
   *
   * @throws Exception a {@code ConfigException} when a file cannot be read or the server is
   *     refused, a {@link UsageException} when no file defines it
   */
  ConfiguredServer server(CliRuntime rt) throws Exception {
    return rt.server(configs, name);
  }

  /**
   * The named server, refused when disabled: a disabled server is never spawned.
   *
   * @throws UsageException when it is disabled, or no file defines it
   */
  ConfiguredServer probeable(CliRuntime rt) throws Exception {
    ConfiguredServer server = server(rt);
    if (!server.description().enabled()) {
      throw new UsageException(name + " is disabled in " + rt.context().display(server.source())
          + "; a disabled server is never probed (enable it first)");
    }
    return server;
  }
}
