package dev.cotenant.cli.daemon.http;

import dev.cotenant.api.ServerDescription;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Finds the configured server an HTTP path names ({@code /mcp/{server}}). Called for every
 * request that opens a session, so an implementation may read the configuration afresh each time.
 * Implementations must be thread-safe.
 */
@FunctionalInterface
public interface ServerLookup {
  /**
   * The server configured under {@code name}, or empty when there is none.
   *
   * @throws LookupException when the servers cannot be read (an unreadable configuration)
   */
  Optional<ServerDescription> find(String name) throws LookupException;

  /** A fixed set of servers, found by their configured names; a later duplicate name wins. */
  static ServerLookup of(Collection<ServerDescription> servers) {
    Map<String, ServerDescription> byName = new LinkedHashMap<>();
    servers.forEach(s -> byName.put(s.name(), s));
    Map<String, ServerDescription> fixed = Map.copyOf(byName);
    return name -> Optional.ofNullable(fixed.get(name));
  }
}
