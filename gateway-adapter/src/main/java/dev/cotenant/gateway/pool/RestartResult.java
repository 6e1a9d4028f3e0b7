package dev.cotenant.gateway.pool;

import java.util.Objects;
import java.util.Optional;

/**
 * What {@link TransportPool#restartByName} did to one entry.
 *
 * @param connectionId the entry's {@link PoolKey#connectionId()}
 * @param restarted true when the entry has a freshly started backend up at the end
 * @param reason when not restarted, why; when restarted by a start that was already in flight
 *     (and joined), {@code "joined the start already in flight"}; empty otherwise
 */
public record RestartResult(String connectionId, boolean restarted, Optional<String> reason) {
  /** Checks the parts are present. */
  public RestartResult {
    Objects.requireNonNull(connectionId, "connectionId");
    Objects.requireNonNull(reason, "reason");
  }
}
