package dev.cotenant.gateway.records;

import dev.cotenant.spi.ProviderConfig;
import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The ONE function that says where the records directory is (docs/records.md). Every writer and every
 * reader calls it, so a gateway and a dashboard always agree on the files.
 *
 * <ol>
 *   <li>A configured gateway socket path wins: the records sit in its parent directory. An empty
 *       value and {@code "."} count as unset (both would otherwise mean "wherever the process
 *       happened to start").
 *   <li>Otherwise {@code $COTENANT_HOME/records}; {@code COTENANT_HOME} empty or {@code "."} is
 *       unset too.
 *   <li>Otherwise {@code ~/.cotenant/records}.
 * </ol>
 *
 * <p>The fallback is load-bearing: the records must exist before any gateway is configured,
 * because their purpose is to tell an operator who has not enabled sharing whether it would be
 * safe to. A leading {@code ~/} expands to the user's home. A relative path is refused with a
 * message naming it, since its meaning would depend on the current directory.
 *
 * <p>Pure: the environment and home directory arrive as arguments.
 */
public final class RecordsDirectory {
  /** The configuration key of the gateway socket path. */
  public static final String SOCKET_PATH_KEY = "cotenant.gateway.socket-path";

  /** The environment variable naming Cotenant's home directory. */
  public static final String HOME_ENV = "COTENANT_HOME";

  private RecordsDirectory() {}

  /**
   * Resolves the records directory.
   *
   * @param socketPath the configured gateway socket path, if any
   * @param env the environment (only {@value #HOME_ENV} is read)
   * @param userHome the user's home directory
   * @throws IllegalArgumentException when a set value is a relative path or, for the socket
   *     path, has no parent directory
   */
  public static Path resolve(Optional<String> socketPath, Map<String, String> env, Path userHome) {
    Objects.requireNonNull(userHome, "userHome");
    Optional<String> socket = socketPath.filter(RecordsDirectory::isSet);
    if (socket.isPresent()) {
      Path p = absolute(socket.get(), "gateway socket path (" + SOCKET_PATH_KEY + ")", userHome);
      Path parent = p.getParent();
      if (parent == null) {
        throw new IllegalArgumentException(
            "gateway socket path (" + SOCKET_PATH_KEY + ") '" + socket.get() + "' has no parent directory");
      }
      return parent;
    }
    Optional<String> home = Optional.ofNullable(env.get(HOME_ENV)).filter(RecordsDirectory::isSet);
    if (home.isPresent()) {
      return absolute(home.get(), HOME_ENV, userHome).resolve("records");
    }
    return userHome.resolve(".cotenant").resolve("records").normalize();
  }

  /** Resolves from configuration ({@value #SOCKET_PATH_KEY}), an environment and a home directory. */
  public static Path resolve(ProviderConfig config, Map<String, String> env, Path userHome) {
    return resolve(config.get(SOCKET_PATH_KEY), env, userHome);
  }

  /** Resolves from configuration and this process's environment and home ({@link #userHome(Map)}). */
  public static Path resolveForThisProcess(ProviderConfig config) {
    Map<String, String> env = System.getenv();
    return resolve(config, env, userHome(env));
  }

  /**
   * The user's home directory as a shell has it: {@code $HOME} when {@code env} sets it to an
   * absolute path, else the JVM's {@code user.home} (the password database's entry). The native
   * shim reads it the same way, so {@code HOME=/x cotenant status} and {@code HOME=/x
   * cotenant-shim} agree on {@code /x/.cotenant}.
   */
  public static Path userHome(Map<String, String> env) {
    String home = env.get("HOME");
    if (home != null && !home.isBlank()) {
      Path p = Path.of(home.strip());
      if (p.isAbsolute()) {
        return p.normalize();
      }
    }
    return Path.of(System.getProperty("user.home"));
  }

  /** True unless the value is empty, blank or {@code "."} (optionally with a trailing slash). */
  static boolean isSet(String value) {
    String v = value.strip();
    return !(v.isEmpty() || v.equals(".") || v.equals("./"));
  }

  private static Path absolute(String value, String what, Path userHome) {
    String v = value.strip();
    Path p;
    if (v.equals("~")) {
      p = userHome;
    } else if (v.startsWith("~/")) {
      p = userHome.resolve(v.substring(2));
    } else {
      p = Path.of(v);
    }
    if (!p.isAbsolute()) {
      throw new IllegalArgumentException(
          what + " '" + value + "' is a relative path; give an absolute path (or one starting with ~/)");
    }
    return p.normalize();
  }
}
