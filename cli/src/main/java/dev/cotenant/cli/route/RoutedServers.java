package dev.cotenant.cli.route;

import dev.cotenant.api.LogSafe;
import dev.cotenant.api.ServerDescription;
import dev.cotenant.api.Transport;
import dev.cotenant.gateway.config.ConfigException;
import dev.cotenant.gateway.config.ConfiguredServer;
import dev.cotenant.gateway.config.McpConfigReader;
import dev.cotenant.gateway.config.RefusedServer;
import dev.cotenant.gateway.config.ServerConfigs;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Sees through routed entries: a server whose entry launches {@code connect NAME SIDECAR}
 * ({@link Router#connectAt}) is read as the original entry {@code route} kept in that sidecar, so
 * a command judges, measures, probes or registers the server, never the shim in front of it. The
 * original keeps the routed entry's name, its source file and its {@code disabled} flag, and is
 * read as the daemon reads it (relative paths against the sidecar's directory), so it has the
 * original's launch identity and its records.
 *
 * <p>A routed entry whose original cannot be found (no sidecar named, a sidecar that is missing,
 * cannot be read, or holds no original under the name) is refused on its own with a one-line
 * reason, like a server whose name cannot be used; the file's other servers are read as usual.
 */
public final class RoutedServers {
  private RoutedServers() {}

  /**
   * The servers with their routed entries resolved.
   *
   * @param configs the servers, each routed entry replaced by its original; a routed entry whose
   *     original was not found is in {@link ServerConfigs#refused()} with why
   * @param sidecars the servers that were replaced, by name in configuration order, each with the
   *     sidecar its original came from
   */
  public record Resolved(ServerConfigs configs, Map<String, Path> sidecars) {
    public Resolved {
      Objects.requireNonNull(configs, "configs");
      sidecars = Collections.unmodifiableMap(new LinkedHashMap<>(sidecars));
    }
  }

  /** {@code read} with every routed entry replaced by its original, or refused when none is found. */
  public static Resolved resolve(ServerConfigs read) {
    Map<String, ConfiguredServer> servers = new LinkedHashMap<>();
    Map<String, Path> sidecars = new LinkedHashMap<>();
    List<RefusedServer> refused = new ArrayList<>(read.refused());
    Map<Path, SidecarRead> sidecarFiles = new HashMap<>();
    for (ConfiguredServer s : read.list()) {
      ServerDescription d = s.description();
      if (d.transport() != Transport.STDIO || Router.connectAt(d.name(), d.args()).isEmpty()) {
        servers.put(s.name(), s);
        continue;
      }
      String who = "server \"" + LogSafe.escape(d.name(), 120) + "\" is routed through the daemon";
      Optional<String> named = Router.sidecarArgument(d.name(), d.args());
      if (named.isEmpty()) {
        refused.add(new RefusedServer(s.source(), d.name(), who + " (connect " + LogSafe.escape(d.name(), 120)
            + ") without a sidecar file, so its original entry is not known here; left out, the shim is not read as the "
            + "server (name the file that defines it)"));
        continue;
      }
      Path sidecar;
      try {
        sidecar = s.source().toAbsolutePath().getParent().resolve(named.get()).normalize();
      } catch (InvalidPathException e) {
        refused.add(new RefusedServer(s.source(), d.name(), who + ", but its sidecar argument is no path ("
            + LogSafe.escape(e.getMessage(), 200) + "); left out, the shim is not read as the server"));
        continue;
      }
      SidecarRead file = sidecarFiles.computeIfAbsent(sidecar, SidecarRead::of);
      Optional<String> problem = file.problem();
      Optional<ConfiguredServer> original = file.servers().flatMap(c -> c.get(d.name()));
      if (problem.isEmpty() && original.isEmpty()) {
        problem = Optional.of("its sidecar " + sidecar + " holds no original entry for it");
      }
      if (problem.isEmpty() && Router.connectAt(d.name(), original.get().description().args()).isPresent()) {
        problem = Optional.of("the entry its sidecar " + sidecar + " holds for it is routed too");
      }
      if (problem.isPresent()) {
        refused.add(new RefusedServer(s.source(), d.name(), who + ", but " + LogSafe.escape(problem.get(), 600)
            + "; left out, the shim is not read as the server (put the original entry back in the file, or route it again)"));
        continue;
      }
      servers.put(s.name(), new ConfiguredServer(original.get().description().withEnabled(d.enabled()), s.source()));
      sidecars.put(s.name(), sidecar);
    }
    return new Resolved(new ServerConfigs(read.files(), servers, read.shadowed(), refused), sidecars);
  }

  /** The servers of one sidecar, or why it cannot be read. */
  private record SidecarRead(Optional<ServerConfigs> servers, Optional<String> problem) {
    static SidecarRead of(Path sidecar) {
      if (!Files.exists(sidecar)) {
        return new SidecarRead(Optional.empty(), Optional.of("its sidecar " + sidecar + " does not exist"));
      }
      try {
        return new SidecarRead(Optional.of(new McpConfigReader().read(List.of(sidecar))), Optional.empty());
      } catch (ConfigException e) {
        return new SidecarRead(Optional.empty(), Optional.of("its sidecar cannot be read (" + sidecar + ": " + e.problem() + ")"));
      }
    }
  }
}
