package dev.cotenant.fleet.redis;

import dev.cotenant.spi.ProviderConfig;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * The {@code redis} limiter's configuration, read and checked once: where Redis is, how long a
 * lease lasts, the key prefix, and the credentials. Its {@link #toString()} and every message it
 * makes name the URL without user or password. Immutable.
 */
final class RedisLimiterConfig {
  /** {@code redis://HOST:PORT[/DB]} or {@code rediss://HOST:PORT[/DB]} (TLS); required. */
  static final String URL = "cotenant.limiter.redis.url";
  /** How long a permit's lease lasts without renewal, in ms: a crashed holder's slot returns after it. */
  static final String LEASE_MS = "cotenant.limiter.redis.lease-ms";
  /** The prefix of every key the limiter writes. */
  static final String PREFIX = "cotenant.limiter.redis.prefix";
  /** A file holding the password (its first line); wins over the environment and the URL. */
  static final String PASSWORD_FILE = "cotenant.limiter.redis.password-file";
  /** The environment variable holding the password when no password file is configured. */
  static final String PASSWORD_ENV = "COTENANT_REDIS_PASSWORD";

  static final int DEFAULT_LEASE_MS = 30_000;
  static final int MIN_LEASE_MS = 100;
  static final int MAX_LEASE_MS = 86_400_000;
  static final String DEFAULT_PREFIX = "cotenant:limiter:";
  static final int DEFAULT_PORT = 6379;

  final boolean tls;
  final String host;
  final int port;
  final int database;
  final @Nullable String user;
  final @Nullable String password;
  final long leaseMs;
  final String prefix;
  /** The URL as messages show it: scheme, host, port and database, never credentials. */
  final String displayUrl;

  private RedisLimiterConfig(boolean tls, String host, int port, int database, @Nullable String user,
      @Nullable String password, long leaseMs, String prefix) {
    this.tls = tls;
    this.host = host;
    this.port = port;
    this.database = database;
    this.user = user;
    this.password = password;
    this.leaseMs = leaseMs;
    this.prefix = prefix;
    String h = host.indexOf(':') >= 0 ? "[" + host + "]" : host;
    this.displayUrl = (tls ? "rediss" : "redis") + "://" + h + ":" + port + (database == 0 ? "" : "/" + database);
  }

  /**
   * Reads the configuration.
   *
   * @param env the process environment ({@code System::getenv}), read for {@value #PASSWORD_ENV}
   * @throws IllegalArgumentException naming the key, when the URL is missing or malformed (a port
   *     outside 1 to 65535 included), the lease is not a whole number of ms in range, or the
   *     password file cannot be read
   */
  static RedisLimiterConfig from(ProviderConfig config, Function<String, @Nullable String> env) {
    String raw = config.get(URL).map(String::strip).orElse("");
    if (raw.isEmpty()) {
      throw new IllegalArgumentException("configuration key " + URL + " is required by the redis limiter "
          + "(redis://HOST:PORT[/DB] or rediss://HOST:PORT[/DB])");
    }
    URI uri;
    try {
      uri = new URI(raw);
    } catch (URISyntaxException e) {
      throw malformed(raw, "it is not a URI");
    }
    String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
    if (!scheme.equals("redis") && !scheme.equals("rediss")) {
      throw malformed(raw, "the scheme must be redis or rediss");
    }
    if (uri.getHost() == null || uri.getHost().isEmpty()) {
      throw malformed(raw, "it names no host");
    }
    if (uri.getRawQuery() != null || uri.getRawFragment() != null) {
      throw malformed(raw, "it has a query or fragment");
    }
    String host = uri.getHost();
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    if (uri.getPort() == 0 || uri.getPort() > 65535) {
      throw malformed(raw, "the port must be between 1 and 65535");
    }
    int port = uri.getPort() < 0 ? DEFAULT_PORT : uri.getPort();
    int database = 0;
    String path = uri.getPath() == null ? "" : uri.getPath();
    if (!path.isEmpty() && !path.equals("/")) {
      try {
        database = Integer.parseInt(path.substring(1));
      } catch (NumberFormatException e) {
        throw malformed(raw, "the path must be a database number");
      }
      if (database < 0) {
        throw malformed(raw, "the database number must not be negative");
      }
    }
    String user = null;
    String password = null;
    if (uri.getUserInfo() != null) {
      String info = uri.getUserInfo();
      int colon = info.indexOf(':');
      user = colon < 0 ? info : info.substring(0, colon);
      password = colon < 0 ? null : info.substring(colon + 1);
      if (user.isEmpty()) {
        user = null;
      }
      if (password != null && password.isEmpty()) {
        password = null;
      }
    }
    Optional<String> file = config.get(PASSWORD_FILE).map(String::strip).filter(s -> !s.isEmpty());
    if (file.isPresent()) {
      password = readPassword(file.get());
    } else {
      String fromEnv = env.apply(PASSWORD_ENV);
      if (fromEnv != null && !fromEnv.isEmpty()) {
        password = fromEnv;
      }
    }
    int lease = config.getInt(LEASE_MS, DEFAULT_LEASE_MS);
    if (lease < MIN_LEASE_MS || lease > MAX_LEASE_MS) {
      throw new IllegalArgumentException("configuration key " + LEASE_MS + " must be between " + MIN_LEASE_MS + " and "
          + MAX_LEASE_MS + " ms, got " + lease);
    }
    String prefix = config.get(PREFIX, DEFAULT_PREFIX);
    return new RedisLimiterConfig(scheme.equals("rediss"), host, port, database, user, password, lease, prefix);
  }

  private static String readPassword(String file) {
    String text;
    try {
      text = Files.readString(Path.of(file), StandardCharsets.UTF_8);
    } catch (IOException | RuntimeException e) {
      throw new IllegalArgumentException("configuration key " + PASSWORD_FILE + " names " + file
          + ", which cannot be read (" + e.getClass().getSimpleName() + ")");
    }
    int eol = text.indexOf('\n');
    String first = (eol < 0 ? text : text.substring(0, eol)).strip();
    if (first.isEmpty()) {
      throw new IllegalArgumentException("configuration key " + PASSWORD_FILE + " names " + file + ", which is empty");
    }
    return first;
  }

  private static IllegalArgumentException malformed(String raw, String why) {
    return new IllegalArgumentException("configuration key " + URL + " must be redis://HOST:PORT[/DB] or "
        + "rediss://HOST:PORT[/DB]; " + why + ": " + redact(raw));
  }

  /**
   * {@code url} without the user and password it may carry, for a message. A string that still
   * holds an {@code @} after that (too malformed to tell where credentials end) is not shown.
   */
  static String redact(String url) {
    String r = url.replaceFirst("^([A-Za-z][A-Za-z0-9+.-]*://)?[^/?#]*@", "$1");
    return r.indexOf('@') >= 0 ? "(a value with credentials, not shown)" : "'" + r + "'";
  }

  @Override
  public String toString() {
    return "redis limiter at " + displayUrl + " (lease " + leaseMs + " ms, prefix '" + prefix + "')";
  }
}
