package dev.cotenant.gateway.pool;

import dev.cotenant.api.ServerDescription;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * What a pool entry is keyed by: the server's configured name and a fingerprint of its launch
 * configuration. Two acquires share a backend exactly when their keys are equal.
 *
 * <p>The fingerprint is the first 16 hex digits (lower case) of the SHA-256 of the UTF-8 bytes of
 * the server's <em>canonical launch configuration</em>: a JSON object written without blanks,
 * whose keys come in this fixed order:
 *
 * <ol>
 *   <li>{@code transport}: the transport's wire name ({@code stdio}, {@code http}, {@code sse});
 *   <li>{@code command}: the command ({@code ""} for HTTP transports);
 *   <li>{@code args}: the arguments, in their order;
 *   <li>{@code cwd}: the working directory, or {@code null};
 *   <li>{@code env}: the env entries as {@code [[name, value], ...]} sorted by name;
 *   <li>{@code url}: the endpoint, or {@code null};
 *   <li>{@code headers}: always {@code []} for now. Reserved for HTTP headers, which will be
 *       written as {@code [[name, value], ...]} sorted by name once a server description carries
 *       them;
 *   <li>{@code oauth}: always {@code null} for now. Once a server description carries OAuth
 *       configuration it is canonicalised as the transport-pool design note does: a missing,
 *       empty or disabled configuration is {@code null}; an enabled one is
 *       {@code {"enabled":true,"clientId":…,"scopes":[sorted]|null,"authorizationUrl":…,"tokenUrl":…}}
 *       with every absent field {@code null}, so equivalent configurations share a fingerprint.
 * </ol>
 *
 * <p>{@code enabled} is left out (it decides whether a server is spawned, not what is spawned),
 * and so is everything per session (tool filters, trust, descriptions): sessions that differ only
 * there share one backend. The server's name is not in the fingerprint but is part of the key, so
 * two names with one configuration never share.
 *
 * <p>A {@linkplain #dedicated dedicated} key's canonical object has one more key after
 * {@code oauth}: {@code "session"} with the session id, so each session gets its own entry and
 * no dedicated key equals a shared one. A shared key for clients of one shape
 * ({@link #shared(ServerDescription, String)}) has instead {@code "clients"} with the shape's
 * canonical text (the protocol version the clients asked for and the capabilities they
 * declared), so that clients which negotiate differently never share a backend.
 *
 * @param serverName the server's configured name
 * @param fingerprint 16 lower-case hex digits
 */
public record PoolKey(String serverName, String fingerprint) {
  private static final Pattern FINGERPRINT = Pattern.compile("[0-9a-f]{16}");
  private static final JsonMapper MAPPER = JsonMapper.builder().build();

  /**
   * Checks the parts.
   *
   * @throws IllegalArgumentException when {@code fingerprint} is not 16 lower-case hex digits
   */
  public PoolKey {
    Objects.requireNonNull(serverName, "serverName");
    Objects.requireNonNull(fingerprint, "fingerprint");
    if (!FINGERPRINT.matcher(fingerprint).matches()) {
      throw new IllegalArgumentException("a pool key's fingerprint is 16 lower-case hex digits, got '" + fingerprint + "'");
    }
  }

  /** The key of the entry a session {@code sessionId} of {@code server} placed so acquires. */
  public static PoolKey of(ServerDescription server, String sessionId, Placement placement) {
    return of(server, sessionId, placement, "");
  }

  /**
   * The key of the entry a session {@code sessionId} of {@code server}, whose clients are of
   * shape {@code clients}, placed so acquires: {@link #shared(ServerDescription, String)} or
   * {@link #dedicated}.
   */
  public static PoolKey of(ServerDescription server, String sessionId, Placement placement, String clients) {
    return placement == Placement.SHARED ? shared(server, clients) : dedicated(server, sessionId);
  }

  /**
   * The key of {@code server}'s shared entry for clients of one shape: {@code clients} is the
   * shape's canonical text; empty, the key is {@link #of(ServerDescription)}.
   */
  public static PoolKey shared(ServerDescription server, String clients) {
    Objects.requireNonNull(clients, "clients");
    if (clients.isEmpty()) {
      return of(server);
    }
    ObjectNode canonical = canonical(server);
    canonical.put("clients", clients);
    return new PoolKey(server.name(), fingerprintOf(canonical));
  }

  /** The key of {@code server}'s shared entry ({@link Placement#SHARED}). */
  public static PoolKey of(ServerDescription server) {
    return new PoolKey(server.name(), fingerprintOf(canonical(server)));
  }

  /**
   * The key of {@code sessionId}'s own entry of {@code server} ({@link Placement#DEDICATED}): the
   * fingerprint also covers the session id, so it never equals another session's key nor the
   * shared key.
   */
  public static PoolKey dedicated(ServerDescription server, String sessionId) {
    Objects.requireNonNull(sessionId, "sessionId");
    ObjectNode canonical = canonical(server);
    canonical.put("session", sessionId);
    return new PoolKey(server.name(), fingerprintOf(canonical));
  }

  /** {@code serverName::fingerprint}, the id under which the entry is reported and restarted. */
  public String connectionId() {
    return serverName + "::" + fingerprint;
  }

  /** The canonical launch configuration of {@code server}, as the JSON text that is hashed. */
  static String canonicalJson(ServerDescription server) {
    return MAPPER.writeValueAsString(canonical(server));
  }

  private static ObjectNode canonical(ServerDescription server) {
    ObjectNode o = MAPPER.createObjectNode();
    o.put("transport", server.transport().wireName());
    o.put("command", server.command());
    ArrayNode args = o.putArray("args");
    server.args().forEach(args::add);
    if (server.cwd().isPresent()) {
      o.put("cwd", server.cwd().get());
    } else {
      o.putNull("cwd");
    }
    ArrayNode env = o.putArray("env");
    // ServerDescription keeps env sorted by name; sorting is repeated here so the rule does not
    // rest on that.
    server.env().entrySet().stream()
        .sorted(Map.Entry.comparingByKey())
        .forEach(e -> env.addArray().add(e.getKey()).add(e.getValue()));
    if (server.url().isPresent()) {
      o.put("url", server.url().get());
    } else {
      o.putNull("url");
    }
    o.putArray("headers");
    o.putNull("oauth");
    return o;
  }

  private static String fingerprintOf(ObjectNode canonical) {
    byte[] json = MAPPER.writeValueAsString(canonical).getBytes(StandardCharsets.UTF_8);
    try {
      byte[] digest = MessageDigest.getInstance("SHA-256").digest(json);
      return HexFormat.of().formatHex(digest, 0, 8);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java platform provides SHA-256", e);
    }
  }

  /** {@link #connectionId()}. */
  @Override
  public String toString() {
    return connectionId();
  }
}
