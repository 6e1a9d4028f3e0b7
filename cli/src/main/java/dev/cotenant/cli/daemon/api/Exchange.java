package dev.cotenant.cli.daemon.api;

import dev.cotenant.api.LogSafe;
import java.io.IOException;
import java.io.InputStream;
import java.util.Map;
import java.util.Objects;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Request;

/** One request being served: its path parameters and, read on demand, its body. */
record Exchange(Request request, Map<String, String> params) {
  /** The path parameter {@code name}. */
  String param(String name) {
    return Objects.requireNonNull(params.get(name), name);
  }

  /** The body, allowing only {@code known} fields. */
  JsonBody body(String... known) throws ApiError {
    byte[] bytes;
    try (InputStream in = Content.Source.asInputStream(request)) {
      bytes = in.readNBytes(JsonBody.MAX_BYTES + 1);
    } catch (IOException e) {
      throw ApiError.badRequest("the request body could not be read: " + LogSafe.escape(String.valueOf(e.getMessage()), 200));
    }
    return JsonBody.parse(bytes, known);
  }
}
