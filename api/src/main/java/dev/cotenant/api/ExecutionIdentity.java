package dev.cotenant.api;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Collection;
import java.util.HexFormat;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;

/**
 * A launch identity (docs/architecture.md): what a pool key holds and what both records are checked
 * against. Computing it is pure; the caller supplies the binary fingerprint, which needs IO.
 *
 * @param serverName the configured name
 * @param commandArgsHash sha256 (hex) of the canonical command, args and cwd
 * @param envHash sha256 (hex) of the effective env sorted by key, minus secret keys, plus keys
 *     named in the pool-identity env list
 * @param binaryVersion a fingerprint of the resolved executable (path, size, mtime), or
 *     {@link #UNKNOWN_BINARY}
 * @param schema the pre-flight schema the measurement was taken under
 */
public record ExecutionIdentity(
    String serverName, String commandArgsHash, String envHash, String binaryVersion, String schema) {

  /**
   * The pre-flight schema: names the rules the handshake comparator applies. Bumped whenever
   * what the pre-flight compares changes, so rows measured under older rules are dropped.
   */
  public static final String PREFLIGHT_SCHEMA = "preflight-1";

  /** The binary fingerprint when the executable cannot be resolved or read. */
  public static final String UNKNOWN_BINARY = "unknown";

  private static final char NUL = '\0';

  /**
   * Escapes a NUL or itself inside a field, so a field may hold any character and the joined key
   * still splits into the fields it was made of. A key whose fields hold neither is unchanged.
   */
  private static final char ESCAPE = '\u0001';

  public ExecutionIdentity {
    Objects.requireNonNull(serverName, "serverName");
    Objects.requireNonNull(commandArgsHash, "commandArgsHash");
    Objects.requireNonNull(envHash, "envHash");
    Objects.requireNonNull(binaryVersion, "binaryVersion");
    Objects.requireNonNull(schema, "schema");
  }

  /**
   * Computes the identity of a server.
   *
   * @param server the description
   * @param effectiveEnv the env the server is launched with
   * @param secrets which env names are secrets
   * @param poolIdentityEnv names that count in the env hash even when they look secret
   * @param binaryVersion the executable's fingerprint, or {@link #UNKNOWN_BINARY}
   * @param schema the pre-flight schema constant
   */
  public static ExecutionIdentity of(
      ServerDescription server,
      Map<String, String> effectiveEnv,
      SecretPatterns secrets,
      Collection<String> poolIdentityEnv,
      String binaryVersion,
      String schema) {
    return new ExecutionIdentity(
        server.name(),
        commandArgsHash(server),
        envHash(effectiveEnv, secrets, Set.copyOf(poolIdentityEnv)),
        binaryVersion,
        schema);
  }

  /** sha256 of the command, each arg and the cwd, each length-prefixed so no two splits collide. */
  public static String commandArgsHash(ServerDescription server) {
    StringBuilder sb = new StringBuilder();
    appendField(sb, server.transport().wireName());
    appendField(sb, server.command());
    sb.append(server.args().size()).append(':');
    for (String a : server.args()) {
      appendField(sb, a);
    }
    appendField(sb, server.cwd().orElse(""));
    appendField(sb, server.url().orElse(""));
    return sha256(sb.toString());
  }

  /** sha256 of the env sorted by key, without secret keys unless named in {@code poolIdentityEnv}. */
  public static String envHash(Map<String, String> env, SecretPatterns secrets, Set<String> poolIdentityEnv) {
    StringBuilder sb = new StringBuilder();
    for (Map.Entry<String, String> e : new TreeMap<>(env).entrySet()) {
      String key = e.getKey();
      if (secrets.isSecret(key) && !poolIdentityEnv.contains(key)) {
        continue;
      }
      appendField(sb, key);
      appendField(sb, e.getValue());
    }
    return sha256(sb.toString());
  }

  /**
   * The pre-flight cache key: every field NUL-joined, {@code schema} included. A NUL or U+0001
   * inside a field is escaped (U+0001 followed by {@code 0} or {@code 1}), so the key splits back
   * into the same fields whatever they hold.
   */
  public String cacheKey() {
    return join(serverName, commandArgsHash, envHash, binaryVersion, schema);
  }

  /**
   * The hazard ledger's identity: sha256 of the fields without {@code schema}, because a hazard
   * is an observation of real traffic and stays true however the prober evolves.
   */
  public String ledgerKey() {
    return sha256(join(serverName, commandArgsHash, envHash, binaryVersion));
  }

  private static String join(String... fields) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < fields.length; i++) {
      if (i > 0) {
        sb.append(NUL);
      }
      for (int j = 0; j < fields[i].length(); j++) {
        char c = fields[i].charAt(j);
        if (c == NUL) {
          sb.append(ESCAPE).append('0');
        } else if (c == ESCAPE) {
          sb.append(ESCAPE).append('1');
        } else {
          sb.append(c);
        }
      }
    }
    return sb.toString();
  }

  private static String unescape(String field) {
    if (field.indexOf(ESCAPE) < 0) {
      return field;
    }
    StringBuilder sb = new StringBuilder(field.length());
    for (int j = 0; j < field.length(); j++) {
      char c = field.charAt(j);
      if (c != ESCAPE) {
        sb.append(c);
        continue;
      }
      int at = j++;
      char next = j < field.length() ? field.charAt(j) : ' ';
      if (next == '0') {
        sb.append(NUL);
      } else if (next == '1') {
        sb.append(ESCAPE);
      } else {
        throw new IllegalArgumentException("an identity key field has a dangling escape at " + at);
      }
    }
    return sb.toString();
  }

  /**
   * Parses a {@link #cacheKey()}.
   *
   * @throws IllegalArgumentException when the key does not have five NUL-separated fields, or a
   *     field has an escape not followed by {@code 0} or {@code 1}
   */
  public static ExecutionIdentity parseCacheKey(String key) {
    String[] f = key.split(String.valueOf(NUL), -1);
    if (f.length != 5) {
      throw new IllegalArgumentException(
          "an identity key has 5 NUL-separated fields; this one has " + f.length);
    }
    return new ExecutionIdentity(unescape(f[0]), unescape(f[1]), unescape(f[2]), unescape(f[3]), unescape(f[4]));
  }

  private static void appendField(StringBuilder sb, String s) {
    sb.append(s.length()).append(':').append(s);
  }

  /** Lower-case hex sha256 of the UTF-8 bytes of {@code s}. */
  public static String sha256(String s) {
    try {
      MessageDigest md = MessageDigest.getInstance("SHA-256");
      return HexFormat.of().formatHex(md.digest(s.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java platform provides SHA-256", e);
    }
  }
}
