package dev.cotenant.api;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

/**
 * One configured MCP server as a host describes it. Immutable: the collections are copied and
 * the env map is sorted by key.
 *
 * @param name the configured name, unique within a host's configuration
 * @param transport how the server is reached
 * @param command the executable for {@link Transport#STDIO}, {@code ""} otherwise
 * @param args the arguments
 * @param cwd the working directory, if configured
 * @param env the env entries the configuration declares for the server
 * @param url the endpoint for HTTP transports, if configured
 * @param enabled false when the operator disabled the server; a disabled server is never spawned
 */
public record ServerDescription(
    String name,
    Transport transport,
    String command,
    List<String> args,
    Optional<String> cwd,
    Map<String, String> env,
    Optional<String> url,
    boolean enabled) {

  public ServerDescription {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(transport, "transport");
    Objects.requireNonNull(command, "command");
    args = List.copyOf(args);
    Objects.requireNonNull(cwd, "cwd");
    env = java.util.Collections.unmodifiableMap(new TreeMap<>(env));
    Objects.requireNonNull(url, "url");
  }

  /** An enabled stdio server with no cwd and no env. */
  public static ServerDescription stdio(String name, String command, String... args) {
    return new ServerDescription(
        name, Transport.STDIO, command, List.of(args), Optional.empty(), Map.of(), Optional.empty(), true);
  }

  /** An enabled streamable-HTTP server. */
  public static ServerDescription http(String name, String url) {
    return new ServerDescription(
        name, Transport.HTTP, "", List.of(), Optional.empty(), Map.of(), Optional.of(url), true);
  }

  /** A copy with {@code env} replaced. */
  public ServerDescription withEnv(Map<String, String> newEnv) {
    return new ServerDescription(name, transport, command, args, cwd, newEnv, url, enabled);
  }

  /** A copy with {@code cwd} replaced. */
  public ServerDescription withCwd(Optional<String> newCwd) {
    return new ServerDescription(name, transport, command, args, newCwd, env, url, enabled);
  }

  /** A copy with {@code enabled} replaced. */
  public ServerDescription withEnabled(boolean newEnabled) {
    return new ServerDescription(name, transport, command, args, cwd, env, url, newEnabled);
  }
}
