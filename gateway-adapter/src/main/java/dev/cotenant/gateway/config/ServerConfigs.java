package dev.cotenant.gateway.config;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Servers merged from several configuration files, in file order then declaration order. When
 * two files define one name the first wins and the later definition is listed in
 * {@link #shadowed()}.
 *
 * @param files the files read, in order
 * @param servers the merged servers by name
 * @param shadowed later definitions hidden by an earlier file's
 * @param refused servers the files define but that cannot be used (a name with a control
 *     character), each with why; the others are read as usual
 */
public record ServerConfigs(
    List<Path> files, Map<String, ConfiguredServer> servers, List<ConfiguredServer> shadowed, List<RefusedServer> refused) {
  public ServerConfigs {
    files = List.copyOf(files);
    servers = Collections.unmodifiableMap(new LinkedHashMap<>(servers));
    shadowed = List.copyOf(shadowed);
    refused = List.copyOf(refused);
  }

  /** Servers with nothing refused. */
  public ServerConfigs(List<Path> files, Map<String, ConfiguredServer> servers, List<ConfiguredServer> shadowed) {
    this(files, servers, shadowed, List.of());
  }

  /** Every merged server, in order. */
  public List<ConfiguredServer> list() {
    return new ArrayList<>(servers.values());
  }

  /** The server named {@code name}, if configured. */
  public Optional<ConfiguredServer> get(String name) {
    return Optional.ofNullable(servers.get(name));
  }
}
