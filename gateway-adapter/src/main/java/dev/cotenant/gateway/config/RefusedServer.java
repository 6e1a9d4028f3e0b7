package dev.cotenant.gateway.config;

import java.nio.file.Path;
import java.util.Objects;

/**
 * A server a configuration file defines but Cotenant refuses to use, with why: the other servers
 * of the file are read as usual.
 *
 * @param file the file that defines it
 * @param name its name, verbatim (escape it before printing)
 * @param reason why it is refused, already safe to print
 */
public record RefusedServer(Path file, String name, String reason) {
  public RefusedServer {
    Objects.requireNonNull(file, "file");
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(reason, "reason");
  }
}
