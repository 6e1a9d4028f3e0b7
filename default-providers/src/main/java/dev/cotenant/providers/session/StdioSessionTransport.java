package dev.cotenant.providers.preflight;

import dev.cotenant.api.ServerDescription;
import dev.cotenant.api.Transport;
import dev.cotenant.spi.HandshakeEra;
import dev.cotenant.spi.ServerMessageHandler;
import dev.cotenant.spi.ServerSession;
import dev.cotenant.spi.SessionException;
import dev.cotenant.spi.SessionTransport;
import java.util.Objects;
import tools.jackson.databind.json.JsonMapper;

/**
 * The default {@link SessionTransport}: starts a stdio server as a local process (the
 * description's {@code env} on top of this process's environment, in its {@code cwd}) and speaks
 * newline-delimited JSON-RPC to it, with a raw JSON client that keeps every key the server sends.
 *
 * <p>Every process it starts carries a fresh {@value SpawnCookie#NAME} in its environment, inherited
 * by everything the server starts; a session's teardown ends the process, its descendants and
 * every process still carrying that cookie (double-forked, {@code setsid}, started after the last
 * look at the tree), scanning {@code /proc} a bounded number of times (Linux). The cookie is not
 * part of the description, so it never changes a launch identity.
 *
 * <p>Bounds, all from {@link PreflightSettings}: the longest stdout line, the stdout bytes, the
 * JSON nesting, the stdout lines and the non-JSON lines read from one process; the teardown waits
 * (stdin close, SIGTERM, SIGKILL); and in {@link HandshakeEra#AUTO} how long a
 * {@code server/discover} is awaited before falling back to {@code initialize}. Everything else a
 * caller bounds itself (the handshake's timeout is an argument, a request's wait is the caller's).
 *
 * <p>Refuses, with a {@link SessionException} of kind {@code START}, a server that is not stdio,
 * is disabled, or has no command. Never mutates the description. Thread-safe: sessions may be
 * opened concurrently; construction does no IO.
 */
public final class StdioSessionTransport implements SessionTransport {
  private final PreflightSettings settings;
  private final JsonMapper mapper;

  /** A transport with the given bounds. */
  public StdioSessionTransport(PreflightSettings settings) {
    this.settings = Objects.requireNonNull(settings, "settings");
    this.mapper = ServerProcess.mapper(settings);
  }

  /** The bounds in force. */
  public PreflightSettings settings() {
    return settings;
  }

  /**
   * Spawns {@code server}; no message is sent yet.
   *
   * @param label names the session's threads ({@code cotenant-session-stdout-<label>}, ...)
   * @throws SessionException of kind {@code START}: {@code "command not found: <command>"},
   *     {@code "not executable: <file>"}, {@code "working directory not found: <dir>"},
   *     {@code "not a stdio server"}, ... (see {@link StartFailure})
   */
  /** True: the command runs as a child process of this JVM, so the probes' sandbox can contain it. */
  @Override
  public boolean runsCommandLocally() {
    return true;
  }

  @Override
  public ServerSession open(ServerDescription server, String label, ServerMessageHandler handler)
      throws SessionException, InterruptedException {
    Objects.requireNonNull(server, "server");
    Objects.requireNonNull(label, "label");
    Objects.requireNonNull(handler, "handler");
    if (server.transport() != Transport.STDIO) {
      throw new SessionException(SessionException.Kind.START, "not a stdio server");
    }
    if (!server.enabled()) {
      throw new SessionException(SessionException.Kind.START, "disabled");
    }
    if (server.command().isBlank()) {
      throw new SessionException(SessionException.Kind.START, "no command configured");
    }
    if (Thread.interrupted()) {
      throw new InterruptedException();
    }
    return StdioSession.open(server, settings, mapper, label, handler);
  }

  @Override
  public String toString() {
    return "StdioSessionTransport[" + settings + "]";
  }
}
