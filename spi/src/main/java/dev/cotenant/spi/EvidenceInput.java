package dev.cotenant.spi;

import dev.cotenant.api.HandshakeFacts;
import dev.cotenant.api.ServerDescription;
import java.util.Objects;
import java.util.Optional;

/**
 * What an evidence source may read about one server.
 *
 * @param server the server's description
 * @param handshake the handshake snapshot, when one was observed (from the pre-flight cache or
 *     supplied by the host)
 */
public record EvidenceInput(ServerDescription server, Optional<HandshakeFacts> handshake) {
  public EvidenceInput {
    Objects.requireNonNull(server, "server");
    Objects.requireNonNull(handshake, "handshake");
  }
}
