package dev.cotenant.cli.daemon;

import dev.cotenant.cli.route.PrivateFiles;
import dev.cotenant.gateway.records.RecordsDirectory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The Cotenant home directory and the daemon's files in it: {@code $COTENANT_HOME}, else
 * {@code ~/.cotenant}.
 *
 * <ul>
 *   <li>{@code cotenant.sock}: the daemon's Unix domain socket, mode 0600;
 *   <li>{@code api.sock}: the daemon's HTTP API ({@code /api}) on a Unix domain socket, mode 0600;
 *   <li>{@code daemon.lock}: held by the running daemon (one per home), holds its pid;
 *   <li>{@code daemon.start.lock}: held by a shim while it starts a daemon, so several shims
 *       starting at once start one;
 *   <li>{@code daemon.json}: the running daemon's pid, socket and HTTP address;
 *   <li>{@code daemon.log}: the output of a daemon a shim (or {@code serve --detach}) started;
 *   <li>{@code api-token}: the bearer token of the HTTP surfaces, mode 0600;
 *   <li>{@code routes/}: the sidecars of routed client configurations, mode 0700;
 *   <li>{@code lib/}: the files routed entries start, mode 0700: {@code cotenant-<sha-256
 *       prefix>.jar} (0600) and the native shim (0700), checked by content and owner before use.
 * </ul>
 *
 * @param dir the directory, absolute
 */
public record CotenantHome(Path dir) {
  /** The environment variable naming the home directory. */
  public static final String ENV = "COTENANT_HOME";

  /** The longest path a Unix domain socket may have on Linux, in bytes. */
  static final int SOCKET_PATH_MAX = 107;

  public CotenantHome {
    dir = dir.toAbsolutePath().normalize();
  }

  /**
   * {@code $COTENANT_HOME} from {@code env} when set, else {@code userHome/.cotenant}: read exactly
   * as the records directory reads it ({@code ~/} expanded; {@code $COTENANT_HOME/records} is the
   * default records directory), so the daemon, its shims and every command agree on one home.
   *
   * @throws IllegalArgumentException when {@code $COTENANT_HOME} is a relative path
   */
  public static CotenantHome resolve(Map<String, String> env, Path userHome) {
    return new CotenantHome(RecordsDirectory.resolve(java.util.Optional.empty(), env, userHome).getParent());
  }

  /** The daemon's socket. */
  public Path socket() {
    return dir.resolve("cotenant.sock");
  }

  /** The daemon's HTTP API on a Unix domain socket. */
  public Path apiSocket() {
    return dir.resolve("api.sock");
  }

  /** The daemon's lock file. */
  public Path lock() {
    return dir.resolve("daemon.lock");
  }

  /** The lock shims take while starting a daemon. */
  public Path startLock() {
    return dir.resolve("daemon.start.lock");
  }

  /** The running daemon's state. */
  public Path state() {
    return dir.resolve("daemon.json");
  }

  /** Where a daemon started in the background writes its output. */
  public Path log() {
    return dir.resolve("daemon.log");
  }

  /** The bearer token of the HTTP surfaces. */
  public Path token() {
    return dir.resolve("api-token");
  }

  /** The installed files routed entries run: the jar and the native shim. */
  public Path lib() {
    return dir.resolve("lib");
  }

  /** The sidecars of routed client configurations. */
  public Path routes() {
    return dir.resolve("routes");
  }

  /**
   * Creates the directory (and missing parents) when it is missing, mode 0700 whatever the umask
   * ({@link PrivateFiles#create}). An existing home is left as it is: {@link #checkOwnership}
   * refuses one that others may write, since they could have planted what it holds.
   */
  public void ensure() throws IOException {
    PrivateFiles.create(dir);
  }

  /**
   * Checks, as OpenSSH's StrictModes does, that what the daemon trusts is its user's alone: the
   * home (the directory a symbolic link leads to), its {@code api-token}, and each of
   * {@code more} (the records directory) that exists must be owned by the user the daemon runs
   * as, and writable by no group and no other user; the token readable by no one else either. Another user who owns or may write any of
   * them could plant a token the API then accepts, or swap the socket for a listener of their own.
   *
   * @throws IOException naming the first path that fails, its owner or mode, and what to do
   */
  public void checkOwnership(Path... more) throws IOException {
    String user = System.getProperty("user.name");
    List<Path> paths = new ArrayList<>(List.of(dir, token()));
    paths.addAll(List.of(more));
    for (Path p : paths) {
      if (!Files.exists(p)) {
        continue;
      }
      Path real = p.toRealPath();
      String owner = Files.getOwner(real).getName();
      String shown = real.equals(p) ? p.toString() : p + " (" + real + ")";
      if (!owner.equals(user)) {
        throw new IOException(shown + " belongs to " + owner + ", not to " + user + ", who runs the daemon: refusing to start."
            + " The Cotenant home, its api-token and its records must be yours alone (chown them, or set " + ENV
            + " to a directory of your own)");
      }
      java.util.Set<java.nio.file.attribute.PosixFilePermission> mode = Files.getPosixFilePermissions(real);
      if (p.equals(token()) && PrivateFiles.openToOthers(real)) {
        throw new IOException(shown + " may be read by others (" + java.nio.file.attribute.PosixFilePermissions.toString(mode)
            + "): refusing to start, since whoever read it may use the daemon's HTTP API. Remove it (the daemon"
            + " writes a new one) or make it yours alone (chmod 600 " + real + ")");
      }
      if (mode.contains(java.nio.file.attribute.PosixFilePermission.GROUP_WRITE)
          || mode.contains(java.nio.file.attribute.PosixFilePermission.OTHERS_WRITE)) {
        throw new IOException(shown + " is writable by others (" + java.nio.file.attribute.PosixFilePermissions.toString(mode)
            + "): refusing to start. The Cotenant home, its api-token and its records must be writable by you alone"
            + " (chmod go-w " + real + ")");
      }
    }
  }

  /**
   * Checks that the socket path fits a Unix domain socket address.
   *
   * @throws IOException naming the path, its length and what to do
   */
  public void checkSocketPathLength() throws IOException {
    int n = socket().toString().getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
    if (n > SOCKET_PATH_MAX) {
      throw new IOException("the socket path " + socket() + " is " + n + " bytes long; a Unix socket's limit is "
          + SOCKET_PATH_MAX + ": set " + ENV + " to a shorter directory");
    }
  }
}
