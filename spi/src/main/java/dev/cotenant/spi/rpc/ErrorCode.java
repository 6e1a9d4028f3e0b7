package dev.cotenant.spi.rpc;

import java.util.Optional;

/**
 * Every JSON-RPC error code Cotenant writes, each number with one meaning. The first five are
 * JSON-RPC's own; {@link #SESSION_NOT_FOUND} and {@link #UNSUPPORTED_PROTOCOL_VERSION} are the
 * codes MCP peers use for the same thing; Cotenant's own ({@code -32070} to {@code -32073}) sit
 * in the range JSON-RPC leaves to implementations ({@code -32000} to {@code -32099}), away from
 * every code MCP or one of its SDKs gives a meaning ({@code -32000} to {@code -32005}, {@code
 * -32042}), so a client never reads a daemon's error as a server's (docs/daemon.md, "Error
 * codes"). A peer's own codes pass through unchanged; this table names only what Cotenant itself
 * answers.
 */
public enum ErrorCode {
  /** The text is not JSON. */
  PARSE_ERROR(-32700, "Parse error"),
  /** The JSON is not a valid JSON-RPC message (no method, a bad id, a batch where none is taken). */
  INVALID_REQUEST(-32600, "Invalid Request"),
  /** No such method. */
  METHOD_NOT_FOUND(-32601, "Method not found"),
  /** The method's params are wrong. */
  INVALID_PARAMS(-32602, "Invalid params"),
  /** Cotenant failed while answering (a handler threw, a queue is full). */
  INTERNAL_ERROR(-32603, "Internal error"),
  /**
   * The HTTP session the request names does not exist or has ended: the code the MCP TypeScript
   * SDK's Streamable HTTP server answers for it (with status 404), which its clients know.
   */
  SESSION_NOT_FOUND(-32001, "Session not found"),
  /** The server's concurrency limit is reached and its queue is full or timed out. */
  BUSY(-32070, "Busy"),
  /** No backend could be started or reached for the session. */
  NO_BACKEND(-32071, "No backend"),
  /** The daemon refuses the request (a configuration it will not run, a forbidden method). */
  REFUSED(-32072, "Refused"),
  /**
   * The call was in flight when its backend or daemon ended; it may or may not have run, and is
   * not replayed.
   */
  CALL_INTERRUPTED(-32073, "Call interrupted"),
  /** The server speaks only a protocol version the request did not ask for (MCP's code for it). */
  UNSUPPORTED_PROTOCOL_VERSION(-32022, "Unsupported protocol version");

  private final int code;
  private final String title;

  ErrorCode(int code, String title) {
    this.code = code;
    this.title = title;
  }

  /** The number on the wire. */
  public int code() {
    return code;
  }

  /** The short standard text, for an error that has nothing more precise to say. */
  public String title() {
    return title;
  }

  /** The entry with this number, if Cotenant defines it. */
  public static Optional<ErrorCode> of(int code) {
    for (ErrorCode c : values()) {
      if (c.code == code) {
        return Optional.of(c);
      }
    }
    return Optional.empty();
  }
}
