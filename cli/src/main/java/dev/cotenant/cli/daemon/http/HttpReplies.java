package dev.cotenant.cli.daemon.http;

import dev.cotenant.spi.rpc.Envelope;
import dev.cotenant.spi.rpc.ErrorCode;
import dev.cotenant.spi.rpc.RequestId;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.jspecify.annotations.Nullable;

/** The endpoint's answers that are not a session's messages: refusals and {@code 202}. Stateless. */
final class HttpReplies {
  private HttpReplies() {}

  /** Answers {@code 202 Accepted} with no body: a notification or a response was taken. */
  static void accepted(Response response, Callback callback) {
    response.setStatus(202);
    callback.succeeded();
  }

  /**
   * Answers with {@code status} and a JSON-RPC error body; {@code id} {@code null} when the
   * request's id is unknown or the refusal concerns no request.
   */
  static void reply(Response response, Callback callback, int status, @Nullable RequestId id, ErrorCode code,
      String message) {
    response.setStatus(status);
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
    response.write(true, ByteBuffer.wrap(JsonRpc.encode(Envelope.error(id, code, message))
        .getBytes(StandardCharsets.UTF_8)), callback);
  }
}
