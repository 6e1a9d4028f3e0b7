package dev.cotenant.providers.session;

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
 * <p>Bounds, all from {@link SessionSettings}: the longest message, the JSON nesting and the
 * non-JSON lines read from one process, and the totals (messages, bytes) when they are set; the
 * teardown waits (stdin close, SIGTERM, SIGKILL); and in {@link HandshakeEra#AUTO} how long a
 * {@code server/discover} is awaited before falling back to {@code initialize}. The transport's
 * own settings (read from {@code cotenant.session.*}) suit a backend that lives for days; a caller
 * that wants its sessions tighter opens them within other settings ({@link #openWithin}), as the
 * pre-flight does. Everything else a caller bounds itself (the handshake's timeout is an argument,
 * a request's wait is the caller's).
 *
 * <p>Refuses, with a {@link SessionException} of kind {@code START}, a server that is not stdio,
 * is disabled, or has no command. Never mutates the description. Thread-safe: sessions may be
 * opened concurrently; construction does no IO.
 */
public final class StdioSessionTransport implements SessionTransport {
  /**
   * The settings {@link #openWithin} put in force for the sessions this thread opens meanwhile,
   * and a thread it makes meanwhile (a sandbox spawns each server from a thread of its own).
   */
  private static final ThreadLocal<SessionSettings> WITHIN = new InheritableThreadLocal<>();

  private final SessionSettings settings;
  private final JsonMapper mapper;

  /** A transport with the given bounds. */
  public StdioSessionTransport(SessionSettings settings) {
    this.settings = Objects.requireNonNull(settings, "settings");
    this.mapper = ServerProcess.mapper(settings);
  }

  /** The bounds in force for sessions not opened {@link #openWithin other settings}. */
  public SessionSettings settings() {
    return settings;
  }

  /** Opens a session; see {@link StdioSessionTransport#openWithin}. */
  @FunctionalInterface
  public interface Opening {
    /** Opens the session, typically through {@link SessionTransport#open}. */
    ServerSession open() throws SessionException, InterruptedException;
  }

  /**
   * Runs {@code opening} on this thread with every session a {@code StdioSessionTransport} opens
   * meanwhile bounded by {@code bounds} instead of the transport's own settings: directly, or
   * through a transport that wraps this one and opens on the caller's thread or on a thread the
   * caller's thread makes meanwhile (a sandbox). A
   * session keeps the bounds it was opened with for its whole life. Another session transport
   * ignores them.
   */
  public static ServerSession openWithin(SessionSettings bounds, Opening opening)
      throws SessionException, InterruptedException {
    Objects.requireNonNull(bounds, "bounds");
    SessionSettings outer = WITHIN.get();
    WITHIN.set(bounds);
    try {
      return opening.open();
    } finally {
      if (outer == null) {
        WITHIN.remove();
      } else {
        WITHIN.set(outer);
      }
    }
  }

  /** True: the command runs as a child process of this JVM, so the probes' sandbox can contain it. */
  @Override
  public boolean runsCommandLocally() {
    return true;
  }

  /**
   * Spawns {@code server}; no message is sent yet.
   *
   * @param label names the session's threads ({@code cotenant-session-stdout-<label>}, ...)
   * @throws SessionException of kind {@code START}: {@code "command not found: <command>"},
   *     {@code "not executable: <file>"}, {@code "working directory not found: <dir>"},
   *     {@code "not a stdio server"}, ... (see {@link StartFailure})
   */
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
    SessionSettings within = WITHIN.get();
    if (within == null || within.equals(settings)) {
      return StdioSession.open(server, settings, mapper, label, handler);
    }
    return StdioSession.open(server, within, ServerProcess.mapper(within), label, handler);
  }

  @Override
  public String toString() {
    return "StdioSessionTransport[" + settings + "]";
  }
}
