package dev.cotenant.testkit.reference;

import dev.cotenant.api.ServerDescription;
import dev.cotenant.api.Transport;
import dev.cotenant.spi.ServerMessageHandler;
import dev.cotenant.spi.ServerSession;
import dev.cotenant.spi.SessionException;
import dev.cotenant.spi.SessionTransport;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A small, honest stdio {@link SessionTransport}: the yardstick the kit's own tests hold
 * {@code SessionTransportContract} and {@code PreflightTransportContract} against (the broken
 * transports of the bite tests are this one with one defect each). Not a production transport:
 * no bounds on line length or message count, and {@code AUTO} does not respawn a server that died
 * on {@code server/discover}.
 */
public class ReferenceStdioTransport implements SessionTransport {
  private final Duration grace;

  /** A transport whose teardown waits {@code grace} between each escalation step. */
  public ReferenceStdioTransport(Duration grace) {
    this.grace = grace;
  }

  /** A transport waiting one second between teardown steps. */
  public ReferenceStdioTransport() {
    this(Duration.ofSeconds(1));
  }

  @Override
  public ServerSession open(ServerDescription server, String label, ServerMessageHandler handler) throws SessionException {
    if (server.transport() != Transport.STDIO) {
      throw new SessionException(SessionException.Kind.START, "not a stdio server");
    }
    List<String> command = new ArrayList<>();
    command.add(server.command());
    command.addAll(server.args());
    ProcessBuilder pb = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD);
    server.cwd().ifPresent(dir -> pb.directory(new java.io.File(dir)));
    pb.environment().putAll(server.env());
    Process process;
    try {
      process = pb.start();
    } catch (IOException | RuntimeException e) {
      throw new SessionException(SessionException.Kind.START, "cannot start " + server.command() + ": " + e.getMessage());
    }
    return newSession(process, label, handler);
  }

  /** The session over a started process; the bite tests override it to break one rule. */
  protected ReferenceSession newSession(Process process, String label, ServerMessageHandler handler) {
    return new ReferenceSession(process, label, handler, grace);
  }
}
