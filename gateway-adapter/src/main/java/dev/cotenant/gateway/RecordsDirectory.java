package dev.cotenant.gateway;

import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

/**
 * The one function that resolves the per-host records directory (DESIGN §4), called by every
 * writer and reader so they agree: a configured gateway socket path wins (its parent
 * directory), with {@code ""} and {@code "."} counting as unset; otherwise
 * {@code $COTENANT_HOME/records}; otherwise {@code ~/.cotenant/records}. Pure: the environment
 * and home directory are arguments.
 */
public final class RecordsDirectory {
  /** The configuration key holding the gateway socket path. */
  public static final String SOCKET_PATH_KEY = "cotenant.socket-path";

  /** The environment variable naming Cotenant's home directory. */
  public static final String HOME_ENV = "COTENANT_HOME";

  private RecordsDirectory() {}

  /**
   * Resolves the records directory.
   *
   * @param socketPath the configured gateway socket path, if any
   * @param env the process environment
   * @param userHome the user's home directory
   */
  public static Path resolve(Optional<String> socketPath, Map<String, String> env, String userHome) {
    Optional<String> socket = socketPath.map(String::strip).filter(s -> !s.isEmpty() && !s.equals("."));
    if (socket.isPresent()) {
      Path parent = Path.of(socket.get()).toAbsolutePath().getParent();
      if (parent != null) {
        return parent;
      }
    }
    String home = env.get(HOME_ENV);
    if (home != null && !home.isBlank()) {
      return Path.of(home).resolve("records");
    }
    return Path.of(userHome, ".cotenant", "records");
  }
}
