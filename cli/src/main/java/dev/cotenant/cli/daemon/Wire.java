package dev.cotenant.cli.daemon;

import dev.cotenant.api.Json;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonGenerator;
import tools.jackson.databind.SerializationContext;
import tools.jackson.databind.ValueSerializer;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.module.SimpleModule;

/**
 * The daemon's socket protocol (its shim side is {@link ShimJson}): newline-delimited JSON. A shim opens with one hello line,
 * {@code {"cotenant":"connect","version":1,"server":NAME,"configs":[ABSOLUTE PATH...],"pid":PID}}
 * ({@code pid}, the shim's process id, is optional: the daemon counts the shim's memory in what
 * sharing costs, and Java reads a socket peer's user from {@code SO_PEERCRED}, not its pid); the
 * daemon answers {@code {"cotenant":"connected","session":ID,"daemon_pid":PID}} or
 * {@code {"cotenant":"refused","error":MESSAGE}} (and closes). After that, every line either way
 * is one JSON-RPC message of the session, exactly as MCP's stdio transport frames them, but one:
 * a daemon that is stopped tells each session {@code {"cotenant":"stopping","reason":TEXT}}
 * before it closes it (a line with a top-level {@code cotenant} member is never a JSON-RPC
 * message), so that its shim ends instead of starting a new daemon; and once the session is
 * placed, before the answer to its {@code initialize}, {@code {"cotenant":"placed","placement":
 * "shared"|"dedicated"}}, so that the shim knows whether its session could resume, and again,
 * before the message that moved it, each time the session lands on a backend placed otherwise
 * (a deferred session's start, a move after a hazard or a drain): the last notice is always where
 * the session is.
 *
 * <p><b>Resuming.</b> A shim whose daemon died (killed, crashed: gone without that notice) says
 * hello to a new daemon with one more member, {@code "resume": INITIALIZE}, the client's
 * {@code initialize} request as the client sent it. The daemon resumes the session when the
 * server's sessions are placed on a shared backend now (what a stateless server's session held,
 * a new backend holds too): it answers {@code connected} with {@code "resumed":true}, connects
 * the session with that {@code initialize} and answers it to nobody (the client has its answer),
 * and relays from there. A server whose sessions are dedicated is refused: its session's state
 * ended with the daemon's backend.
 *
 * <p><b>Ownership.</b> A message read from the socket ({@link #object}) is a fresh tree of plain
 * JSON values that nobody else holds: the daemon owns it and hands it on without copying it (the
 * session's multiplexer may pass its params to the backend as they are). Nothing changes a
 * message once it is handed on. A message written ({@link #line}) is written as it is, JSON
 * {@code null} as Java {@code null} or {@link Json#NULL}.
 */
public final class Wire {
  /** The protocol version a shim speaks. */
  public static final int VERSION = 1;

  static final JsonMapper MAPPER = JsonMapper.builder().addModule(jsonNull()).build();

  private Wire() {}

  static byte[] connected(String session) {
    return line("cotenant", "connected", "session", session, "daemon_pid", ProcessHandle.current().pid());
  }

  static byte[] connected(String session, boolean resumed) {
    return line("cotenant", "connected", "session", session, "daemon_pid", ProcessHandle.current().pid(),
        "resumed", resumed);
  }

  static byte[] placed(String placement) {
    return line("cotenant", "placed", "placement", placement);
  }

  static byte[] stopping(String reason) {
    return line("cotenant", "stopping", "reason", reason);
  }

  static byte[] refused(String error) {
    return line("cotenant", "refused", "error", error);
  }

  /** One of the daemon's own lines: a JSON object of these members, in this order. */
  private static byte[] line(Object... keysAndValues) {
    Map<String, Object> m = new LinkedHashMap<>();
    for (int i = 0; i < keysAndValues.length; i += 2) {
      m.put((String) keysAndValues[i], keysAndValues[i + 1]);
    }
    return MAPPER.writeValueAsBytes(m);
  }

  /** Writes {@link Json#NULL} as JSON {@code null}, so that a message is written without a copy. */
  @SuppressWarnings("unchecked")
  private static SimpleModule jsonNull() {
    return new SimpleModule("cotenant-json-null").addSerializer((Class<Object>) Json.NULL.getClass(),
        new ValueSerializer<Object>() {
          @Override
          public void serialize(Object value, JsonGenerator g, SerializationContext context) {
            g.writeNull();
          }
        });
  }

  /**
   * One JSON object, as plain JSON values (Java {@code null} for JSON {@code null}), owned by the
   * caller: a new tree, not copied again.
   *
   * @throws IOException when the line is not a JSON object
   */
  @SuppressWarnings("unchecked")
  public static Map<String, Object> object(byte[] line) throws IOException {
    Object v;
    try {
      v = MAPPER.readValue(line, Object.class);
    } catch (JacksonException e) {
      throw new IOException("not JSON: " + e.getOriginalMessage());
    }
    if (!(v instanceof Map)) {
      throw new IOException("not a JSON object");
    }
    return (Map<String, Object>) v;
  }

  /** {@code message} as one line of JSON, written as it is. */
  public static byte[] line(Map<String, Object> message) {
    return MAPPER.writeValueAsBytes(message);
  }
}
