package dev.cotenant.cli.daemon.http;

import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;
import org.jspecify.annotations.Nullable;

/**
 * The checks every request to the daemon's HTTP side passes before anything else looks at it,
 * in this order:
 *
 * <ol>
 *   <li><b>Origin.</b> A request carrying an {@code Origin} header that is not a loopback origin
 *       ({@code http} or {@code https}, host {@code localhost}, {@code 127.0.0.1} or
 *       {@code [::1]}, any port) is refused with 403: a web page elsewhere must not reach the
 *       daemon through a browser, including by DNS rebinding (MCP Streamable HTTP, "Security
 *       Warning"). A request without {@code Origin} (a client that is not a browser) passes.
 *   <li><b>Host.</b> A request whose {@code Host} names anything but a loopback host is refused
 *       with 403: a rebound DNS name still arrives with its own name in {@code Host}.
 *   <li><b>Token.</b> A request without {@code Authorization: Bearer <token>}, or with another
 *       token, is refused with 401 and {@code WWW-Authenticate: Bearer}. The token is compared in
 *       constant time.
 * </ol>
 *
 * <p>Immutable and thread-safe.
 */
public final class HttpGuard {
  private static final Set<String> LOOPBACK_HOSTS = Set.of("localhost", "127.0.0.1", "[::1]");

  private final byte[] tokenDigest;

  /**
   * A guard admitting requests that carry {@code token}.
   *
   * @throws IllegalArgumentException when the token is empty or has characters a header cannot carry
   */
  public HttpGuard(String token) {
    Objects.requireNonNull(token, "token");
    if (token.isEmpty() || !token.chars().allMatch(c -> c > 0x20 && c < 0x7f)) {
      throw new IllegalArgumentException("the bearer token must be non-empty visible ASCII without spaces");
    }
    this.tokenDigest = digest(token);
  }

  /** What {@link #check} decided. */
  public sealed interface Outcome permits Passed, Refused {}

  /** The request may go on. */
  public record Passed() implements Outcome {}

  /** Which check refused a request. */
  public enum Check {
    /** A foreign {@code Origin} (403). */
    ORIGIN,
    /** A {@code Host} that is not a loopback host (403). */
    HOST,
    /** A missing or wrong bearer token (401). */
    TOKEN
  }

  /**
   * The request is refused.
   *
   * @param check the check that refused it
   * @param status the HTTP status to answer (401 or 403)
   * @param message one line saying why, safe to send back
   * @param headers headers the refusal must carry ({@code WWW-Authenticate} for 401)
   */
  public record Refused(Check check, int status, String message, Map<String, String> headers) implements Outcome {
    /** Copies the headers. */
    public Refused {
      Objects.requireNonNull(check, "check");
      Objects.requireNonNull(message, "message");
      headers = Map.copyOf(headers);
    }
  }

  /** Checks one request: origin, then host, then token. */
  public Outcome check(Request request) {
    String origin = request.getHeaders().get(HttpHeader.ORIGIN);
    if (origin != null && !isLoopbackOrigin(origin)) {
      return new Refused(Check.ORIGIN, 403, "forbidden: the origin is not a loopback origin", Map.of());
    }
    String host = request.getHeaders().get(HttpHeader.HOST);
    if (host == null) {
      host = request.getHttpURI().getAuthority();
    }
    if (host == null || !isLoopbackHost(host)) {
      return new Refused(Check.HOST, 403, "forbidden: the Host header does not name a loopback host", Map.of());
    }
    if (!tokenMatches(request.getHeaders().get(HttpHeader.AUTHORIZATION))) {
      return new Refused(Check.TOKEN, 401, "unauthorized: a bearer token is required", Map.of("WWW-Authenticate", "Bearer"));
    }
    return new Passed();
  }

  /**
   * Whether {@code origin} (an {@code Origin} header's value) is {@code http} or {@code https} on
   * a loopback host, any port, with nothing else.
   */
  public static boolean isLoopbackOrigin(String origin) {
    URI uri;
    try {
      uri = new URI(origin.trim());
    } catch (URISyntaxException e) {
      return false;
    }
    String scheme = uri.getScheme();
    if (scheme == null || !(scheme.equalsIgnoreCase("http") || scheme.equalsIgnoreCase("https"))) {
      return false;
    }
    if (uri.getRawUserInfo() != null || uri.getRawQuery() != null || uri.getRawFragment() != null
        || !(uri.getRawPath() == null || uri.getRawPath().isEmpty() || uri.getRawPath().equals("/"))) {
      return false;
    }
    String host = uri.getHost();
    return host != null && LOOPBACK_HOSTS.contains(host.toLowerCase(Locale.ROOT));
  }

  /** Whether {@code hostHeader} ({@code host[:port]}) names a loopback host. */
  public static boolean isLoopbackHost(String hostHeader) {
    String h = hostHeader.trim().toLowerCase(Locale.ROOT);
    String host;
    if (h.startsWith("[")) {
      int end = h.indexOf(']');
      if (end < 0) {
        return false;
      }
      host = h.substring(0, end + 1);
      String rest = h.substring(end + 1);
      if (!rest.isEmpty() && !isPort(rest)) {
        return false;
      }
    } else {
      int colon = h.indexOf(':');
      host = colon < 0 ? h : h.substring(0, colon);
      if (colon >= 0 && !isPort(h.substring(colon))) {
        return false;
      }
    }
    return LOOPBACK_HOSTS.contains(host);
  }

  /** {@code ":<digits>"}. */
  private static boolean isPort(String colonPort) {
    return colonPort.length() > 1 && colonPort.length() <= 6 && colonPort.charAt(0) == ':'
        && colonPort.substring(1).chars().allMatch(c -> c >= '0' && c <= '9');
  }

  private boolean tokenMatches(@Nullable String authorization) {
    if (authorization == null) {
      return false;
    }
    String a = authorization.trim();
    int space = a.indexOf(' ');
    if (space < 0 || !a.substring(0, space).equalsIgnoreCase("Bearer")) {
      return false;
    }
    // Digests of equal length: the comparison takes the same time whatever the presented token.
    return MessageDigest.isEqual(tokenDigest, digest(a.substring(space + 1).trim()));
  }

  private static byte[] digest(String token) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }

  @Override
  public String toString() {
    return "HttpGuard[loopback origins and hosts, bearer token]";
  }
}
