package dev.cotenant.spi;

import dev.cotenant.api.ConcurrencyRecord;
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
 * @param ledgerIdentity the server's current launch identity as
 *     {@code ExecutionIdentity.ledgerKey()}, when the caller computed it; a source that compares
 *     a record with the current launch reads an absent identity as "no record applies"
 * @param concurrency the server's concurrency record (docs/statelessness.md), when one is stored
 */
public record EvidenceInput(
    ServerDescription server,
    Optional<HandshakeFacts> handshake,
    Optional<String> ledgerIdentity,
    Optional<ConcurrencyRecord> concurrency) {
  public EvidenceInput {
    Objects.requireNonNull(server, "server");
    Objects.requireNonNull(handshake, "handshake");
    Objects.requireNonNull(ledgerIdentity, "ledgerIdentity");
    Objects.requireNonNull(concurrency, "concurrency");
  }

  /** An input without identity or concurrency record: only the handshake-derived sources speak. */
  public EvidenceInput(ServerDescription server, Optional<HandshakeFacts> handshake) {
    this(server, handshake, Optional.empty(), Optional.empty());
  }
}
