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
}
