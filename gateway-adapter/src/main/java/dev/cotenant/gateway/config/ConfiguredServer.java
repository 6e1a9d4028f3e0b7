package dev.cotenant.gateway.config;

import dev.cotenant.api.ServerDescription;
import java.nio.file.Path;
import java.util.Objects;

/**
 * A server as read from a configuration file, with its provenance.
 *
 * @param description the server
 * @param source the file that defined it (the first file to define a name wins)
 */
public record ConfiguredServer(ServerDescription description, Path source) {
  public ConfiguredServer {
    Objects.requireNonNull(description, "description");
    Objects.requireNonNull(source, "source");
  }

  /** The configured name. */
  public String name() {
    return description.name();
  }
}
