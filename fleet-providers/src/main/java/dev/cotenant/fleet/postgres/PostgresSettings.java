package dev.cotenant.fleet.postgres;

import dev.cotenant.spi.ProviderConfig;
import java.io.IOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The configuration of the {@code postgres} record stores, read once from the provider
 * configuration and the environment.
 *
 * <ul>
 *   <li>{@value #URL_KEY} (required): {@code jdbc:postgresql://HOST:PORT/DATABASE}, with any of the
 *       driver's own parameters;
 *   <li>{@value #SCHEMA_KEY} (default {@value #DEFAULT_SCHEMA}): the schema the tables live in, so
 *       several fleets can share one database;
 *   <li>the user: {@value #USER_KEY}, else the environment variable {@value #USER_ENV}, else the
 *       driver's default (a {@code user} parameter in the URL);
 *   <li>the password: the file named by {@value #PASSWORD_FILE_KEY} (its first line), else the
 *       environment variable {@value #PASSWORD_ENV}, else none (a {@code password} parameter in
 *       the URL), the same order as the {@code redis} limiter's.
 * </ul>
 *
 * <p>The password is never logged and never shown: every message names the database by
 * {@link #redactedUrl()}, which drops the URL's parameters and any {@code user:password@}.
 *
 * @param url the JDBC URL as configured
 * @param schema the schema name, a plain lowercase identifier
 * @param user the user, when configured outside the URL
 * @param password the password, when configured outside the URL
 */
public record PostgresSettings(String url, String schema, Optional<String> user, Optional<String> password) {
  /** The JDBC URL of the database. */
  public static final String URL_KEY = "cotenant.records.postgres.url";
  /** The schema the tables live in. */
  public static final String SCHEMA_KEY = "cotenant.records.postgres.schema";
  /** The database user. */
  public static final String USER_KEY = "cotenant.records.postgres.user";
  /** A file whose first line is the password. */
  public static final String PASSWORD_FILE_KEY = "cotenant.records.postgres.password-file";
  /** The environment variable holding the user, when {@value #USER_KEY} is not set. */
  public static final String USER_ENV = "COTENANT_POSTGRES_USER";
  /** The environment variable holding the password, when {@value #PASSWORD_FILE_KEY} is not set. */
  public static final String PASSWORD_ENV = "COTENANT_POSTGRES_PASSWORD";
  /** The schema used when {@value #SCHEMA_KEY} is not set. */
  public static final String DEFAULT_SCHEMA = "cotenant";

  private static final Pattern IDENTIFIER = Pattern.compile("[a-z_][a-z0-9_]{0,62}");

  public PostgresSettings {
    Objects.requireNonNull(url, "url");
    Objects.requireNonNull(schema, "schema");
    Objects.requireNonNull(user, "user");
    Objects.requireNonNull(password, "password");
    if (!url.startsWith("jdbc:postgresql:")) {
      throw new IllegalArgumentException(
          URL_KEY + " must be a PostgreSQL JDBC URL (jdbc:postgresql://HOST:PORT/DATABASE), got '" + redact(url) + "'");
    }
    if (!IDENTIFIER.matcher(schema).matches()) {
      throw new IllegalArgumentException(SCHEMA_KEY + " must be a lowercase SQL identifier ([a-z_][a-z0-9_]*, at most 63), got '"
          + schema + "'");
    }
  }

  /**
   * Reads the settings.
   *
   * @param environment the process environment (the password and user variables)
   * @throws IllegalArgumentException naming the key when a value is missing or malformed, or the
   *     password file cannot be read
   */
  public static PostgresSettings from(ProviderConfig config, Map<String, String> environment) {
    String url = config.get(URL_KEY)
        .map(String::strip)
        .filter(s -> !s.isEmpty())
        .orElseThrow(() -> new IllegalArgumentException(
            "the postgres record stores need " + URL_KEY + " (jdbc:postgresql://HOST:PORT/DATABASE); set it with --set "
                + URL_KEY + "=..."));
    String schema = config.get(SCHEMA_KEY, DEFAULT_SCHEMA).strip();
    Optional<String> user = config.get(USER_KEY).map(String::strip).filter(s -> !s.isEmpty())
        .or(() -> Optional.ofNullable(environment.get(USER_ENV)).filter(s -> !s.isEmpty()));
    Optional<String> password = Optional.empty();
    if (config.get(PASSWORD_FILE_KEY).isPresent()) {
      Path file = Path.of(config.get(PASSWORD_FILE_KEY).get().strip());
      try {
        String first = Files.readString(file, StandardCharsets.UTF_8).lines().findFirst().orElse("");
        password = Optional.of(first);
      } catch (IOException | RuntimeException e) {
        throw new IllegalArgumentException(
            PASSWORD_FILE_KEY + " names " + file + ", which cannot be read (" + e.getClass().getSimpleName() + ")", e);
      }
    }
    if (password.isEmpty()) {
      password = Optional.ofNullable(environment.get(PASSWORD_ENV)).filter(s -> !s.isEmpty());
    }
    return new PostgresSettings(url, schema, user, password);
  }

  /** The URL without its parameters or credentials: how messages name the database. */
  public String redactedUrl() {
    return redact(url);
  }

  static String redact(String url) {
    String s = url;
    int q = s.indexOf('?');
    if (q >= 0) {
      s = s.substring(0, q);
    }
    int scheme = s.indexOf("//");
    int at = s.lastIndexOf('@');
    if (scheme >= 0 && at > scheme) {
      s = s.substring(0, scheme + 2) + s.substring(at + 1);
    }
    return s;
  }

  /**
   * {@code text} with the configured URL replaced by {@link #redactedUrl()} and every secret the
   * configuration holds (the password, and any password parameter or {@code user:password@} of
   * the URL, as written and decoded) replaced by {@code ***}: the driver names the whole URL in
   * some of its messages (one it cannot parse, say).
   */
  String scrub(String text) {
    String out = text.replace(url, redactedUrl());
    for (String secret : secrets()) {
      out = out.replace(secret, "***");
    }
    return out;
  }

  /** True when {@code text} holds a secret {@link #scrub} would hide. */
  boolean reveals(String text) {
    return secrets().stream().anyMatch(text::contains);
  }

  /** The secrets of the configuration, longest first. */
  List<String> secrets() {
    Set<String> out = new HashSet<>();
    password.ifPresent(out::add);
    int q = url.indexOf('?');
    if (q >= 0) {
      for (String param : url.substring(q + 1).split("&")) {
        int eq = param.indexOf('=');
        if (eq > 0 && param.substring(0, eq).toLowerCase(Locale.ROOT).contains("password")) {
          String value = param.substring(eq + 1);
          out.add(value);
          try {
            out.add(URLDecoder.decode(value, StandardCharsets.UTF_8));
          } catch (IllegalArgumentException e) {
            // Not decodable: the driver cannot have decoded it either.
          }
        }
      }
    }
    String authority = q >= 0 ? url.substring(0, q) : url;
    int scheme = authority.indexOf("//");
    int at = authority.lastIndexOf('@');
    if (scheme >= 0 && at > scheme) {
      String userInfo = authority.substring(scheme + 2, at);
      int colon = userInfo.indexOf(':');
      if (colon >= 0) {
        out.add(userInfo.substring(colon + 1));
      }
    }
    out.remove("");
    List<String> sorted = new ArrayList<>(out);
    sorted.sort(Comparator.comparingInt(String::length).reversed());
    return sorted;
  }

  /** The driver properties: credentials, and timeouts unless the URL sets its own. */
  Properties driverProperties() {
    Properties p = new Properties();
    user.ifPresent(u -> p.setProperty("user", u));
    password.ifPresent(pw -> p.setProperty("password", pw));
    if (!url.contains("connectTimeout=")) {
      p.setProperty("connectTimeout", "5");
    }
    if (!url.contains("socketTimeout=")) {
      p.setProperty("socketTimeout", "30");
    }
    if (!url.contains("reWriteBatchedInserts=")) {
      p.setProperty("reWriteBatchedInserts", "true");
    }
    p.setProperty("ApplicationName", "cotenant");
    return p;
  }

  /** How messages name the user (never the password). */
  String who() {
    return user.map(u -> " as " + u).orElse("");
  }

  @Override
  public String toString() {
    return "PostgresSettings[url=" + redactedUrl() + ", schema=" + schema + ", user=" + user.orElse("(driver default)")
        + ", password=" + (password.isPresent() ? "(set)" : "(none)") + "]";
  }
}
