package dev.cotenant.cli.daemon;

import dev.cotenant.cli.daemon.api.ConfigFiles;
import dev.cotenant.gateway.config.ConfigException;
import dev.cotenant.gateway.config.ConfiguredServer;
import dev.cotenant.gateway.config.McpConfigReader;
import dev.cotenant.gateway.config.RefusedServer;
import dev.cotenant.gateway.config.ServerConfigs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where the daemon finds a server's definition. Files are read afresh at each lookup, so an edit
 * takes effect for the next session: first the files the client named (a shim's
 * {@code cotenant connect NAME CONFIG...}), then the daemon's own ({@code cotenant serve
 * CONFIG...}, or the usual locations). A file the client named that cannot be read is an error; one
 * of the daemon's own is skipped with a warning.
 *
 * <p>It remembers the files its shims named ({@link #shimFiles()}): a daemon a shim started has
 * no configuration file of its own, and its API's rows, measurements and actions cover the servers
 * of the files its clients use (a routed client's sidecar, which holds the original entries).
 * Only the absolute path of a regular file that it read is remembered, at most
 * {@value #REMEMBERED} (the oldest is forgotten first). Thread-safe.
 */
public final class ServerDirectory implements ConfigFiles {
  private static final Logger LOG = LoggerFactory.getLogger(ServerDirectory.class);

  /** The most files named by shims that are remembered. */
  public static final int REMEMBERED = 256;

  private final List<Path> daemonFiles;
  private final LinkedHashSet<Path> shimFiles = new LinkedHashSet<>();

  /** Looks servers up in {@code daemonFiles} after the client's own. */
  public ServerDirectory(List<Path> daemonFiles) {
    this.daemonFiles = List.copyOf(daemonFiles);
  }

  /** The daemon's own files. */
  @Override
  public List<Path> files() {
    return daemonFiles;
  }

  /**
   * The files shims named that the daemon read, in the order first named, without the daemon's
   * own files and without those that are no longer regular files.
   */
  @Override
  public List<Path> shimFiles() {
    List<Path> named;
    synchronized (shimFiles) {
      named = new ArrayList<>(shimFiles);
    }
    List<Path> out = new ArrayList<>();
    for (Path p : named) {
      if (!daemonFiles.contains(p) && Files.isRegularFile(p)) {
        out.add(p);
      }
    }
    return out;
  }

  /** Remembers {@code file}, read as a configuration file a shim named, when it is an absolute path of a regular file. */
  private void remember(Path file) {
    Path p = file.normalize();
    if (!p.isAbsolute() || !Files.isRegularFile(p)) {
      return;
    }
    synchronized (shimFiles) {
      if (shimFiles.add(p) && shimFiles.size() > REMEMBERED) {
        Iterator<Path> oldest = shimFiles.iterator();
        oldest.next();
        oldest.remove();
      }
    }
  }

  /** Thrown when no file names the server. */
  public static final class UnknownServerException extends Exception {
    private static final long serialVersionUID = 1L;

    UnknownServerException(String message) {
      super(message);
    }
  }

  /**
   * The server named {@code name}: from {@code clientFiles} first, then the daemon's files.
   *
   * @throws ConfigException when a file of {@code clientFiles} cannot be read
   * @throws UnknownServerException when none names it, naming the files looked at
   */
  public ConfiguredServer find(String name, List<Path> clientFiles) throws ConfigException, UnknownServerException {
    McpConfigReader reader = new McpConfigReader();
    LinkedHashSet<Path> looked = new LinkedHashSet<>();
    for (Path f : clientFiles) {
      looked.add(f);
      checkTrusted(f);
      ServerConfigs read = reader.read(List.of(f));
      remember(f);
      Optional<ConfiguredServer> s = named(read, name);
      if (s.isPresent()) {
        return s.get();
      }
    }
    for (Path f : daemonFiles) {
      if (!looked.add(f)) {
        continue;
      }
      try {
        Optional<ConfiguredServer> s = named(reader.read(List.of(f)), name);
        if (s.isPresent()) {
          return s.get();
        }
      } catch (ConfigException e) {
        LOG.warn("{}: {}; skipped", f, e.problem());
      }
    }
    throw new UnknownServerException("no server named '" + name + "' in "
        + (looked.isEmpty() ? "any configuration file (the daemon was started without one; name the file: "
            + "cotenant connect " + name + " CONFIG)" : looked.stream().map(Path::toString).collect(Collectors.joining(", "))));
  }

  /**
   * Refuses a client's configuration file the daemon's user could not have written alone: the
   * daemon starts the commands it names outside any sandbox, so it must be a regular file (the
   * file a symbolic link leads to) owned by the daemon's user and not writable by every user. A
   * file that does not exist is left to the reader, which says so.
   *
   * @throws ConfigException naming the file, what is wrong and what to do
   */
  static void checkTrusted(Path f) throws ConfigException {
    Path real;
    try {
      real = f.toRealPath();
    } catch (java.io.IOException e) {
      return;
    }
    try {
      String user = System.getProperty("user.name");
      if (!Files.isRegularFile(real)) {
        throw new ConfigException(f, "is not a regular file: the daemon starts servers only from a configuration file");
      }
      String owner = Files.getOwner(real).getName();
      if (!owner.equals(user)) {
        throw new ConfigException(f, "belongs to " + owner + ", not to " + user + ", who runs the daemon: it starts"
            + " servers only from its own user's configuration files");
      }
      if (Files.getPosixFilePermissions(real).contains(java.nio.file.attribute.PosixFilePermission.OTHERS_WRITE)) {
        throw new ConfigException(f, "is writable by every user: the daemon starts no server from it (chmod o-w "
            + real + ")");
      }
    } catch (java.io.IOException | UnsupportedOperationException e) {
      throw new ConfigException(f, "its owner and mode cannot be read (" + e.getMessage() + "): the daemon starts no"
          + " server from it");
    }
  }

  /**
   * The server {@code name} of {@code read}; a routed entry is its original
   * ({@link dev.cotenant.cli.route.RoutedServers}), so a routed client file among the daemon's own
   * never has the daemon start a shim that connects back to it.
   */
  private static Optional<ConfiguredServer> named(ServerConfigs read, String name) throws ConfigException {
    ServerConfigs configs = dev.cotenant.cli.route.RoutedServers.resolve(read).configs();
    for (RefusedServer r : configs.refused()) {
      if (r.name().equals(name)) {
        throw new ConfigException(r.file(), r.reason());
      }
    }
    return configs.get(name);
  }
}
