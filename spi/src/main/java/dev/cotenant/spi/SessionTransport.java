package dev.cotenant.spi;

import dev.cotenant.api.ServerDescription;

/**
 * Opens live conversations with servers: the one way Cotenant starts a server, for the
 * pre-flight, the statelessness probe and (later) the transport pool. A host that launches
 * servers in a sandbox, a container or on a remote runner supplies its own, and every consumer
 * follows. Thread-safe: sessions are opened concurrently.
 */
@FunctionalInterface
public interface SessionTransport {
  /**
   * Starts {@code server}; no message is sent yet. Never mutates the description.
   *
   * @param label a short label for thread names and messages
   * @param handler receives the server's own requests and notifications
   * @throws SessionException of kind {@code START} when it cannot be started
   */
  ServerSession open(ServerDescription server, String label, ServerMessageHandler handler)
      throws SessionException, InterruptedException;

  /**
   * True when this transport starts a server by running the description's {@code command} with
   * its {@code args}, {@code env} and {@code cwd} as a child process on this machine, so that a
   * description rewritten to run that command inside a local sandbox starts the same server there.
   * The probes and the pre-flight then contain it in Cotenant's sandbox (see
   * {@code docs/statelessness.md}). A transport that starts servers elsewhere (a container, a
   * remote runner) or in a sandbox of its own keeps the default, false: its servers are started as
   * it decides, and a probe calls no destructive tool on them.
   */
  default boolean runsCommandLocally() {
    return false;
  }
}
