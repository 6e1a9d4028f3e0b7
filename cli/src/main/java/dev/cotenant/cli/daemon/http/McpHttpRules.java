package dev.cotenant.cli.daemon.http;

import dev.cotenant.api.LogSafe;
import dev.cotenant.spi.rpc.ErrorCode;
import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import java.util.Locale;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * What a request to the MCP endpoint must be before its message is read: an
 * {@code MCP-Protocol-Version} the endpoint speaks, an {@code Accept} that admits what it will be
 * answered with, and a body of at most {@value McpHttpEndpoint#MAX_BODY_BYTES} bytes. (Its
 * {@code Origin}, {@code Host} and token are the {@link HttpGuard}'s.) Stateless.
 */
final class McpHttpRules {
  /** How far over the limit a body is still read to its end before it is refused. */
  static final long DRAIN_BYTES = McpHttpEndpoint.MAX_BODY_BYTES;

  private McpHttpRules() {}

  /**
   * Whether the request's {@code MCP-Protocol-Version}, if any, is one of
   * {@link McpHttpEndpoint#SUPPORTED_VERSIONS}; false after answering 400.
   */
  static boolean versionSupported(Request request, Response response, Callback callback) {
    String version = request.getHeaders().get(McpHttpEndpoint.VERSION_HEADER);
    if (version == null || McpHttpEndpoint.SUPPORTED_VERSIONS.contains(version.trim())) {
      return true;
    }
    HttpReplies.reply(response, callback, 400, null, ErrorCode.INVALID_REQUEST, "Bad Request: unsupported "
        + McpHttpEndpoint.VERSION_HEADER + " " + LogSafe.escape(version, 40) + "; supported: "
        + McpHttpEndpoint.SUPPORTED_VERSIONS.stream().sorted().toList());
    return false;
  }

  /** Whether the request's {@code Accept} admits {@code type}; a request without one admits anything. */
  static boolean accepts(Request request, String type) {
    List<String> values = request.getHeaders().getValuesList(HttpHeader.ACCEPT);
    if (values.isEmpty()) {
      return true;
    }
    String wildcard = type.substring(0, type.indexOf('/')) + "/*";
    for (String value : values) {
      for (String range : value.split(",")) {
        String[] parts = range.split(";");
        String media = parts[0].trim().toLowerCase(Locale.ROOT);
        boolean refused = false;
        for (int i = 1; i < parts.length; i++) {
          String p = parts[i].trim().toLowerCase(Locale.ROOT).replace(" ", "");
          refused |= p.equals("q=0") || p.matches("q=0\\.0{0,3}");
        }
        if (!refused && (media.equals(type) || media.equals(wildcard) || media.equals("*/*"))) {
          return true;
        }
      }
    }
    return false;
  }

  /**
   * The body, or {@value McpHttpEndpoint#MAX_BODY_BYTES} + 1 bytes when it is larger. A body over
   * the limit by at most {@link #DRAIN_BYTES} is read to its end and discarded before the refusal:
   * a client still sending it would otherwise find the connection reset under it and lose the 413.
   */
  static byte[] readBody(Request request) throws IOException {
    int max = McpHttpEndpoint.MAX_BODY_BYTES;
    long length = request.getLength();
    if (length > max + DRAIN_BYTES) {
      return new byte[max + 1];
    }
    try (InputStream in = Content.Source.asInputStream(request)) {
      if (length > max) {
        drain(in, length);
        return new byte[max + 1];
      }
      byte[] body = in.readNBytes(max + 1);
      if (body.length > max) {
        drain(in, DRAIN_BYTES);
      }
      return body;
    }
  }

  /** Reads and discards at most {@code most} bytes, stopping at the end of the body. */
  private static void drain(InputStream in, long most) throws IOException {
    byte[] buffer = new byte[64 * 1024];
    long left = most;
    while (left > 0) {
      int n = in.read(buffer, 0, (int) Math.min(buffer.length, left));
      if (n < 0) {
        return;
      }
      left -= n;
    }
  }
}
