package dev.cotenant.cli.daemon.api;

import java.util.Map;

/**
 * A request the API refuses: the HTTP status, the contract's stable code and one line for
 * people, answered as {@code {"code","message"}}. Thrown before anything is written.
 */
final class ApiError extends Exception {
  private static final long serialVersionUID = 1L;

  private final int status;
  private final String code;
  private final Map<String, String> headers;

  ApiError(int status, String code, String message) {
    this(status, code, message, Map.of());
  }

  ApiError(int status, String code, String message, Map<String, String> headers) {
    super(message, null, false, false);
    this.status = status;
    this.code = code;
    this.headers = Map.copyOf(headers);
  }

  int status() {
    return status;
  }

  String code() {
    return code;
  }

  /** Headers the answer must carry ({@code Allow} for 405, {@code WWW-Authenticate} for 401). */
  Map<String, String> headers() {
    return headers;
  }

  /** 400 {@code bad_request}: valid JSON, wrong fields or values. */
  static ApiError badRequest(String message) {
    return new ApiError(400, "bad_request", message);
  }

  /** 404 {@code unknown_server}. */
  static ApiError unknownServer(String name, String where) {
    return new ApiError(404, "unknown_server", "no server named '" + name + "' in " + where);
  }

  /** 404 {@code not_found}. */
  static ApiError notFound(String message) {
    return new ApiError(404, "not_found", message);
  }
}
